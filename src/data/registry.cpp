#include "data/registry.h"

#include <cstdlib>

#include "data/cifar.h"
#include "data/fashion_mnist.h"
#include "data/manifest.h"
#include "data/sources.h"
#include "data/svhn.h"
#include "data/text_sources.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

FileOptions file_options(const DataOptions& data) { return FileOptions(data.files, data.verify); }

RawData DatasetEntry::load_images(const std::filesystem::path& data_root, const DataOptions& data) const {
  if (!read_images) throw Error("internal: " + std::string(name) + " is not an image dataset");
  return read_images(data_root, file_options(data), data);
}

RawText DatasetEntry::load_text(const std::filesystem::path& data_root, const DataOptions& data) const {
  if (!read_texts) throw Error("internal: " + std::string(name) + " is not a text dataset");
  return read_texts(data_root, file_options(data), data);
}

const std::vector<DatasetEntry>& dataset_table() {
  using Root = const std::filesystem::path&;
  using Files = const FileOptions&;
  using Spec = const DataOptions&;
  static const std::vector<DatasetEntry> table = {
      {"cifar10", cifar10_info, [](Root r, Files f, Spec) { return load_cifar10(r, f); }, nullptr},
      {"cifar100", cifar100_info, [](Root r, Files f, Spec) { return load_cifar100(r, f); }, nullptr},
      {"fashion_mnist", fashion_mnist_info, [](Root r, Files f, Spec) { return load_fashion_mnist(r, f); }, nullptr},
      {"svhn", svhn_info, [](Root r, Files f, Spec) { return load_svhn(r, f); }, nullptr},
      {"rotten_tomatoes", rotten_tomatoes_info, nullptr,
       [](Root r, Files f, Spec) { return load_rotten_tomatoes(r, f); }},
      {"imdb", imdb_info, nullptr, [](Root r, Files f, Spec) { return load_imdb(r, f); }},
      {"ag_news", ag_news_info, nullptr, [](Root r, Files f, Spec) { return load_ag_news(r, f); }},
      {"newsgroups", newsgroups_info, nullptr,
       [](Root r, Files f, Spec d) { return load_newsgroups(r, f, d.newsgroups_remove); }},
  };
  return table;
}

std::vector<std::string> dataset_names() {
  std::vector<std::string> names;
  for (const auto& entry : dataset_table()) names.push_back(entry.name);
  return names;
}

const DatasetEntry& find_dataset(const std::string& name) {
  for (const auto& entry : dataset_table())
    if (name == entry.name) return entry;
  throw Error("unknown dataset '" + escaped(name) + "'; expected one of " + join(dataset_names(), " | "));
}

DatasetCatalog dataset_catalog() {
  DatasetCatalog catalog;
  for (const auto& entry : dataset_table()) catalog.datasets.emplace(entry.name, entry.info().traits());
  return catalog;
}

std::filesystem::path resolve_data_root(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("REPRO_DATA"); env && *env) return env;
  return "datasets";
}

namespace {

// Where the data root came from, for messages: "--data-root 'x'", "REPRO_DATA='x'" or the default.
std::string data_root_source(const std::string& option, const std::filesystem::path& root) {
  if (!option.empty()) return "--data-root '" + option + "'";
  if (std::getenv("REPRO_DATA") && *std::getenv("REPRO_DATA")) return "REPRO_DATA='" + root.string() + "'";
  return "the default data root 'datasets'";
}

// Why `path` cannot be looked at: "" when it can, or when nothing is there (absent, or below a file).
std::string unreachable_because(const std::filesystem::path& path, std::error_code error) {
  if (!error || error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory) return "";
  return path.string() + ": " + error.message() +
         (error == std::errc::too_many_symbolic_link_levels ? " (a symbolic link that leads back to itself)" : "");
}

// Whether something is at `path`; throws naming it and the reason when it cannot be looked at (permission denied,
// a link loop): a dataset that cannot be read is not "missing".
bool exists_here(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (const std::string why = unreachable_because(path, error); !why.empty()) throw Error(why);
  return std::filesystem::exists(status);
}

// Whether anything of `m` is under `root`: its folder, the folder its archive unpacks to, a file of its manifest
// (official or a known copy), or any archive at the root itself (a dataset may come from one of another name, so
// then nothing is known absent).
bool anything_of(const Manifest& m, const std::filesystem::path& root) {
  if (exists_here(root / m.folder) || (!m.subfolder.empty() && exists_here(root / m.subfolder))) return true;
  for (const auto* list : {&m.files, &m.copies})
    for (const auto& file : *list)
      if (exists_here(root / file.name)) return true;
  std::error_code error;
  for (std::filesystem::directory_iterator it(root, error), end; !error && it != end; it.increment(error))
    if (it->is_regular_file(error) && is_archive(it->path())) return true;
  if (const std::string why = unreachable_because(root, error); !why.empty()) throw Error(why);
  return false;
}

}  // namespace

void check_data_root(const std::string& option) {
  const std::filesystem::path root = resolve_data_root(option);
  std::error_code error;
  const auto status = std::filesystem::status(root, error);
  if (const std::string why = unreachable_because(root, error); !why.empty())
    throw Error(data_root_source(option, root) + ": " + why + "; give a data root repro can read (docs/data.md)");
  if (std::filesystem::is_directory(status)) {
    std::filesystem::directory_iterator listing(root, error);  // a folder that cannot be listed is not "empty"
    if (!error) return;
    throw Error(data_root_source(option, root) + ": " + root.string() + ": cannot be listed (" + error.message() +
                "); give a data root repro can read (docs/data.md)");
  }
  throw Error(data_root_source(option, root) + ": " +
              (std::filesystem::exists(status) ? "not a folder" : "no such folder") +
              "; every dataset is read from there (--data-root, else $REPRO_DATA, else ./datasets): give the folder "
              "that holds them (docs/data.md; `repro data fetch DATASET` downloads one)");
}

void check_datasets_present(const std::string& option, const std::vector<std::string>& datasets) {
  const std::filesystem::path root = resolve_data_root(option);
  std::vector<std::string> absent;
  for (const auto& name : datasets) {
    const Manifest& m = manifest(name);
    try {
      if (anything_of(m, root)) continue;
    } catch (const Error& e) {
      throw Error(data_root_source(option, root) + ": dataset " + name + ": " + e.what() +
                  "; nothing was trained (give repro read access, or replace the link)");
    }
    std::vector<std::string> files;
    for (const auto& file : m.files) files.push_back(file.name);
    absent.push_back(name + " (nothing of it under " + root.string() + ": no folder " + m.folder + "/, none of " +
                     join(files, ", ") + "; `repro data fetch " + name + "` or " + m.homepage + ")");
  }
  if (absent.empty()) return;
  throw Error(data_root_source(option, root) + ": " + std::to_string(absent.size()) + " planned dataset(s) missing, " +
              "found before anything trained: " + join(absent, "; ") +
              ". Give the folder that holds them (--data-root, else $REPRO_DATA), or leave them out (--datasets)");
}

}  // namespace repro
