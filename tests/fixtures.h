#pragma once
// Tiny generated datasets in the exact official formats, and temporary folders.
#include <cstdint>
#include <filesystem>
#include <string>

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

// Writes a text file (for specs).
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace repro::test
