#pragma once
// `repro data verify`: each manifest file's presence, size and sha256.
#include <filesystem>
#include <string>
#include <vector>

namespace repro {

struct FileCheck {
  std::string dataset, file, status;  // status: ok | missing | wrong size | wrong sha256
  std::string detail;                 // where it was found, or what differs
};

std::vector<FileCheck> verify_dataset(const std::string& dataset, const std::filesystem::path& data_root);
std::string format_checks(const std::vector<FileCheck>& checks);

}  // namespace repro
