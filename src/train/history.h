#pragma once
// A run's per-epoch history: what the trainer produces, what its checkpoint holds
// and what metrics.csv shows (the run layer writes the file; report reads it back).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "record/epoch_row.h"

namespace repro {

nlohmann::json history_to_json(const std::vector<EpochRow>& rows);
std::vector<EpochRow> history_from_json(const nlohmann::json& json);
std::string metrics_csv(const std::vector<EpochRow>& rows);
// Reads metrics.csv back: the exact header, ten fields a row, numbers (empty =
// not measured), epochs 1, 2, ... in order. Throws repro::Error "PATH:LINE: what".
std::vector<EpochRow> parse_metrics_csv(const std::string& text, const std::filesystem::path& path);

}  // namespace repro
