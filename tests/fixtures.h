#pragma once
// Tiny generated datasets in the exact official formats, and temporary folders.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace repro::test {

// A fresh empty folder under the system temp dir, removed when it goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Writes bytes, gzip-compressed when `gzip` is true.
void write_bytes(const std::filesystem::path& path, const std::string& bytes, bool gzip);

// An IDX image file: magic 2051, count, rows, cols, then pixels (big-endian header).
std::string idx_images(int64_t count, int64_t rows, int64_t cols, uint32_t magic = 2051);
std::string idx_labels(int64_t count, int64_t classes, uint32_t magic = 2049);

// <root>/fashion_mnist/ with the four official .gz file names; images carry a
// class-dependent bright band so that a model can learn them.
void write_fashion_fixture(const std::filesystem::path& root, int64_t train, int64_t test);

// CIFAR binary records: `label_bytes` label bytes (the last is the class) + 3072 pixels.
std::string cifar_records(int64_t count, int64_t label_bytes, int64_t classes);
// A tar archive (gzip- or xz-compressed by the name's ending) of name -> bytes members.
void write_tar(const std::filesystem::path& path, const std::vector<std::pair<std::string, std::string>>& members);
// An SVHN-style MATLAB v5 file with X (32x32x3xN uint8) and y (Nx1 double, 10 = digit 0).
void write_svhn_mat(const std::filesystem::path& path, int64_t count);

// Writes a text file (for specs).
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace repro::test
