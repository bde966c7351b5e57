#include "data/verify.h"

#include <algorithm>

#include "data/hash_cache.h"
#include "data/manifest.h"
#include "data/sources.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

FileCheck compare(const std::string& dataset, const ManifestFile& f, uint64_t size, const std::string& sha,
                  const std::string& where) {
  FileCheck check{dataset, f.name, "ok", where};
  if (f.bytes && size != f.bytes) {
    check.status = "wrong size";
    check.detail = where + ": " + std::to_string(size) + " bytes, expected " + std::to_string(f.bytes);
  } else if (!f.sha256.empty() && sha != f.sha256) {
    check.status = "wrong sha256";
    check.detail = where + ": " + sha + ", expected " + f.sha256;
  } else if (f.sha256.empty()) {
    check.detail += " (size only: the manifest has no sha256)";
  }
  if (!f.note.empty()) check.detail += " (known copy: " + f.note + ")";
  return check;
}

}  // namespace

std::vector<FileCheck> verify_dataset(const std::string& dataset, const fs::path& root) {
  const Manifest& m = manifest(dataset);
  const DatasetFiles files(m, root, FileOptions{});
  std::vector<const ManifestFile*> entries;  // the official files, then the known copies
  for (const auto& f : m.files) entries.push_back(&f);
  for (const auto& f : m.copies) entries.push_back(&f);
  std::vector<std::optional<FileCheck>> checks(entries.size());
  std::vector<size_t> in_archives;  // entries with no plain file
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto places = files.plain_places(entries[i]->name);
    const auto found = std::find_if(places.begin(), places.end(), [](const fs::path& p) { return fs::exists(p); });
    if (found == places.end()) {
      in_archives.push_back(i);
      continue;
    }
    checks[i] = compare(dataset, *entries[i], fs::file_size(*found), cached_sha256_file(*found), found->string());
  }
  if (!in_archives.empty())  // one pass over the archives for every file still wanted
    for (const auto& archive : files.archives())
      for_each_member(archive, [&](const std::string& path, const std::function<std::string()>& read) {
        const std::string base = fs::path(path).filename().string();
        for (const size_t i : in_archives) {
          if (checks[i] || entries[i]->name != base) continue;
          const std::string bytes = read();
          checks[i] = compare(dataset, *entries[i], bytes.size(), cached_sha256(archive, path, bytes),
                              archive.string() + " (member " + path + ")");
          break;  // names are unique among the official files and copies
        }
      });
  std::vector<FileCheck> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (checks[i])
      out.push_back(*checks[i]);
    else if (i < m.files.size())  // a known copy that is not here is not worth a line
      out.push_back({dataset, entries[i]->name, "missing", "get it from " + entries[i]->url});
  }
  return out;
}

std::string format_checks(const std::vector<FileCheck>& checks) {
  std::string out;
  for (const auto& c : checks) out += c.dataset + "  " + c.file + "  " + c.status + "  " + c.detail + "\n";
  return out;
}

}  // namespace repro
