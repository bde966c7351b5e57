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

}  // namespace repro
