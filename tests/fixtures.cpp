#include "fixtures.h"

#include <zlib.h>

#include <unistd.h>

#include <fstream>
#include <random>

namespace repro::test {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& name) {
  path_ = fs::temp_directory_path() / ("repro-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void write_bytes(const fs::path& path, const std::string& bytes, bool gzip) {
  fs::create_directories(path.parent_path());
  if (!gzip) {
    std::ofstream(path, std::ios::binary) << bytes;
    return;
  }
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
}

namespace {

void put_u32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xFF);
}

// Label of record i: cycles through the classes so every class appears.
int64_t label_of(int64_t i, int64_t classes) { return i % classes; }

}  // namespace

std::string idx_images(int64_t count, int64_t rows, int64_t cols, uint32_t magic) {
  std::string out;
  put_u32(out, magic);
  put_u32(out, static_cast<uint32_t>(count));
  put_u32(out, static_cast<uint32_t>(rows));
  put_u32(out, static_cast<uint32_t>(cols));
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> noise(0, 60);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t band = label_of(i, 10) * rows / 10;  // bright rows at a class-dependent height
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out += static_cast<char>(std::abs(r - band) <= 1 ? 200 + noise(rng) / 2 : noise(rng));
  }
  return out;
}

std::string idx_labels(int64_t count, int64_t classes, uint32_t magic) {
  std::string out;
  put_u32(out, magic);
  put_u32(out, static_cast<uint32_t>(count));
  for (int64_t i = 0; i < count; ++i) out += static_cast<char>(label_of(i, classes));
  return out;
}

void write_fashion_fixture(const fs::path& root, int64_t train, int64_t test) {
  const fs::path dir = root / "fashion_mnist";
  write_bytes(dir / "train-images-idx3-ubyte.gz", idx_images(train, 28, 28), true);
  write_bytes(dir / "train-labels-idx1-ubyte.gz", idx_labels(train, 10), true);
  write_bytes(dir / "t10k-images-idx3-ubyte.gz", idx_images(test, 28, 28), true);
  write_bytes(dir / "t10k-labels-idx1-ubyte.gz", idx_labels(test, 10), true);
}

void write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace repro::test
