#pragma once
// Fashion-MNIST from its four official IDX .gz files.
#include <filesystem>
#include <string>

#include "data/dataset.h"
#include "data/integrity.h"

namespace repro {

DatasetInfo fashion_mnist_info();
RawData load_fashion_mnist(const std::filesystem::path& data_root, const FileOptions& options = {});

}  // namespace repro
