#include "data/registry.h"

#include <cstdlib>

#include "data/cifar.h"
#include "data/fashion_mnist.h"
#include "data/svhn.h"
#include "data/text_sources.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const std::vector<DatasetEntry>& dataset_table() {
  using Root = const std::filesystem::path&;
  using Spec = const Config&;
  static const std::vector<DatasetEntry> table = {
      {"cifar10", cifar10_info, [](Root r, Spec c) { return load_cifar10(r, c.text("data.files")); }, nullptr},
      {"cifar100", cifar100_info, [](Root r, Spec c) { return load_cifar100(r, c.text("data.files")); }, nullptr},
      {"fashion_mnist", fashion_mnist_info, [](Root r, Spec c) { return load_fashion_mnist(r, c.text("data.files")); },
       nullptr},
      {"svhn", svhn_info, [](Root r, Spec c) { return load_svhn(r, c.text("data.files")); }, nullptr},
      {"rotten_tomatoes", rotten_tomatoes_info, nullptr,
       [](Root r, Spec c) { return load_rotten_tomatoes(r, c.text("data.files")); }},
      {"imdb", imdb_info, nullptr, [](Root r, Spec c) { return load_imdb(r, c.text("data.files")); }},
      {"ag_news", ag_news_info, nullptr, [](Root r, Spec c) { return load_ag_news(r, c.text("data.files")); }},
      {"newsgroups", newsgroups_info, nullptr,
       [](Root r, Spec c) { return load_newsgroups(r, c.text("data.files"), c.text("data.newsgroups_remove")); }},
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
  throw Error("unknown dataset '" + name + "'; expected one of " + join(dataset_names(), " | "));
}

std::filesystem::path resolve_data_root(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("REPRO_DATA"); env && *env) return env;
  return "datasets";
}

}  // namespace repro
