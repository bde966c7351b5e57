#pragma once
// One exception type for every user-facing failure: its message is printed as
// one line by main and the process exits non-zero.
#include <exception>
#include <stdexcept>
#include <string>

namespace repro {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A file or folder that could not be written (disk full, read-only folder, quota): "cannot write PATH: REASON".
// Its own type because such a failure would fail every later run the same way: a command stops on it
// (run/in_process.cpp) instead of recording one failed run after another.
class WriteError : public Error {
 public:
  WriteError(const std::string& path, const std::string& reason)
      : Error("cannot write " + path + (reason.empty() ? "" : ": " + reason)) {}
};

// The message of `e` for users: LibTorch's c10::Error without its C++ stack
// trace (what_without_backtrace), any other exception's what(). The full text
// with the trace belongs in log.txt only.
std::string error_text(const std::exception& e);

// For features a build can leave out (scripts/build-cuda's minimal build):
// "<what> needs <library>, which this build left out (configure with -D<option>=ON)".
[[noreturn]] inline void missing_feature(const std::string& what, const std::string& library,
                                         const std::string& option) {
  throw Error(what + " needs " + library + ", which this build of repro left out (configure with -D" + option +
              "=ON and the library installed)");
}

}  // namespace repro
