#include "data/registry.h"

#include <cstdlib>

#include "data/cifar.h"
#include "data/fashion_mnist.h"
#include "data/svhn.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const std::vector<DatasetEntry>& dataset_table() {
  static const std::vector<DatasetEntry> table = {
      {"cifar10", cifar10_info, load_cifar10},
      {"cifar100", cifar100_info, load_cifar100},
      {"fashion_mnist", fashion_mnist_info, load_fashion_mnist},
      {"svhn", svhn_info, load_svhn},
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
