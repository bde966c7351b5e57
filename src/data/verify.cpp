#include "data/verify.h"

#include "data/manifest.h"
#include "data/sources.h"
#include "util/sha256.h"

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
  return check;
}

}  // namespace

std::vector<FileCheck> verify_dataset(const std::string& dataset, const fs::path& root) {
  const Manifest& m = manifest(dataset);
  const DatasetFiles files(m, root, "");
  std::vector<FileCheck> checks;
  for (const auto& f : m.files) {
    std::vector<fs::path> places = {root / m.folder / m.subfolder / f.name, root / m.folder / f.name, root / f.name};
    const auto found = std::find_if(places.begin(), places.end(), [](const fs::path& p) { return fs::exists(p); });
    if (found != places.end()) {
      checks.push_back(compare(dataset, f, fs::file_size(*found), sha256_file(*found), found->string()));
      continue;
    }
    try {  // a member of an archive in the folder
      const std::string bytes = files.read({f.role}).at(f.role);
      checks.push_back(
          compare(dataset, f, bytes.size(), sha256_hex(bytes), "inside an archive in " + (root / m.folder).string()));
    } catch (const std::exception&) {
      checks.push_back({dataset, f.name, "missing", "get it from " + f.url});
    }
  }
  return checks;
}

std::string format_checks(const std::vector<FileCheck>& checks) {
  std::string out;
  for (const auto& c : checks) out += c.dataset + "  " + c.file + "  " + c.status + "  " + c.detail + "\n";
  return out;
}

}  // namespace repro
