#include "data/sources.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>

#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

bool is_archive(const fs::path& path) {
  const std::string name = path.filename().string();
  for (const char* suffix : {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2"})
    if (name.size() > std::strlen(suffix) &&
        name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
      return true;
  return false;
}

namespace {

[[noreturn]] void archive_failure(struct archive* a, const fs::path& archive_path, const std::string& what) {
  const std::string message = archive_error_string(a) ? archive_error_string(a) : "unknown error";
  archive_read_free(a);
  throw Error(archive_path.string() + ": " + what + " (" + message + ")");
}

}  // namespace

void for_each_member(const fs::path& archive_path,
                     const std::function<void(const std::string&, const std::function<std::string()>&)>& visit) {
  struct archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  if (archive_read_open_filename(a, archive_path.c_str(), 1 << 20) != ARCHIVE_OK)
    archive_failure(a, archive_path, "cannot open archive");
  struct archive_entry* entry;
  int status;
  std::error_code ec;
  const auto archive_bytes = static_cast<double>(fs::file_size(archive_path, ec));
  ProgressLine progress("reading " + archive_path.filename().string());  // its compressed bytes read so far
  while ((status = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
    progress.update(static_cast<double>(archive_filter_bytes(a, -1)), ec ? 0 : archive_bytes);
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    const std::string path = archive_entry_pathname(entry);
    const auto size = static_cast<size_t>(std::max<int64_t>(0, archive_entry_size(entry)));
    visit(path, [&]() {
      // Read in chunks: a corrupt header's size (up to 2^63) is not allocated up front (docs/reliability.md).
      std::string bytes;
      bytes.reserve(std::min<size_t>(size, size_t(1) << 26));
      char chunk[1 << 16];
      la_ssize_t n;
      while ((n = archive_read_data(a, chunk, sizeof chunk)) > 0 && bytes.size() <= size) bytes.append(chunk, n);
      if (n < 0 || bytes.size() != size)
        archive_failure(a, archive_path, "member " + path + " is truncated or corrupt");
      return bytes;
    });
  }
  if (status != ARCHIVE_EOF) archive_failure(a, archive_path, "corrupt archive");
  archive_read_free(a);
}

DatasetFiles::DatasetFiles(const Manifest& manifest, fs::path data_root, const FileOptions& options)
    : manifest_(manifest), root_(std::move(data_root)), options_(options) {
  for (const auto& f : manifest.files) names_[f.role] = f.name;
  if (trim(options.files).empty()) return;
  for (const auto& item : split(options.files, ',')) {
    const auto eq = item.find('=');
    const std::string role = trim(item.substr(0, eq));
    if (eq == std::string::npos || !names_.count(role)) {
      std::vector<std::string> roles;
      for (const auto& [r, name] : names_) roles.push_back(r);
      throw Error("data.files: '" + trim(item) + "' is not ROLE=FILE with a role of " + manifest.name + " (" +
                  join(roles, ", ") + ")");
    }
    names_[role] = trim(item.substr(eq + 1));
  }
}

std::string DatasetFiles::name_of(const std::string& role) const { return names_.at(role); }

std::vector<fs::path> DatasetFiles::plain_places(const std::string& name) const {
  std::vector<fs::path> places;
  for (const fs::path& dir : {root_ / manifest_.folder, root_}) {
    if (!manifest_.subfolder.empty()) places.push_back(dir / manifest_.subfolder / name);
    places.push_back(dir / name);
  }
  return places;
}

std::vector<fs::path> DatasetFiles::archives() const {
  std::vector<fs::path> found;
  for (const fs::path& dir : {root_ / manifest_.folder, root_}) {
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> here;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file() && is_archive(entry.path())) here.push_back(entry.path());
    std::sort(here.begin(), here.end());
    found.insert(found.end(), here.begin(), here.end());
  }
  return found;
}

std::string DatasetFiles::looked_in(const std::string& name) const {
  std::string where;
  for (const auto& place : plain_places(name)) where += place.string() + ", ";
  const auto archive_list = archives();
  where += archive_list.empty() ? "no archives" : "archives";
  for (const auto& archive_path : archive_list) where += " " + archive_path.filename().string();
  return where;
}

void DatasetFiles::missing(const std::string& role, bool optional) {
  const std::string name = names_.at(role);
  std::string get;
  const ManifestFile* official = manifest_.official(role);
  if (official && official->name == name)
    get = " Get it from " + official->url + " (or the archive at " + manifest_.homepage + ")";
  std::string copy_hint;
  for (const auto& copy : manifest_.copies) {  // a known partial copy that is here under its own name
    if (copy.role != role || copy.name == name) continue;
    const auto places = plain_places(copy.name);
    if (seen_members_.count(copy.name) ||
        std::any_of(places.begin(), places.end(), [](const fs::path& p) { return fs::exists(p); }))
      copy_hint += " A known copy is here: " + copy.name + " (" + copy.note + "): use data.files=" + role + "=" +
                   copy.name + ".";
  }
  if (options_.allow_missing || optional) {
    notes_.note(NoteKind::Incomplete, "partial data: " + manifest_.name + " has no " + name + " (role " + role + ")");
    report_.push_back(name + ": MISSING (looked in " + looked_in(name) + ")." + copy_hint);
    return;
  }
  throw Error(manifest_.name + ": missing file " + name + " (looked in " + looked_in(name) + ")." + get +
              " and point --data-root or $REPRO_DATA at its folder; data.files renames a file." + copy_hint);
}

void DatasetFiles::check_not_empty(const FoundFile& found) const {
  if (found.size > 0) return;
  const ManifestFile* expected = manifest_.entry(found.role, found.name);
  throw Error(
      manifest_.name + ": " + found.where() + " is empty (0 bytes)" +
      (expected && expected->bytes ? "; expected " + std::to_string(expected->bytes) + " bytes" : std::string()));
}

void DatasetFiles::check(const FoundFile& found, const std::string* bytes) {
  if (!checked_.insert(found.where()).second) return;  // e.g. one archive holding both splits
  check_not_empty(found);
  report_.push_back(found.name + ": " + found.where() + ": " +
                    check_file(manifest_, found, bytes, options_.verify, notes_));
}

std::optional<fs::path> DatasetFiles::plain_path(const std::string& role) {
  for (const auto& place : plain_places(names_.at(role)))
    if (fs::exists(place)) {
      check({role, names_.at(role), place, "", fs::file_size(place)}, nullptr);
      return place;
    }
  missing(role);
  return std::nullopt;
}

std::map<std::string, std::string> DatasetFiles::read(const std::vector<std::string>& roles, bool optional) {
  std::map<std::string, FoundFile> found;     // role -> where its file is
  std::map<std::string, std::string> out;     // role -> bytes
  std::map<std::string, std::string> wanted;  // file name -> role, for names not found as plain files
  for (const auto& role : roles) {
    const std::string& name = names_.at(role);
    const auto places = plain_places(name);
    const auto place = std::find_if(places.begin(), places.end(), [](const fs::path& p) { return fs::exists(p); });
    if (place == places.end()) {
      wanted[name] = role;
      continue;
    }
    out[role] = read_regular_file(*place, kDataBytes, "a dataset file");
    found[role] = {role, name, *place, "", out[role].size()};
  }
  if (!wanted.empty())
    for (const auto& archive_path : archives()) {
      for_each_member(archive_path, [&](const std::string& path, const std::function<std::string()>& read) {
        const std::string base = fs::path(path).filename().string();
        seen_members_.insert(base);
        const auto it = wanted.find(base);
        if (it == wanted.end() || found.count(it->second)) return;
        out[it->second] = read();
        found[it->second] = {it->second, base, archive_path, path, out[it->second].size()};
      });
      if (found.size() == roles.size()) break;
    }
  for (const auto& role : roles)  // a missing file first: it says more than another file's checksum
    if (!found.count(role)) missing(role, optional);
  for (const auto& [role, file] : found) check_not_empty(file);  // then an empty file, then checksums
  for (const auto& role : roles)
    if (found.count(role)) check(found.at(role), &out.at(role));
  return out;
}

DatasetFiles::Tree DatasetFiles::read_tree(const std::string& top,
                                           const std::function<bool(const std::string&)>& wanted) {
  Tree tree;
  for (const fs::path& dir : {root_ / manifest_.folder, root_}) {
    if (!fs::is_directory(dir / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir / top)) {
      if (!entry.is_regular_file()) continue;
      const std::string relative = fs::relative(entry.path(), dir).generic_string();
      if (wanted(relative)) tree.emplace_back(relative, read_regular_file(entry.path(), kDataBytes, "a dataset file"));
    }
    std::sort(tree.begin(), tree.end());
    notes_.note(NoteKind::Info, manifest_.name + ": read from the unpacked folder " + top +
                                    "/ (files not checksummed; examples per class checked)");
    report_.push_back(top + "/: " + (dir / top).string() + ": folder, not checksummed");
    return tree;
  }
  for (const auto& archive_path : archives()) {
    for_each_member(archive_path, [&](const std::string& path, const std::function<std::string()>& read) {
      const std::string clean = path.rfind("./", 0) == 0 ? path.substr(2) : path;
      if (clean.rfind(top + "/", 0) == 0 && wanted(clean)) tree.emplace_back(clean, read());
    });
    if (tree.empty()) continue;
    const std::string name = archive_path.filename().string();
    if (manifest_.entry("archive", name)) {
      check({"archive", name, archive_path, "", fs::file_size(archive_path)}, nullptr);
    } else {
      notes_.note(NoteKind::Info, manifest_.name + ": read from " + name +
                                      ", an archive the manifest does not know (not checksummed; examples per "
                                      "class checked)");
      report_.push_back(name + ": " + archive_path.string() + ": unknown archive, not checksummed");
    }
    std::sort(tree.begin(), tree.end());
    return tree;
  }
  std::string where;
  for (const fs::path& dir : {root_ / manifest_.folder, root_}) where += (dir / top).string() + "/, ";
  const auto list = archives();
  where += list.empty() ? "no archives" : "archives";
  for (const auto& a : list) where += " " + a.filename().string();
  const std::string url = manifest_.files.empty() ? manifest_.homepage : manifest_.files.front().url;
  if (options_.allow_missing) {
    notes_.note(NoteKind::Incomplete, "partial data: " + manifest_.name + " has no " + top + "/ files");
    report_.push_back(top + "/: MISSING (looked in " + where + ")");
    return tree;
  }
  throw Error(manifest_.name + ": no " + top + "/ files found (looked in " + where + "). Get " + url +
              " and point --data-root or $REPRO_DATA at its folder.");
}

}  // namespace repro
