#pragma once
// CIFAR-10 and CIFAR-100 from the official binary version (plain files or archives).
#include <filesystem>

#include "data/dataset.h"
#include "data/integrity.h"

namespace repro {

DatasetInfo cifar10_info();
DatasetInfo cifar100_info();
RawData load_cifar10(const std::filesystem::path& data_root, const FileOptions& options);
RawData load_cifar100(const std::filesystem::path& data_root, const FileOptions& options);

// Parses binary CIFAR records: `label_bytes` (1 for CIFAR-10; 2 for CIFAR-100,
// the fine label second) then 3072 pixel bytes. Errors name `file`.
Split parse_cifar_records(const std::string& bytes, int64_t label_bytes, int64_t num_classes, const std::string& file);

}  // namespace repro
