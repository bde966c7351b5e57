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

void check_header(const std::string& path, const std::string& bytes, size_t header_bytes, uint32_t magic) {
  if (bytes.size() < header_bytes)
    throw Error(path + ": truncated IDX file: " + std::to_string(bytes.size()) + " bytes, shorter than its " +
                std::to_string(header_bytes) + "-byte header");
  const uint32_t found = big_endian_u32(bytes, 0);
  if (found != magic)
    throw Error(path + ": bad IDX magic number " + std::to_string(found) + ", expected " + std::to_string(magic) +
                (magic == kImageMagic ? " (an image file)" : " (a label file)"));
}

void check_size(const std::string& path, const std::string& bytes, size_t expected) {
  if (bytes.size() == expected) return;
  throw Error(path + ": " + (bytes.size() < expected ? "truncated" : "oversized") + " IDX file: " +
              std::to_string(bytes.size()) + " bytes after decompression, header implies " + std::to_string(expected));
}

}  // namespace

std::string gunzip(const std::string& bytes, const std::string& file) {
  const bool gzip =
      bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
  if (!gzip) return bytes;
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw Error(file + ": cannot start gzip decompression");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      inflateEnd(&stream);
      throw Error(file + (status == Z_BUF_ERROR ? ": truncated gzip stream" : ": corrupt gzip data"));
    }
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  return out;
}

torch::Tensor parse_idx_images(const std::string& bytes, const std::string& path) {
  check_header(path, bytes, 16, kImageMagic);
  const int64_t count = big_endian_u32(bytes, 4), rows = big_endian_u32(bytes, 8), cols = big_endian_u32(bytes, 12);
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096)
    throw Error(path + ": implausible image size " + std::to_string(rows) + "x" + std::to_string(cols));
  check_size(path, bytes, 16 + size_t(count) * rows * cols);
  auto images = torch::empty({count, 1, rows, cols}, torch::kUInt8);
  if (count > 0)  // an empty tensor's data pointer is null: memcpy from/to null is undefined
    std::memcpy(images.data_ptr<uint8_t>(), bytes.data() + 16, size_t(count) * rows * cols);
  return images;
}

torch::Tensor parse_idx_labels(const std::string& bytes, int64_t num_classes, const std::string& path) {
  check_header(path, bytes, 8, kLabelMagic);
  const int64_t count = big_endian_u32(bytes, 4);
  check_size(path, bytes, 8 + size_t(count));
  auto labels = torch::empty({count}, torch::kInt64);
  auto* out = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    const auto label = static_cast<unsigned char>(bytes[8 + i]);
    if (label >= num_classes)
      throw Error(path + ": label " + std::to_string(label) + " at record " + std::to_string(i) +
                  " is out of range 0-" + std::to_string(num_classes - 1));
    out[i] = label;
  }
  return labels;
}

}  // namespace repro
