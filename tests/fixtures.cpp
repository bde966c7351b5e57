#include "fixtures.h"

#include <archive.h>
#include <archive_entry.h>

#include <nlohmann/json.hpp>
#if REPRO_HAS_MATIO
#include <matio.h>
#endif
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>

#include "catch.h"
#include "models/attention/registry.h"
#include "util/cpu_kernels.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro::test {

// The attention variants' keys are handed to spec/ before any test reads a spec, as src/main.cpp
// does for the binary (this file's initializer runs before Catch2's main).
const bool kAttentionVariantsInstalled = (install_attention_variants(), true);

namespace {

// The test binary runs the CPU kernels repro runs (src/cli/entry.cpp, util/cpu_kernels.h): by default the portable
// ones, so it starts again with the libraries' variables set, and a run trained here and one of the `repro` it starts
// sum in one order. Its arguments from /proc/self/cmdline (this runs before main).
bool run_repro_blas_kernels() {
  bool pinned = false;
  try {
    pinned = pin_cpu_kernels();
  } catch (const Error&) {  // a bad REPRO_CPU_KERNELS: the tests that start repro say so
  }
  if (!pinned) return false;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> words;
  for (std::string word; std::getline(in, word, '\0');) words.push_back(word);
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  if (!words.empty()) ::execv("/proc/self/exe", argv.data());
  unpin_cpu_kernels();
  return false;  // execv failed: go on with the kernels the libraries chose
}

}  // namespace

const bool kBlasKernelsAsRepro = run_repro_blas_kernels();
const bool kCpuKernelsAsRepro = (apply_cpu_kernels(), true);  // oneDNN off where repro turns it off

RunOptions input_options(const Config& config) {
  RunOptions options;
  options.data = data_options(config);
  options.text = text_options(config);
  return options;
}

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

ScopedCache::ScopedCache() : dir_("cache") { ::setenv("REPRO_CACHE", dir_.path().c_str(), 1); }

ScopedCache::~ScopedCache() { ::unsetenv("REPRO_CACHE"); }

FileOptions unchecked(const std::string& files) { return FileOptions(files, VerifyMode::Off); }

std::string gzip(const std::string& bytes) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
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

std::string cifar_records(int64_t count, int64_t label_bytes, int64_t classes) {
  std::string out;
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t b = 0; b < label_bytes; ++b) out += static_cast<char>(b + 1 == label_bytes ? label_of(i, classes) : 0);
    for (int64_t p = 0; p < 3072; ++p) out += static_cast<char>((i * 7 + p) % 251);
  }
  return out;
}

void write_cifar10_fixture(const fs::path& root, int64_t per_batch, int64_t test, const std::string& test_name) {
  const fs::path dir = root / "cifar10/cifar-10-batches-bin";
  for (int i = 1; i <= 5; ++i)
    write_bytes(dir / ("data_batch_" + std::to_string(i) + ".bin"), cifar_records(per_batch, 1, 10), false);
  write_bytes(dir / test_name, cifar_records(test, 1, 10), false);
}

std::string ag_news_csv(int64_t rows, int64_t classes) {
  std::string csv;
  for (int64_t i = 0; i < rows; ++i)
    csv += "\"" + std::to_string(i % classes + 1) + "\",\"title " + std::to_string(i) + "\",\"words of class " +
           std::to_string(i % classes) + "\"\n";
  return csv;
}

void write_tar(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& members) {
  fs::create_directories(path.parent_path());
  struct archive* a = archive_write_new();
  const std::string name = path.string();
  if (name.size() > 3 && name.substr(name.size() - 3) == ".xz")
    archive_write_add_filter_xz(a);
  else
    archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  archive_write_open_filename(a, path.c_str());
  for (const auto& [member, bytes] : members) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, member.c_str());
    archive_entry_set_size(entry, static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_write_header(a, entry);
    archive_write_data(a, bytes.data(), bytes.size());
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
}

#if REPRO_HAS_MATIO
void write_svhn_mat(const fs::path& path, int64_t count) {
  fs::create_directories(path.parent_path());
  std::vector<uint8_t> x(static_cast<size_t>(count) * 3072);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i % 253);
  std::vector<double> y(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) y[i] = static_cast<double>(i % 10 + 1);  // 1..10
  mat_t* mat = Mat_CreateVer(path.c_str(), nullptr, MAT_FT_MAT5);
  size_t x_dims[4] = {32, 32, 3, static_cast<size_t>(count)};
  size_t y_dims[2] = {static_cast<size_t>(count), 1};
  matvar_t* xv = Mat_VarCreate("X", MAT_C_UINT8, MAT_T_UINT8, 4, x_dims, x.data(), 0);
  matvar_t* yv = Mat_VarCreate("y", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, y_dims, y.data(), 0);
  Mat_VarWrite(mat, xv, MAT_COMPRESSION_NONE);
  Mat_VarWrite(mat, yv, MAT_COMPRESSION_NONE);
  Mat_VarFree(xv);
  Mat_VarFree(yv);
  Mat_Close(mat);
}
#endif

void write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string fashion_spec(const TempDir& dir, const std::string& spec_file, const std::string& spec_text,
                         int64_t train, int64_t test) {
  write_fashion_fixture(dir.path() / "data", train, test);
  write_text(dir.path() / spec_file, spec_text);
  return (dir.path() / spec_file).string() + " --data-root " + (dir.path() / "data").string();
}

std::string fashion_cli(const TempDir& dir, const std::string& spec_file, const std::string& spec_text,
                        const std::string& extra) {
  return fashion_spec(dir, spec_file, spec_text, 96, 32) + " --device cpu" + extra + " --out ";
}

RunnerOptions runner_options(const TempDir& dir, const std::string& out, const RunObserver* observer) {
  RunnerOptions options;
  options.observer = observer;
  options.out = dir.path() / out;
  options.data_root = (dir.path() / "data").string();
  options.device = DeviceChoice::Cpu;
  return options;
}

void check_resumed_records(const fs::path& folder, const fs::path& undisturbed) {
  CHECK(metrics_without_seconds(folder / "metrics.csv") == metrics_without_seconds(undisturbed / "metrics.csv"));
  const auto summary = nlohmann::json::parse(read_file(folder / "summary.json"));
  const auto expected = nlohmann::json::parse(read_file(undisturbed / "summary.json"));
  CHECK(summary["status"] == "complete");
  for (const char* key : {"selected", "final", "epochs_run", "params"}) {
    INFO(key);
    CHECK(summary[key] == expected[key]);
  }
  CHECK_FALSE(fs::exists(folder / "checkpoint.pt"));
}

std::string metrics_without_seconds(const fs::path& metrics_csv) {
  std::string out;
  for (const auto& line : split_lines(read_file(metrics_csv))) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

DatasetInfo tiny_text_info(int64_t max_length) {
  DatasetInfo info;
  info.name = "text";
  info.modality = Modality::Text;
  info.vocab_size = 50;
  info.max_length = max_length;
  info.num_classes = 3;
  return info;
}

int count_of(const std::string& text, const std::string& word) {
  int n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size())) ++n;
  return n;
}

std::vector<std::string> source_lines_matching(const std::regex& pattern,
                                               const std::map<std::string, std::string>& allowed, int* files) {
  const fs::path src = fs::path(REPRO_SOURCE_DIR) / "src";
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const auto extension = entry.path().extension();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".h")) continue;
    if (files) ++*files;
    const std::string relative = fs::relative(entry.path(), src).generic_string();
    if (allowed.count(relative)) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const auto comment = line.find("//");
      if (std::regex_search(comment == std::string::npos ? line : line.substr(0, comment), pattern))
        found.push_back(relative + ":" + std::to_string(number) + ": " + line);
    }
  }
  return found;
}

std::vector<std::string> source_matches(const std::regex& pattern, const std::map<std::string, std::string>& allowed) {
  const fs::path src = fs::path(REPRO_SOURCE_DIR) / "src";
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const auto extension = entry.path().extension();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".h")) continue;
    const std::string relative = fs::relative(entry.path(), src).generic_string();
    if (allowed.count(relative)) continue;
    std::ifstream in(entry.path());
    std::string code, line;  // the file without its `//` comments, lines kept
    while (std::getline(in, line)) code += line.substr(0, line.find("//")) + "\n";
    for (std::sregex_iterator it(code.begin(), code.end(), pattern), end; it != end; ++it) {
      const auto begin = code.begin() + it->position();
      const int number = 1 + static_cast<int>(std::count(code.begin(), begin, '\n'));
      std::string text = it->str();
      std::replace(text.begin(), text.end(), '\n', ' ');
      found.push_back(relative + ":" + std::to_string(number) + ": " + text);
    }
  }
  return found;
}

}  // namespace repro::test
