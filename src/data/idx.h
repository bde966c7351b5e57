#pragma once
// IDX files (the MNIST family's format), optionally gzip-compressed.
#include <torch/torch.h>

#include <string>

namespace repro {

// Decompresses gzip bytes (plain bytes pass through); errors name `file`.
std::string gunzip(const std::string& bytes, const std::string& file);

// IDX bytes, already decompressed; errors name `file`.
// Images: magic 2051, count, rows, cols (big-endian int32), then count*rows*cols bytes.
// Returns (count, 1, rows, cols) uint8.
torch::Tensor parse_idx_images(const std::string& bytes, const std::string& file);
// Labels: magic 2049, count, then count bytes. Returns (count,) int64; checks < num_classes.
torch::Tensor parse_idx_labels(const std::string& bytes, int64_t num_classes, const std::string& file);

}  // namespace repro
