#pragma once
// One exception type for every user-facing failure: its message is printed as
// one line by main and the process exits non-zero.
#include <stdexcept>
#include <string>

namespace repro {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace repro
