#pragma once
// Tiny generated datasets in the exact official formats, temporary folders, and a scoped
// LibTorch thread count.
#include <ATen/Parallel.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "data/integrity.h"
#include "paths.h"
#include "record/steps_file.h"
#include "run/runner.h"
#include "spec/config.h"
#include "spec/options.h"
#include "train/step.h"

namespace repro::test {

// The data and text options of a Config whose data/text settings are resolved (model and train
// left at their defaults): what the data layer takes, for tests that set keys one by one.
RunOptions input_options(const Config& config);

// Loader options for fixtures: they are not the official files, so their
// checksums are not checked (data.verify=off).
FileOptions unchecked(const std::string& files = "");

// A fresh empty folder under the system temp dir, removed when it goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Points $REPRO_CACHE (token and checksum caches) at a fresh temporary folder
// while it lives, so tests leave nothing in the user's cache.
class ScopedCache {
 public:
  ScopedCache();
  ~ScopedCache();
  const std::filesystem::path& path() const { return dir_.path(); }

 private:
  TempDir dir_;
};

// Sets LibTorch's thread count while it lives, then restores the one before.
struct ThreadCount {
  int before = at::get_num_threads();
  explicit ThreadCount(int threads) { at::set_num_threads(threads); }
  ~ThreadCount() { at::set_num_threads(before); }
};

// Writes bytes, gzip-compressed when `gzip` is true.
void write_bytes(const std::filesystem::path& path, const std::string& bytes, bool gzip);
// gzip-compresses bytes in memory (a valid .gz file).
std::string gzip(const std::string& bytes);

// An IDX image file: magic 2051, count, rows, cols, then pixels (big-endian header).
std::string idx_images(int64_t count, int64_t rows, int64_t cols, uint32_t magic = 2051);
std::string idx_labels(int64_t count, int64_t classes, uint32_t magic = 2049);

// <root>/fashion_mnist/ with the four official .gz file names; images carry a
// class-dependent bright band so that a model can learn them.
void write_fashion_fixture(const std::filesystem::path& root, int64_t train, int64_t test);

// CIFAR binary records: `label_bytes` label bytes (the last is the class) + 3072 pixels.
std::string cifar_records(int64_t count, int64_t label_bytes, int64_t classes);
// <root>/cifar10/cifar-10-batches-bin/ with data_batch_{1..5}.bin of `per_batch`
// records and a test file named `test_name` of `test` records.
void write_cifar10_fixture(const std::filesystem::path& root, int64_t per_batch, int64_t test,
                           const std::string& test_name = "test_batch.bin");
// AG News CSV rows: `rows` rows cycling through classes 1..`classes`.
std::string ag_news_csv(int64_t rows, int64_t classes = 4);
// A tar archive (gzip- or xz-compressed by the name's ending) of name -> bytes members.
void write_tar(const std::filesystem::path& path, const std::vector<std::pair<std::string, std::string>>& members);
// An SVHN-style MATLAB v5 file with X (32x32x3xN uint8) and y (Nx1 double, 10 = digit 0).
void write_svhn_mat(const std::filesystem::path& path, int64_t count);

// Writes a text file (for specs).
void write_text(const std::filesystem::path& path, const std::string& text);
// A Fashion-MNIST fixture of `train`/`test` images in <dir>/data and the spec text in <dir>/<spec_file>: returns
// "<spec> --data-root <data>" for a repro command line.
std::string fashion_spec(const TempDir& dir, const std::string& spec_file, const std::string& spec_text,
                         int64_t train = 400, int64_t test = 100);
// An end-to-end CLI run's setting: a 96/32-image Fashion-MNIST fixture in <dir>/data and the spec text in
// <dir>/<spec_file>. Returns the command line's middle, "<spec> --data-root <data> --device cpu<extra> --out ",
// for the test to append the output folder to.
std::string fashion_cli(const TempDir& dir, const std::string& spec_file, const std::string& spec_text,
                        const std::string& extra = "");

// The runner's options for a CPU run into <dir>/<out> with the data in <dir>/data, watched by `observer`
// (tests/fault_injector.h) when given.
RunnerOptions runner_options(const TempDir& dir, const std::string& out, const RunObserver* observer = nullptr);
// A metrics.csv's text without its last (wall-time) column: equal across a resume.
std::string metrics_without_seconds(const std::filesystem::path& metrics_csv);
// Checks that the run in `folder`, resumed after a fault, ended with the records of the `undisturbed` one: the same
// metrics.csv but its seconds, a complete summary.json with the same selected and final epochs, epochs run and
// parameters, and no checkpoint left.
void check_resumed_records(const std::filesystem::path& folder, const std::filesystem::path& undisturbed);
// A tiny text dataset's shape: "text", vocabulary 50, 3 classes, `max_length` tokens.
DatasetInfo tiny_text_info(int64_t max_length = 24);
// How often `word` occurs in `text` (non-overlapping).
int count_of(const std::string& text, const std::string& word);
// Every line of src/'s .cpp and .h files, but those of the files `allowed` names (path relative to src/ -> the
// reason it may), whose code (the line up to a `//` comment) matches `pattern`, as "file:line: line"; `files`,
// when given, counts the files looked at. The source checks of tests/test_links.cpp and tests/test_keys.cpp.
std::vector<std::string> source_lines_matching(const std::regex& pattern,
                                               const std::map<std::string, std::string>& allowed, int* files = nullptr);
// The same over each file whole (its `//` comments cut, its lines kept), so that a match may span lines (a list
// written one item per line): "file:line: the match" with the line where it begins.
std::vector<std::string> source_matches(const std::regex& pattern, const std::map<std::string, std::string>& allowed);
// Reads steps.csv back (record/steps_file.h: repro's own reader).
using repro::parse_steps_csv;

}  // namespace repro::test
