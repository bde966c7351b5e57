#include "text/sentencepiece_tokenizer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// One text per line: lower-cased as asked, line breaks turned into spaces.
void write_lines(const fs::path& path, const std::vector<std::string>& texts, bool lowercase) {
  std::string lines;
  for (std::string text : texts) {
    for (char& c : text) {
      if (c == '\n' || c == '\r') c = ' ';
      if (lowercase && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    lines += text + "\n";
  }
  write_file_atomic(path, lines);
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

void run_helper(const std::string& arguments, const std::string& what) {
  const std::string command = quoted(spm_helper()) + " " + arguments;
  if (std::system(command.c_str()) != 0)
    throw Error("text.tokenizer=sentencepiece: " + what + " failed (" + command + ")");
}

}  // namespace

fs::path spm_helper() {
#if !REPRO_HAS_SENTENCEPIECE
  if (!std::getenv("REPRO_SPM"))
    missing_feature("text.tokenizer=sentencepiece", "libsentencepiece", "REPRO_WITH_SENTENCEPIECE");
#endif
  if (const char* env = std::getenv("REPRO_SPM"); env && *env) return env;
  const fs::path self = fs::read_symlink("/proc/self/exe").parent_path();
  for (const fs::path& candidate : {self / "repro-spm", self.parent_path() / "repro-spm"})
    if (fs::exists(candidate)) return candidate;
  throw Error("text.tokenizer=sentencepiece needs the repro-spm helper next to the repro binary (looked in " +
              self.string() + " and its parent; or set $REPRO_SPM)");
}

SentencePieceTokenizer::SentencePieceTokenizer(const std::vector<std::string>& texts, const std::string& model_type,
                                               int64_t vocab_size, bool lowercase, uint32_t seed)
    : lowercase_(lowercase) {
  // A private folder of its own (mkdtemp: created afresh, mode 0700), never one that already exists or a link.
  std::string pattern = (fs::temp_directory_path() / "repro-spm-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw WriteError(pattern, std::strerror(errno));
  work_dir_ = pattern;
  write_lines(work_dir_ / "train.txt", texts, lowercase_);
  run_helper("train " + quoted(work_dir_ / "model") + " " + model_type + " " + std::to_string(vocab_size) + " " +
                 std::to_string(seed) + " < " + quoted(work_dir_ / "train.txt"),
             "training");
  vocab_size_ = encode_many({}).vocab_size;
}

SentencePieceTokenizer::~SentencePieceTokenizer() {
  std::error_code ec;
  fs::remove_all(work_dir_, ec);
}

SentencePieceTokenizer::Encoded SentencePieceTokenizer::encode_many(const std::vector<std::string>& texts) const {
  write_lines(work_dir_ / "texts.txt", texts, lowercase_);
  run_helper("encode " + quoted(work_dir_ / "model") + " < " + quoted(work_dir_ / "texts.txt") + " > " +
                 quoted(work_dir_ / "ids.txt"),
             "encoding");
  std::istringstream lines(read_regular_file(work_dir_ / "ids.txt", kDataBytes, "the tokenizer's ids"));
  std::string line;
  std::getline(lines, line);  // "vocab N"
  Encoded out{std::stoll(line.substr(6)), {}};
  auto& all = out.ids;
  while (std::getline(lines, line)) {
    std::vector<int64_t> ids;
    std::istringstream numbers(line);
    for (int64_t id; numbers >> id;) ids.push_back(id);
    all.push_back(std::move(ids));
  }
  if (all.size() != texts.size())
    throw Error("text.tokenizer=sentencepiece: repro-spm returned a wrong number of lines");
  return out;
}

std::vector<int64_t> SentencePieceTokenizer::encode(const std::string& text) const {
  return encode_many({text}).ids[0];
}

torch::Tensor SentencePieceTokenizer::encode_all(const std::vector<std::string>& texts, int64_t max_len) const {
  return pack(encode_many(texts).ids, max_len);
}

}  // namespace repro
