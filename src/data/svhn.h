#pragma once
// SVHN format 2 (cropped digits) from the official MATLAB files, via libmatio.
#include <filesystem>
#include <string>

#include "data/dataset.h"
#include "data/integrity.h"

namespace repro {

DatasetInfo svhn_info();
RawData load_svhn(const std::filesystem::path& data_root, const FileOptions& options);

}  // namespace repro
