#include "fuzz_common.h"

#include <cxxabi.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <typeinfo>

#include "models/attention/registry.h"
#include "spec/keys.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro::fuzz {

// The attention variants' keys are handed to spec/ before any input is read, as src/main.cpp does.
const bool kAttentionVariantsInstalled = (install_attention_variants(), true);


namespace fs = std::filesystem;

namespace {

fs::path make_scratch() {
  spdlog::set_level(spdlog::level::off);  // loaders' warnings would flood the fuzzer's output
  std::string pattern = (fs::temp_directory_path() / "repro-fuzz-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    std::perror("mkdtemp");
    std::abort();
  }
  static const fs::path folder = pattern;
  std::atexit([] {
    std::error_code ignored;
    fs::remove_all(folder, ignored);
  });
  return folder;
}

std::string demangled(const char* name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && text ? text : name;
  std::free(text);
  return out;
}

}  // namespace

fs::path fresh_scratch() {
  static const fs::path folder = make_scratch();
  for (const auto& entry : fs::directory_iterator(folder)) fs::remove_all(entry.path());
  return folder;
}

bool try_write_bytes(const fs::path& path, const std::string& bytes) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error || fs::is_directory(path)) return false;
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  if (try_write_bytes(path, bytes)) return;
  std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
  std::abort();
}

std::vector<std::string> split_parts(const std::string& data, size_t max_parts) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (parts.size() + 1 < max_parts) {
    const size_t nul = data.find('\0', start);
    if (nul == std::string::npos) break;
    parts.push_back(data.substr(start, nul - start));
    start = nul + 1;
  }
  parts.push_back(data.substr(start));
  return parts;
}

DataOptions loader_options() {
  DataOptions options;
  options.verify = VerifyMode::Off;
  return options;
}

void expect_clean(const char* what, const std::function<void()>& body) {
  try {
    body();
  } catch (const Error&) {
    // a clean, one-line user error: the expected outcome for bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nFINDING in %s: uncaught %s (not repro::Error): %s\n", what,
                 demangled(typeid(e).name()).c_str(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "\nFINDING in %s: uncaught non-std exception\n", what);
    std::abort();
  }
}

std::string safe_relative_path(const std::string& text, size_t max_depth) {
  std::vector<std::string> kept;
  for (const auto& raw : split(text, '/')) {
    std::string part;
    for (const char c : raw)
      if (c > ' ' && c < 127 && c != '\\') part += c;
    if (part.empty() || part == "." || part == "..") continue;
    kept.push_back(part.substr(0, 64));
    if (kept.size() == max_depth) break;
  }
  return kept.empty() ? "file" : join(kept, "/");
}

}  // namespace repro::fuzz
