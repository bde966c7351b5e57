#pragma once
// Shared pieces of the libFuzzer targets (tests/fuzz/README.md): a scratch folder
// per process, NUL-separated input parts, and the pass/fail rule: an input passes
// when the code under test returns or throws repro::Error; any other exception is
// a finding (printed, then abort() so libFuzzer saves the input).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "spec/config.h"
#include "spec/options.h"

namespace repro::fuzz {

// An empty folder of this process (created once under $TMPDIR, emptied on each call).
std::filesystem::path fresh_scratch();

// Writes `bytes` to `path`, creating parent folders (aborts when it cannot).
void write_bytes(const std::filesystem::path& path, const std::string& bytes);
// The same, for paths made from fuzz input: false when the path cannot be a file
// (e.g. a folder of that name exists, or a parent is a file).
bool try_write_bytes(const std::filesystem::path& path, const std::string& bytes);

// Splits `data` at NUL bytes into at most `max_parts` parts (the last keeps the rest).
std::vector<std::string> split_parts(const std::string& data, size_t max_parts);

// The default data options with data.verify=off: fuzz bytes never match
// the manifests' checksums, and the parsing behind that check is the target.
DataOptions loader_options();

// Runs `body`; repro::Error passes, anything else is reported and aborts.
void expect_clean(const char* what, const std::function<void()>& body);

// A path relative to a scratch folder made from fuzz text: printable characters
// only, no empty/"."/".." components, at most `max_depth` components.
std::string safe_relative_path(const std::string& text, size_t max_depth);

}  // namespace repro::fuzz
