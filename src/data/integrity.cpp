#include "data/integrity.h"

#include <spdlog/spdlog.h>

#include <functional>

#include "data/hash_cache.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

std::string manifest_path(const Manifest& m) { return "datasets/" + m.name + ".yaml"; }

// "5,331": counts in messages read like the dataset READMEs.
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// What to do with a mismatch: throw (strict) or warn and mark the data unverified (warn).
void mismatch(const std::string& message, VerifyMode mode, DataNotes& notes) {
  if (mode == VerifyMode::Strict)
    throw Error(message +
                ". Replace it with the official file, or set data.verify=warn to train on it anyway (results marked "
                "unverified, †)");
  spdlog::warn("{} (data.verify=warn)", message);
  notes.note(NoteKind::Unverified, "unverified: " + message + " (data.verify=warn)");
}

}  // namespace

std::string FoundFile::where() const {
  return member.empty() ? file.string() : file.string() + " (member " + member + ")";
}

namespace {

// A file renamed through data.files to a name the manifest does not know: fine
// when it is the official file under another name, else noted as unverified.
std::string check_renamed(const Manifest& m, const FoundFile& found, const std::function<std::string()>& sha,
                          DataNotes& notes) {
  const ManifestFile* official = m.official(found.role);
  if (official && !official->sha256.empty() && found.size == official->bytes && sha() == official->sha256)
    return "sha256 ok (the official " + official->name + " under another name)";
  const std::string text = m.name + " " + found.role + " file " + found.name + " (" + found.where() +
                           ") is not the official " + (official ? official->name : std::string("file")) +
                           " nor a known copy (" + manifest_path(m) + "), so it has no checksum to check";
  spdlog::warn("{}", text);
  notes.note(NoteKind::Unverified, "unverified: " + text);
  return "unverified: no known checksum (renamed by data.files)";
}

}  // namespace

std::string check_file(const Manifest& m, const FoundFile& found, const std::string* bytes, VerifyMode mode,
                       DataNotes& notes) {
  if (mode == VerifyMode::Off) return "not checked (data.verify=off)";
  const std::function<std::string()> sha = [&] {
    return bytes ? cached_sha256(found.file, found.member, *bytes) : cached_sha256_file(found.file);
  };
  const ManifestFile* expected = m.entry(found.role, found.name);
  if (!expected) return check_renamed(m, found, sha, notes);
  const bool size_wrong = expected->bytes && found.size != expected->bytes;
  const std::string found_sha = !expected->sha256.empty() || size_wrong ? sha() : "";
  if (size_wrong || (!expected->sha256.empty() && found_sha != expected->sha256)) {
    mismatch(m.name + ": " + found.where() + " is " + grouped(found.size) + " bytes with sha256 " + found_sha +
                 "; expected " + grouped(expected->bytes) + " bytes with sha256 " +
                 (expected->sha256.empty() ? std::string("(not in the manifest)") : expected->sha256) + " (" +
                 manifest_path(m) + ", " + expected->name + ")",
             mode, notes);
    return "MISMATCH (data.verify=warn)";
  }
  const bool copy = expected != m.official(found.role);  // roles are unique among the official files
  if (copy)
    notes.note(NoteKind::Info,
               m.name + ": " + found.name + " is a known copy (" + expected->note + "), size and sha256 verified");
  if (expected->sha256.empty()) return "size ok (the manifest has no sha256 for it)";
  return copy ? "size and sha256 ok (known copy: " + expected->note + ")" : "size and sha256 ok";
}

std::vector<int64_t> count_classes(const std::vector<int64_t>& labels, int64_t classes) {
  std::vector<int64_t> counts(classes, 0);
  for (const auto label : labels)
    if (label >= 0 && label < classes) ++counts[label];
  return counts;
}

std::vector<int64_t> count_classes(const torch::Tensor& labels, int64_t classes) {
  if (!labels.defined() || labels.numel() == 0) return std::vector<int64_t>(classes, 0);
  const auto contiguous = labels.to(torch::kInt64).contiguous();
  const auto* y = contiguous.data_ptr<int64_t>();
  return count_classes(std::vector<int64_t>(y, y + contiguous.numel()), classes);
}

void check_split_classes(const DatasetInfo& info, const Manifest& m, const std::string& split,
                         const std::vector<int64_t>& counts, const std::string& source, VerifyMode mode,
                         DataNotes& notes) {
  int64_t total = 0;
  for (const auto c : counts) total += c;
  std::vector<std::string> absent;
  for (int64_t c = 0; c < static_cast<int64_t>(counts.size()); ++c)
    if (counts[c] == 0) absent.push_back(class_label(info, c));
  if (!absent.empty())
    throw Error(info.name + ": the " + split + " split as read from " + source + " (" + grouped(total) +
                " examples) has no example of " + join(absent, ", ") + "; every split needs all " +
                std::to_string(info.num_classes) + " classes (a truncated or wrong file?)");
  const int64_t official = split == "train" ? info.official_train : info.official_test;
  if (mode == VerifyMode::Off || total != official) return;  // partial splits are noted elsewhere
  for (int64_t c = 0; c < static_cast<int64_t>(counts.size()); ++c) {
    const int64_t expected = m.class_count(split, c);
    if (expected >= 0 && counts[c] != expected) {
      mismatch(info.name + ": the " + split + " split as read from " + source + " has " + grouped(counts[c]) +
                   " examples of " + class_label(info, c) + ", expected " + grouped(expected) + " (" +
                   manifest_path(m) + ")",
               mode, notes);
      return;
    }
  }
}

}  // namespace repro
