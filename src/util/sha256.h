#pragma once
// SHA-256 (FIPS 180-4) of files, for checking downloads against the manifests.
#include <cstdint>
#include <filesystem>
#include <string>

namespace repro {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  std::string hex();  // finishes the digest

 private:
  void block(const uint8_t* chunk);
  uint32_t state_[8];
  uint8_t buffer_[64];
  uint64_t length_ = 0;  // bytes
  size_t filled_ = 0;
};

std::string sha256_hex(const std::string& bytes);
std::string sha256_file(const std::filesystem::path& path);  // throws naming the file

}  // namespace repro
