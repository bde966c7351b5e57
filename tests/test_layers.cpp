// The stages point one way (docs/architecture.md): each folder of src/ includes
// only the folders listed for it here, so no include cycle between stages exists.
#include "catch.h"
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "paths.h"
#include "record/folder.h"
#include "spec/attention_variant.h"
#include "spec/keys.h"
#include "util/strings.h"

namespace {

// folder -> the folders it may include (itself always).
const std::map<std::string, std::set<std::string>> kAllowed = {
    {"util", {}},
    {"record", {"util"}},  // run identity (RunId) and the run records: plain structs, their readers and writers
    {"spec", {"record", "util"}},  // record: a planned run's RunId
    {"text", {"spec", "util"}},
    {"data", {"text", "spec", "util"}},
    {"models", {"data", "spec", "util"}},  // data: DatasetInfo, the shape a model is built for
    {"train", {"models", "data", "text", "record", "spec", "util"}},
    {"run", {"train", "models", "data", "text", "record", "spec", "util"}},
    // report: the records (record/) and the shapes and history rows it reads, never run/ (issue 59: the event file's
    // checks moved to record/ with it), so run/ and report/ are side by side above train/
    {"report", {"train", "data", "record", "spec", "util"}},
    {"bench", {"train", "models", "data", "text", "record", "spec", "util"}},
    {"analysis", {"util"}},  // attention rollout and its figures: tensors and OpenCV only
    {"cli", {"analysis", "bench", "report", "run", "train", "models", "data", "text", "record", "spec", "util"}},
    {"tools", {}},
};

}  // namespace

TEST_CASE("stage folders include only the stages before them (no include cycle)", "[spec]") {
  const std::filesystem::path src = std::filesystem::path(REPRO_SOURCE_DIR) / "src";
  const std::regex include_line(R"(^\s*#\s*include\s+"([a-z_]+)/)");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const auto relative = std::filesystem::relative(entry.path(), src);
    if (relative.begin() == relative.end() || std::next(relative.begin()) == relative.end()) continue;  // main.cpp
    const std::string folder = relative.begin()->string();
    REQUIRE(kAllowed.count(folder) == 1);  // a new stage folder must be placed in the order above
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      std::smatch match;
      if (!std::regex_search(line, match, include_line)) continue;
      const std::string target = match[1];
      if (target == folder) continue;
      INFO(relative.string() << " includes " << target << "/");
      CHECK(kAllowed.at(folder).count(target) == 1);
    }
  }
  CHECK(files > 100);
}

// report/ is in rooms (docs/architecture.md): the records read and copied, the tables and their statistics, the
// figures, the paper's claims and ledger, and the board that puts them on one page; each room includes only the
// rooms listed for it, so that a change to the board never reaches a table and no two rooms include each other.
TEST_CASE("report/'s rooms include only the rooms before them", "[spec]") {
  const std::map<std::string, std::set<std::string>> rooms = {
      {"records", {}},
      {"tables", {"records"}},
      {"figures", {"records", "tables"}},
      {"claims", {"records", "tables"}},
      {"board", {"records", "tables", "figures", "claims"}},
  };
  const std::filesystem::path report = std::filesystem::path(REPRO_SOURCE_DIR) / "src" / "report";
  const std::regex include_line(R"(^\s*#\s*include\s+"report/([a-z_]+)/)");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(report)) {
    if (!entry.is_regular_file()) continue;
    const auto relative = std::filesystem::relative(entry.path(), report);
    INFO(relative.string());
    REQUIRE(std::next(relative.begin()) != relative.end());  // every file of report/ is in a room
    const std::string room = relative.begin()->string();
    REQUIRE(rooms.count(room) == 1);  // a new room must be placed in the order above
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      std::smatch match;
      if (!std::regex_search(line, match, include_line) || match[1] == room) continue;
      INFO(line);
      CHECK(rooms.at(room).count(match[1]) == 1);
    }
  }
  CHECK(files > 40);
}

// Settings are converted once, in src/spec/ (run_options when the grid is expanded), and passed down as typed
// options: no file below spec/ holds a string literal that is a spec key (a look-up such as
// config.text("data.verify") needs one). The exceptions name a key without reading a setting: an attention
// variant's file declares its own keys and the shared ones it reads (spec/attention_variant.h: spec/ reads them),
// and the two below.
TEST_CASE("below src/spec no code names a spec key: settings arrive as typed options", "[spec]") {
  const std::filesystem::path src = std::filesystem::path(REPRO_SOURCE_DIR) / "src";
  const std::set<std::string> allowed = {
      // the key named in a split's subset note and class-check error (the value is SplitOptions')
      "data/split_plan.cpp: data.train_limit", "data/split_plan.cpp: data.val_limit",
      "data/split_plan.cpp: data.test_limit",
      // a recorded setting of eval/NAME.json (a record field), labelling a figure's axis
      "report/figures/robustness_charts.cpp: data.noise.kind"};
  std::set<std::string> variant_keys;  // declared in src/models/attention/<variant>.cpp
  for (const auto& def : repro::attention_variant_keys()) variant_keys.insert(def.key);
  const std::regex literal(R"re("([a-z_]+\.[a-z_.]+)")re");
  std::vector<std::string> found;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = std::filesystem::relative(entry.path(), src).string();
    if (repro::starts_with(relative, "spec/") || relative.find('/') == std::string::npos) continue;  // main.cpp
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      for (std::sregex_iterator it(line.begin(), line.end(), literal), end; it != end; ++it) {
        const std::string key = (*it)[1];
        if (repro::find_key(key) && !allowed.count(relative + ": " + key) &&
            !(repro::starts_with(relative, "models/attention/") &&
              (variant_keys.count(key) || repro::is_shared_attention_key(key))))
          found.push_back(relative + ":" + std::to_string(number) + ": " + line);
      }
  }
  CHECK(files > 100);
  INFO(repro::join(found, "\n"));
  CHECK(found.empty());
}

// Nor does a module call a Config getter: an attention variant's file declares its keys, and spec/'s binder
// (attention_variant.h's templates, run when the grid is expanded) reads them into its settings struct.
TEST_CASE("no file in src/models reads a Config", "[spec]") {
  const std::filesystem::path models = std::filesystem::path(REPRO_SOURCE_DIR) / "src" / "models";
  const std::regex getter(R"re([.]\s*(text|real|integer|flag|real_pair|is_explicit|set_implied)\s*\()re");
  std::vector<std::string> found;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(models)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      if (std::regex_search(line, getter))
        found.push_back(entry.path().filename().string() + ":" + std::to_string(number) + ": " + line);
  }
  CHECK(files > 20);
  INFO(repro::join(found, "\n"));
  CHECK(found.empty());
}

// spec/, util/ and report/ do not see LibTorch (CMakeLists.txt compiles them without its precompiled header,
// which costs more to load than they cost to compile): no file there reaches a torch/, ATen/ or c10/ header
// through repro's own headers, but the three that read LibTorch's version, its exception type and the
// dataset catalogue.
TEST_CASE("spec/, util/, record/ and report/ include no LibTorch header, directly or through repro's headers", "[spec]") {
  const std::filesystem::path src = std::filesystem::path(REPRO_SOURCE_DIR) / "src";
  const std::set<std::string> exceptions = {"util/version.cpp", "util/error.cpp", "report/claims/paper_file.cpp"};
  const std::regex include_line(R"(^\s*#\s*include\s+[<"]([^>"]+)[>"])");
  std::map<std::string, bool> reaches;  // repro header -> reaches LibTorch (memo; false while being visited)
  std::function<bool(const std::string&)> reaches_torch = [&](const std::string& relative) {
    if (const auto it = reaches.find(relative); it != reaches.end()) return it->second;
    reaches[relative] = false;
    std::ifstream in(src / relative);
    std::string line;
    bool found = false;
    while (!found && std::getline(in, line)) {
      std::smatch match;
      if (!std::regex_search(line, match, include_line)) continue;
      const std::string target = match[1];
      if (repro::starts_with(target, "torch/") || repro::starts_with(target, "ATen/") || repro::starts_with(target, "c10/"))
        found = true;
      else if (std::filesystem::exists(src / target)) found = reaches_torch(target);
    }
    return reaches[relative] = found;
  };
  int files = 0;
  for (const char* folder : {"spec", "util", "record", "report"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(src / folder)) {  // report/'s rooms too
      if (entry.path().extension() != ".cpp") continue;
      const std::string relative = std::filesystem::relative(entry.path(), src).generic_string();
      ++files;
      INFO(relative);
      CHECK(reaches_torch(relative) == (exceptions.count(relative) == 1));
    }
  CHECK(files >= 50);  // a floor that catches a wrong source path, not a count to keep up to date
}

TEST_CASE("docs/architecture.md lists the run folder's files that record/folder.h names, no more, no fewer",
          "[spec]") {
  const repro::RunFolder folder("");
  const std::set<std::string> named = {folder.spec_path().string(),
                                       folder.lock_path().string(),
                                       folder.log_path().string(),
                                       folder.checkpoint_path().string(),
                                       folder.metrics_path().string(),
                                       folder.steps_path().string(),
                                       folder.events_path().string(),
                                       folder.model_path().string(),
                                       folder.summary_path().string(),
                                       folder.eval_path("<name>").string(),
                                       folder.rewritten_events_path("<n>").string()};
  REQUIRE(named.size() == 11);
  std::ifstream in(std::filesystem::path(REPRO_SOURCE_DIR) / "docs/architecture.md");
  std::string line;
  bool inside = false;
  std::set<std::string> listed;
  const std::regex item(R"(^\s*- `([^`]+)`)");
  while (std::getline(in, line)) {
    if (line.find("<!-- run files: begin -->") != std::string::npos) inside = true;
    if (line.find("<!-- run files: end -->") != std::string::npos) break;
    std::smatch match;
    if (inside && std::regex_search(line, match, item)) CHECK(listed.insert(match[1]).second);
  }
  CHECK(listed == named);
}
