#include "record/folder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

constexpr const char* kEventsName = "events.out.tfevents.repro";

}  // namespace

std::filesystem::path RunFolder::events_path() const { return dir_ / kEventsName; }

std::filesystem::path RunFolder::rewritten_events_path(const std::string& number) const {
  return dir_ / (std::string(kEventsName) + "." + number);
}

std::vector<std::filesystem::path> RunFolder::event_files() const {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir_, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string suffix = name.size() > std::strlen(kEventsName) ? name.substr(std::strlen(kEventsName)) : "";
    const bool rewritten = starts_with(name, std::string(kEventsName) + ".") && suffix.size() == 5 &&
                           std::all_of(suffix.begin() + 1, suffix.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (name == kEventsName || rewritten) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());  // TensorBoard's order: by name
  return files;
}

std::filesystem::path RunFolder::current_events_path() const {
  const auto files = event_files();
  return files.empty() ? events_path() : files.back();
}

std::filesystem::path RunFolder::next_events_path() const {
  const auto files = event_files();
  if (files.empty()) return events_path();
  const std::string last = files.back().filename().string();
  const int generation = last == kEventsName ? 1 : std::stoi(last.substr(std::strlen(kEventsName) + 1));
  char number[16];
  std::snprintf(number, sizeof number, "%04d", generation + 1);
  return rewritten_events_path(number);
}

RecordFiles find_record_files(const std::filesystem::path& root) {
  RecordFiles found;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code kind;
    if (is_temp_name(it->path().filename().string()) && it->is_directory(kind)) {  // repro collect's staging
      if (const std::string note = skipped_temp_note(it->path()); !note.empty()) spdlog::warn("{}", note);
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() == kPlanFile) found.plans.push_back(it->path());
    if (it->path().filename() == kSummaryFile) found.summaries.push_back(it->path());
  }
  if (ec) throw Error("cannot list " + root.string() + ": " + ec.message());
  std::sort(found.plans.begin(), found.plans.end());
  std::sort(found.summaries.begin(), found.summaries.end());
  return found;
}

}  // namespace repro
