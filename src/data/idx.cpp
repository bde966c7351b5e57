#include "data/idx.h"

#include <zlib.h>

#include <cstring>

#include "util/error.h"

namespace repro {

namespace {

constexpr uint32_t kImageMagic = 2051;
constexpr uint32_t kLabelMagic = 2049;

uint32_t big_endian_u32(const std::string& bytes, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + offset);
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

void check_header(const std::filesystem::path& path, const std::string& bytes, size_t header_bytes,
                  uint32_t magic) {
  if (bytes.size() < header_bytes)
    throw Error(path.string() + ": truncated IDX file: " + std::to_string(bytes.size()) +
                " bytes, shorter than its " + std::to_string(header_bytes) + "-byte header");
  const uint32_t found = big_endian_u32(bytes, 0);
  if (found != magic)
    throw Error(path.string() + ": bad IDX magic number " + std::to_string(found) + ", expected " +
                std::to_string(magic) + (magic == kImageMagic ? " (an image file)" : " (a label file)"));
}

void check_size(const std::filesystem::path& path, const std::string& bytes, size_t expected) {
  if (bytes.size() == expected) return;
  throw Error(path.string() + ": " + (bytes.size() < expected ? "truncated" : "oversized") + " IDX file: " +
              std::to_string(bytes.size()) + " bytes after decompression, header implies " +
              std::to_string(expected));
}

}  // namespace

std::string read_gzip_file(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw Error(path.string() + ": file not found");
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw Error(path.string() + ": cannot open");
  std::string out;
  char buffer[1 << 16];
  while (true) {
    const int n = gzread(file, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose(file);
      throw Error(path.string() + ": corrupt gzip data (" + message + ")");
    }
    if (n == 0) break;
    out.append(buffer, n);
  }
  const int close_code = gzclose(file);
  if (close_code == Z_BUF_ERROR) throw Error(path.string() + ": truncated gzip stream");
  if (close_code != Z_OK) throw Error(path.string() + ": corrupt gzip data (code " + std::to_string(close_code) + ")");
  return out;
}

torch::Tensor read_idx_images(const std::filesystem::path& path) {
  const std::string bytes = read_gzip_file(path);
  check_header(path, bytes, 16, kImageMagic);
  const int64_t count = big_endian_u32(bytes, 4), rows = big_endian_u32(bytes, 8), cols = big_endian_u32(bytes, 12);
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096)
    throw Error(path.string() + ": implausible image size " + std::to_string(rows) + "x" + std::to_string(cols));
  check_size(path, bytes, 16 + size_t(count) * rows * cols);
  auto images = torch::empty({count, 1, rows, cols}, torch::kUInt8);
  std::memcpy(images.data_ptr<uint8_t>(), bytes.data() + 16, size_t(count) * rows * cols);
  return images;
}

torch::Tensor read_idx_labels(const std::filesystem::path& path, int64_t num_classes) {
  const std::string bytes = read_gzip_file(path);
  check_header(path, bytes, 8, kLabelMagic);
  const int64_t count = big_endian_u32(bytes, 4);
  check_size(path, bytes, 8 + size_t(count));
  auto labels = torch::empty({count}, torch::kInt64);
  auto* out = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    const auto label = static_cast<unsigned char>(bytes[8 + i]);
    if (label >= num_classes)
      throw Error(path.string() + ": label " + std::to_string(label) + " at record " + std::to_string(i) +
                  " is out of range 0-" + std::to_string(num_classes - 1));
    out[i] = label;
  }
  return labels;
}

}  // namespace repro
