#include "data/sources.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

bool is_archive(const fs::path& path) {
  const std::string name = path.filename().string();
  for (const char* suffix : {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2"})
    if (name.size() > std::strlen(suffix) &&
        name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
      return true;
  return false;
}

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
  while ((status = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    const std::string path = archive_entry_pathname(entry);
    const auto size = static_cast<size_t>(std::max<int64_t>(0, archive_entry_size(entry)));
    visit(path, [&]() {
      std::string bytes(size, '\0');
      const la_ssize_t n = archive_read_data(a, bytes.data(), bytes.size());
      if (n < 0 || static_cast<size_t>(n) != bytes.size())
        archive_failure(a, archive_path, "member " + path + " is truncated or corrupt");
      return bytes;
    });
  }
  if (status != ARCHIVE_EOF) archive_failure(a, archive_path, "corrupt archive");
  archive_read_free(a);
}

namespace {

// Reads the members of `archive_path` whose base names are in `wanted` (name -> bytes).
void read_members(const fs::path& archive_path, std::map<std::string, std::string>& wanted_names,
                  std::map<std::string, std::string>& found) {
  for_each_member(archive_path, [&](const std::string& path, const std::function<std::string()>& read) {
    const std::string base = fs::path(path).filename().string();
    if (wanted_names.count(base) && !found.count(base)) found[base] = read();
  });
}

}  // namespace

DatasetFiles::DatasetFiles(const Manifest& manifest, fs::path data_root, const std::string& overrides)
    : manifest_(manifest), root_(std::move(data_root)) {
  for (const auto& f : manifest.files) names_[f.role] = f.name;
  if (trim(overrides).empty()) return;
  for (const auto& item : split(overrides, ',')) {
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

void DatasetFiles::missing(const std::string& role) const {
  const std::string name = names_.at(role);
  std::string where;
  for (const auto& place : plain_places(name)) where += place.string() + ", ";
  const auto archive_list = archives();
  where += archive_list.empty() ? "no archives" : "archives";
  for (const auto& archive_path : archive_list) where += " " + archive_path.filename().string();
  std::string hint;
  for (const auto& f : manifest_.files)
    if (f.role == role && f.name == name)
      hint = " Get it from " + f.url + " (or the archive at " + manifest_.homepage + ")";
  throw Error(manifest_.name + ": missing file " + name + " (looked in " + where + ")." + hint +
              " and point --data-root or $REPRO_DATA at its folder; data.files renames a file.");
}

fs::path DatasetFiles::plain_path(const std::string& role) const {
  for (const auto& place : plain_places(names_.at(role)))
    if (fs::exists(place)) return place;
  missing(role);
}

std::map<std::string, std::string> DatasetFiles::read(const std::vector<std::string>& roles) const {
  std::map<std::string, std::string> by_name, wanted;  // file name -> bytes; names still wanted
  for (const auto& role : roles) {
    const std::string& name = names_.at(role);
    bool plain = false;
    for (const auto& place : plain_places(name))
      if (!plain && fs::exists(place)) {
        by_name[name] = read_file(place);
        plain = true;
      }
    if (!plain) wanted[name] = role;
  }
  if (!wanted.empty())
    for (const auto& archive_path : archives()) {
      read_members(archive_path, wanted, by_name);
      bool all = true;
      for (const auto& [name, role] : wanted) all &= by_name.count(name) > 0;
      if (all) break;
    }
  std::map<std::string, std::string> out;
  for (const auto& role : roles) {
    const auto it = by_name.find(names_.at(role));
    if (it == by_name.end()) missing(role);
    out[role] = it->second;
  }
  return out;
}

DatasetFiles::Tree DatasetFiles::read_tree(const std::string& top,
                                           const std::function<bool(const std::string&)>& wanted) const {
  Tree tree;
  for (const fs::path& dir : {root_ / manifest_.folder, root_}) {
    if (!fs::is_directory(dir / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir / top)) {
      if (!entry.is_regular_file()) continue;
      const std::string relative = fs::relative(entry.path(), dir).generic_string();
      if (wanted(relative)) tree.emplace_back(relative, read_file(entry.path()));
    }
    std::sort(tree.begin(), tree.end());
    return tree;
  }
  for (const auto& archive_path : archives()) {
    for_each_member(archive_path, [&](const std::string& path, const std::function<std::string()>& read) {
      const std::string clean = path.rfind("./", 0) == 0 ? path.substr(2) : path;
      if (clean.rfind(top + "/", 0) == 0 && wanted(clean)) tree.emplace_back(clean, read());
    });
    if (!tree.empty()) break;
  }
  if (tree.empty()) {
    std::string where;
    for (const fs::path& dir : {root_ / manifest_.folder, root_}) where += (dir / top).string() + "/, ";
    const auto list = archives();
    where += list.empty() ? "no archives" : "archives";
    for (const auto& a : list) where += " " + a.filename().string();
    const std::string url = manifest_.files.empty() ? manifest_.homepage : manifest_.files.front().url;
    throw Error(manifest_.name + ": no " + top + "/ files found (looked in " + where + "). Get " + url +
                " and point --data-root or $REPRO_DATA at its folder.");
  }
  std::sort(tree.begin(), tree.end());
  return tree;
}

}  // namespace repro
