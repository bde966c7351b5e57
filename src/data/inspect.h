#pragma once
// `repro data info` and `repro data preview`: what a dataset holds as repro
// reads it, loading and batching speed, and clean-versus-noisy examples.
#include <filesystem>
#include <string>

#include "spec/options.h"

namespace repro {

// Splits, examples per class, image shape or token-length statistics; with
// `bench`, loading time and batching throughput.
std::string dataset_info(const std::string& dataset, const std::filesystem::path& data_root,
                         const RunOptions& options, bool bench);

// Images: a PNG grid at `png` (row 1 clean, row 2 with data.noise.*; 8 test
// images, scaled x4). Text: returns clean and noisy versions of 5 test texts.
std::string preview_dataset(const std::string& dataset, const std::filesystem::path& data_root,
                            const RunOptions& options, const std::filesystem::path& png);

}  // namespace repro
