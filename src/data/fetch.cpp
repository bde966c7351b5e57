#include "data/fetch.h"

#if REPRO_HAS_CURL
#include <curl/curl.h>
#endif
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "data/manifest.h"
#include "util/error.h"
#include "util/files.h"
#include "util/sha256.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

#if REPRO_HAS_CURL
struct Transfer {
  OutputFile* out = nullptr;
  bool progress = false;
  curl_off_t resumed = 0;
  std::string name;
};

size_t write_chunk(char* data, size_t size, size_t count, void* user) {
  try {
    static_cast<Transfer*>(user)->out->write(data, size * count);
    return size * count;
  } catch (const Error&) {
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
}

int show_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  const auto* t = static_cast<Transfer*>(user);
  if (!t->progress || total <= 0) return 0;
  const double fraction = static_cast<double>(now + t->resumed) / static_cast<double>(total + t->resumed);
  const int filled = static_cast<int>(fraction * 30);
  std::fprintf(stderr, "\r%s [%s%s] %5.1f%%", t->name.c_str(), std::string(filled, '#').c_str(),
               std::string(30 - filled, ' ').c_str(), 100 * fraction);
  return 0;
}

#endif

void check(const ManifestFile& f, const fs::path& path) {
  if (f.bytes && fs::file_size(path) != f.bytes)
    throw Error(path.string() + ": downloaded " + std::to_string(fs::file_size(path)) + " bytes, expected " +
                std::to_string(f.bytes) + " (kept as .part; run fetch again to resume)");
  if (!f.sha256.empty() && sha256_file(path) != f.sha256)
    throw Error(path.string() + ": sha256 differs from the manifest's " + f.sha256 + " (the .part file was removed)");
}

#if REPRO_HAS_CURL
void download(const std::string& url, const fs::path& part, const std::string& name, bool progress) {
  Transfer t;
  t.progress = progress;
  t.name = name;
  t.resumed = fs::exists(part) ? static_cast<curl_off_t>(fs::file_size(part)) : 0;
  OutputFile out = OutputFile::append(part);  // never through a link
  t.out = &out;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_RESUME_FROM_LARGE, t.resumed);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_chunk);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, show_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  if (progress) std::fprintf(stderr, "\n");
  if (code != CURLE_OK)
    throw Error(url + ": download failed (" + curl_easy_strerror(code) + "); " + part.string() +
                " keeps what arrived, run fetch again to resume");
}
#else
void download(const std::string& url, const fs::path&, const std::string&, bool) {
  missing_feature("repro data fetch (" + url + ")", "libcurl", "REPRO_WITH_CURL");
}
#endif

}  // namespace

void fetch_dataset(const std::string& dataset, const fs::path& root, const std::string& mirror, bool progress) {
  const Manifest& m = manifest(dataset);
  const fs::path dir = root / m.folder;
  fs::create_directories(dir);
  std::set<std::string> fetched_urls;  // several files can come in one official archive
  for (const auto& f : m.files) {
    const fs::path target = dir / f.name;
    if (fs::exists(target)) {
      check(f, target);
      spdlog::info("{}: present and verified", target.string());
      continue;
    }
    const bool in_archive =
        f.url.size() >= f.name.size() && f.url.compare(f.url.size() - f.name.size(), f.name.size(), f.name) != 0;
    const std::string url =
        mirror.empty() ? f.url : mirror + "/" + (in_archive ? fs::path(f.url).filename().string() : f.name);
    if (in_archive) {  // the official address is an archive holding this file: fetch the archive once
      if (!fetched_urls.insert(url).second) continue;
      const fs::path archive = dir / fs::path(f.url).filename();
      if (fs::exists(archive)) continue;
      download(url, fs::path(archive.string() + ".part"), archive.filename().string(), progress);
      commit_file(fs::path(archive.string() + ".part"), archive);
      continue;
    }
    const fs::path part(target.string() + ".part");
    download(url, part, f.name, progress);
    try {
      check(f, part);
    } catch (const Error&) {
      if (!f.sha256.empty() && f.bytes && fs::file_size(part) == f.bytes) fs::remove(part);
      throw;
    }
    commit_file(part, target);
    spdlog::info("{}: downloaded and verified", target.string());
  }
}

}  // namespace repro
