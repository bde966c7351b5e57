// The run's own spec keys, each declared once with its member (spec/run_keys.cpp, issue 47.2): a value set
// through a key reaches its member and no other; a default is the member's; no key is converted elsewhere.
#include <cmath>
#include <map>
#include <regex>

#include "catch.h"
#include "fixtures.h"
#include "spec/config.h"
#include "spec/keys.h"
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

TEST_CASE("each run key fills its own member: a value set through it reads back, and no other member moves", "[spec]") {
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
    if (!key->resolve_auto) {
      CHECK(config.text(key->def.key) == key->text_of(defaults));
      CHECK(key->text_of(read) == key->text_of(defaults));
    } else {
      CHECK(config.text(key->def.key) == "auto");
    }
  }
}

// A spec key read or set by name with a literal outside its declaration: a second place a setting is converted.
TEST_CASE("no spec key is read or set by name outside its declaration and the resolution of auto", "[spec]") {
  const std::regex by_name(R"(\.(integer|real|flag|real_pair|text|set|set_implied)\(\s*"(model|data|text|train)\.)");
  const std::map<std::string, std::string> allowed = {
      {"spec/run_keys.cpp", "the declarations; model.attention.kind's binding reads its own key"},
      {"spec/grid.cpp", "a swept key must be read by the row's attention variant, checked on the resolved spec"},
  };
  // spec/presets.cpp applies a preset (model.preset), finds the chosen variant (model.attention.kind) and tells the
  // bindings' resolvers whether the model is a vit (model.kind): no other key, so that an "auto" rule written there
  // by name, beside its key's binding (auto_by_dataset), is found.
  const std::regex resolution_keys(R"re(^spec/presets\.cpp:.*"model\.(preset|attention\.kind|kind)")re");
  std::vector<std::string> found;
  for (const std::string& line : test::source_lines_matching(by_name, allowed))
    if (!std::regex_search(line, resolution_keys)) found.push_back(line);
  INFO(join(found, "\n"));
  CHECK(found.empty());
  CHECK(!std::regex_search(std::string(R"(spec/presets.cpp:40: if (config.text("model.pool") == "auto"))"),
                           resolution_keys));
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
  const auto changes = changed_settings(moved, now);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].text() == "train.lr: 0.003 -> 0.0003");
  CHECK((changes[0].key == "train.lr" && changes[0].before == "0.003" && changes[0].after == "0.0003"));
}

// Issue 59: which keys `repro eval` may set, which twins may differ in, and how an "auto" resolves are properties of
// the key, declared in its binding (spec/key_binding.h: eval_may_override, differs_by_design, auto_by_dataset); the
// lists other code reads are made from the bindings. A list of key names beside them is a second place to keep true.
TEST_CASE("every property of a key is in its binding: no list or chain of key names beside the bindings", "[spec]") {
  const std::string key = R"re("(?:model|data|text|train)\.[a-z_.]*[a-z_]")re";
  // Two key names one after the other in a list ({"a", "b"}, one per line or not), or a chain of comparisons.
  const std::regex side_list(key + R"(\s*,\s*)" + key + R"(|==\s*)" + key + R"(\s*\|\|)");
  const std::vector<std::string> found = test::source_matches(side_list, {});
  INFO(join(found, "\n"));
  CHECK(found.empty());
  // The check finds the lists that were (spec/run_spec.cpp before issue 59), and not a preset's values.
  CHECK(std::regex_search(std::string(R"({"data.noise.split", "data.noise.kind", "data.noise.level",)"), side_list));
  CHECK(std::regex_search(std::string("= {\n    \"train.precision\",\n    \"data.files\"};"), side_list));
  CHECK(std::regex_search(std::string(R"(key == "data.verify" || key == "data.files")"), side_list));
  CHECK(!std::regex_search(std::string(R"({{"model.kind", "vit"}, {"model.attention.kind", "dgsa"}})"), side_list));

  // The lists made from the bindings: the keys of the lists they replaced, in the key table's order.
  std::vector<std::string> by_design;
  for (const KeyDef& def : spec_keys())
    if (def.differs_by_design) by_design.push_back(def.key);
  CHECK(by_design == std::vector<std::string>{"data.files", "data.verify", "train.eval_batch_size", "train.eval_tokens",
                                              "train.log_every", "train.tensorboard", "train.precision",
                                              "train.save_model"});
  CHECK(eval_override_keys() == std::vector<std::string>{"data.verify", "data.test_limit", "data.val_limit",
                                                         "data.noise.split", "data.noise.kind", "data.noise.level",
                                                         "data.noise.seed"});
  // `repro eval --help` names them from the same list, a section whose every key is one of them once.
  CHECK(eval_override_summary() == "data.verify, data.test_limit, data.val_limit, data.noise.*");
}

TEST_CASE("twins are compared aside the keys that differ by design; a change is a value, its text made in one place",
          "[spec]") {
  const std::string before = Config::defaults().to_yaml();
  std::string after = before;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"precision: auto\n", "precision: bf16\n"}, {"lr: 0.0003\n", "lr: 0.001\n"}}) {
    REQUIRE(after.find(from) != std::string::npos);
    after.replace(after.find(from), from.size(), to);
  }
  const auto all = setting_differences(before, after, /*ignore_by_design=*/false);
  REQUIRE(all.size() == 2);
  const auto twins = setting_differences(before, after, /*ignore_by_design=*/true);
  REQUIRE(twins.size() == 1);
  CHECK(twins[0].text() == "train.lr: 0.0003 -> 0.001");
  CHECK(keep_both_advice(twins).find("--set train.lr=0.001") != std::string::npos);
  CHECK(changes_text(all) == "train.lr: 0.0003 -> 0.001; train.precision: auto -> bf16");
  // A side the key is absent from: no one-value axis can give it back.
  const SettingChange added{"train.lr", "", "0.001", /*before_absent=*/true};
  CHECK(added.text() == "train.lr: (absent) -> 0.001");
  CHECK(keep_both_advice({added}).find("--set") == std::string::npos);
  const SettingChange ran_as{"train.no_decay", "vectors_embeddings", "paper", /*before_absent=*/true};
  CHECK(ran_as.text() == "train.no_decay: (absent: ran as vectors_embeddings) -> paper");
  CHECK(keep_both_advice({ran_as}).find("--set train.no_decay=paper") != std::string::npos);
  CHECK(changed_settings("a: [", before).at(0).text().find("not valid YAML") != std::string::npos);

  // No code but SettingChange::text spells a change as "key: a -> b", and none parses one back.
  const std::regex spelled(R"re(": "\s*\+[^;]*" -> "|\(absent[^"]*\) -> )re");
  const std::vector<std::string> spelled_found =
      test::source_lines_matching(spelled, {{"spec/run_spec.cpp", "SettingChange::text, the one text form"}});
  INFO(join(spelled_found, "\n"));
  CHECK(spelled_found.empty());
  const std::regex parsed(R"re(\.r?find\(\s*"[^"]*(->|\(absent))re");
  const std::vector<std::string> parsed_found = test::source_lines_matching(parsed, {});
  INFO(join(parsed_found, "\n"));
  CHECK(parsed_found.empty());
  CHECK(std::regex_search(std::string(R"(changes.push_back(key + ": " + it->second + " -> " + value);)"), spelled));
  CHECK(std::regex_search(std::string(R"(changes.push_back(key + ": (absent) -> " + value);)"), spelled));
  CHECK(
      std::regex_search(std::string(R"(const auto colon = change.find(": "), arrow = change.find(" -> ");)"), parsed));
  CHECK(std::regex_search(std::string(R"re(change.find("(absent)") != std::string::npos)re"), parsed));
}
