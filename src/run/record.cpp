#include "run/record.h"

#include "util/error.h"
#include "util/files.h"

namespace repro {

std::optional<nlohmann::json> RunFolder::summary() const {
  if (!std::filesystem::exists(summary_path())) return std::nullopt;
  try {
    return nlohmann::json::parse(read_file(summary_path()));
  } catch (const nlohmann::json::exception& e) {
    throw Error(summary_path().string() + ": not valid JSON (" + e.what() + ")");
  }
}

std::optional<RunStatus> RunFolder::recorded_status() const {
  const auto s = summary();
  if (!s || !s->is_object() || !s->contains("status") || !s->at("status").is_string()) return std::nullopt;
  for (const auto& [status, name] : enum_names(RunStatus{}))
    if (s->at("status").get<std::string>() == name) return status;
  return std::nullopt;
}

}  // namespace repro
