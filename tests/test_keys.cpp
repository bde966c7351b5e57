// The run's own spec keys, each declared once with its member (spec/run_keys.cpp, issue 47.2): a value set
// through a key reaches its member and no other; a default is the member's; no key is converted elsewhere.
#include <cmath>
#include <map>
#include <regex>

#include "catch.h"
#include "fixtures.h"
#include "spec/config.h"
#include "spec/presets.h"
#include "spec/run_keys.h"
#include "spec/run_spec.h"
#include "util/strings.h"

using namespace repro;

namespace {

std::vector<const Key<RunOptions>*> all_run_keys() {
  std::vector<const Key<RunOptions>*> keys;
  for (const auto* part : {&run_keys_before_attention(), &run_keys_after_attention()})
    for (const Key<RunOptions>& key : *part) keys.push_back(&key);
  return keys;
}

// The defaults, resolved for a text dataset (it has a validation split, so train.select=best_val is valid).
Config resolved_defaults() {
  Config config = Config::defaults();
  resolve_settings(config, DatasetTraits{/*text=*/true, ""});
  return config;
}

// A valid value of `def` other than `current`.
std::string other_value(const KeyDef& def, const std::string& current) {
  switch (def.type) {
    case ValueType::Enum:
      for (const std::string& choice : def.choices)
        if (choice != current && choice != "auto") return choice;
      return current;
    case ValueType::Bool:
      return current == "true" ? "false" : "true";
    case ValueType::String:
      return current + "x";
    case ValueType::FloatPair:
      return "[0.5, 0.75]";
    case ValueType::Int:
    case ValueType::Float: {
      const double now = std::stod(current);
      for (const double candidate : {now + 1, now - 1, (now + def.max) / 2, (def.min + now) / 2})
        if (candidate >= def.min && candidate <= def.max && candidate != now &&
            (def.type == ValueType::Float || candidate == std::floor(candidate)))
          return format_number(candidate);
      return current;
    }
  }
  return current;
}

// Every bound key's member as text (keys without text_of, e.g. model.attention.kind, left out).
std::map<std::string, std::string> member_texts(const RunOptions& options) {
  std::map<std::string, std::string> texts;
  for (const Key<RunOptions>* key : all_run_keys())
    if (key->text_of) texts[key->def.key] = key->text_of(options);
  return texts;
}

}  // namespace

TEST_CASE("each run key fills its own member: a value set through it reads back, and no other member moves",
          "[spec]") {
  const Config base = resolved_defaults();
  const auto before = member_texts(run_options(base));
  std::vector<std::string> unbound;
  for (const Key<RunOptions>* key : all_run_keys()) {
    const std::string& name = key->def.key;
    INFO(name);
    if (!key->read) {
      unbound.push_back(name);
      continue;
    }
    const std::string value = other_value(key->def, base.text(name));
    REQUIRE(value != base.text(name));
    Config config = base;
    config.set(name, value, "test");
    if (name == "model.attention.kind") {  // the chosen variant's own "auto" keys resolve with it
      config = Config::defaults();
      config.set(name, value, "test");
      resolve_settings(config, DatasetTraits{/*text=*/true, ""});
    }
    const RunOptions options = run_options(config);
    if (name == "model.attention.kind") {
      CHECK(options.model.attention.kind_name() == value);
      continue;
    }
    REQUIRE(key->text_of);
    CHECK(key->text_of(options) == config.text(name));
    for (const auto& [other, text] : member_texts(options))
      if (other != name) CHECK(text == before.at(other));
  }
  // model.preset is applied to the other keys before the conversion (spec/presets.cpp): the one key without a member.
  CHECK(unbound == std::vector<std::string>{"model.preset"});
}

TEST_CASE("a run key's default is its member's default in RunOptions{}, and reads back as it", "[spec]") {
  const RunOptions defaults{}, read = run_options(resolved_defaults());
  const Config config = Config::defaults();
  for (const Key<RunOptions>* key : all_run_keys()) {
    INFO(key->def.key);
    if (!key->text_of) continue;
    if (key->auto_rule == AutoRule::None) {
      CHECK(config.text(key->def.key) == key->text_of(defaults));
      CHECK(key->text_of(read) == key->text_of(defaults));
    } else {
      CHECK(config.text(key->def.key) == "auto");
    }
  }
  // The model's shared settings reach its parts (share_model_settings).
  Config wide = resolved_defaults();
  wide.set("model.dim", "96", "t");
  wide.set("model.heads", "3", "t");
  wide.set("model.dropout", "0.25", "t");
  wide.set("model.attn_dropout", "0.125", "t");
  wide.set("model.init_std", "0.5", "t");
  const ModelOptions m = run_options(wide).model;
  CHECK((m.attention.dim == 96 && m.ffn.dim == 96 && m.attention.heads == 3));
  CHECK((m.attention.proj_dropout == 0.25 && m.ffn.dropout == 0.25 && m.attention.attn_dropout == 0.125));
  CHECK((m.attention.init_std == 0.5 && m.ffn.init_std == 0.5));
}

// A spec key read or set by name with a literal outside its declaration: a second place a setting is converted.
TEST_CASE("no spec key is read or set by name outside its declaration and the resolution of auto", "[spec]") {
  const std::regex by_name(R"(\.(integer|real|flag|real_pair|text|set|set_implied)\(\s*"(model|data|text|train)\.)");
  const std::map<std::string, std::string> allowed = {
      {"spec/presets.cpp", "the presets and the resolution of \"auto\": they work on the spelled keys, before conversion"},
      {"spec/run_keys.cpp", "the declarations; model.attention.kind's binding reads its own key"},
      {"spec/grid.cpp", "a swept key must be read by the row's attention variant, checked on the resolved spec"},
  };
  const std::vector<std::string> found = test::source_lines_matching(by_name, allowed);
  INFO(join(found, "\n"));
  CHECK(found.empty());
  // The check itself finds what it looks for.
  CHECK(std::regex_search(std::string(R"(o.dim = c.integer("model.dim");)"), by_name));
  CHECK(std::regex_search(std::string(R"(config.set_implied("data.augment", "none");)"), by_name));
}

// Defaults once spelled by hand (3e-4, 1e-8, 1e-5) are now written as every number is; a run recorded with the old
// spelling is the same run (resumed or skipped, never "spec changed"), a changed value is still a change.
TEST_CASE("a record's numbers compare as numbers: an old spelling of a default is no change", "[spec]") {
  const std::string now = Config::defaults().to_yaml();
  REQUIRE(now.find("eps: 1e-08\n") != std::string::npos);
  REQUIRE(now.find("lr: 0.0003\n") != std::string::npos);
  std::string then = now;
  then.replace(then.find("eps: 1e-08\n"), 11, "eps: 1e-8\n");
  then.replace(then.find("lr: 0.0003\n"), 11, "lr: 3e-4\n");
  CHECK(changed_settings(then, now).empty());
  std::string moved = then;
  moved.replace(moved.find("lr: 3e-4\n"), 9, "lr: 3e-3\n");
  CHECK(changed_settings(moved, now) == std::vector<std::string>{"train.lr: 0.003 -> 0.0003"});
}
