#include "data/cifar.h"

#include <cstring>

#include "data/manifest.h"
#include "data/partial.h"
#include "data/sources.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

constexpr int64_t kPixels = 3 * 32 * 32;

DatasetInfo cifar_info(const std::string& name, int64_t classes) {
  DatasetInfo info;
  info.name = name;
  info.modality = Modality::Image;
  info.channels = 3;
  info.height = info.width = 32;
  info.num_classes = classes;
  info.default_augment = "crop_flip";
  info.official_train = 50000;
  info.official_test = 10000;
  return info;
}

Split concat(const std::vector<Split>& parts) {
  std::vector<torch::Tensor> inputs, labels;
  for (const auto& p : parts) {
    inputs.push_back(p.inputs);
    labels.push_back(p.labels);
  }
  return {torch::cat(inputs), torch::cat(labels)};
}

}  // namespace

Split parse_cifar_records(const std::string& bytes, int64_t label_bytes, int64_t num_classes, const std::string& file) {
  const int64_t record = label_bytes + kPixels;
  if (bytes.empty() || bytes.size() % record != 0)
    throw Error(file + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                std::to_string(record) + "-byte CIFAR records (truncated or not a CIFAR binary file)");
  const int64_t n = static_cast<int64_t>(bytes.size()) / record;
  auto images = torch::empty({n, 3, 32, 32}, torch::kUInt8);
  auto labels = torch::empty({n}, torch::kInt64);
  auto* pixels = images.data_ptr<uint8_t>();
  auto* y = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const char* rec = bytes.data() + i * record;
    const auto label = static_cast<unsigned char>(rec[label_bytes - 1]);
    if (label >= num_classes)
      throw Error(file + ": label " + std::to_string(label) + " of record " + std::to_string(i) +
                  " is out of range 0-" + std::to_string(num_classes - 1));
    y[i] = label;
    std::memcpy(pixels + i * kPixels, rec + label_bytes, kPixels);
  }
  return {images, labels};
}

DatasetInfo cifar10_info() {
  DatasetInfo info = cifar_info("cifar10", 10);
  info.class_names = {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
  info.mean = {0.4914, 0.4822, 0.4465};  // the 50,000 training images (shared/datasets README)
  info.std = {0.2470, 0.2435, 0.2616};
  return info;
}

DatasetInfo cifar100_info() {
  DatasetInfo info = cifar_info("cifar100", 100);
  info.mean = {0.5071, 0.4865, 0.4409};
  info.std = {0.2673, 0.2564, 0.2762};
  return info;
}

RawData load_cifar10(const std::filesystem::path& data_root, const FileOptions& options) {
  DatasetFiles files(manifest("cifar10"), data_root, options);
  const std::vector<std::string> roles = {"train_1", "train_2", "train_3", "train_4", "train_5", "test"};
  const auto bytes = files.read(roles);  // with options.allow_missing, only the files found
  std::vector<Split> train;
  std::vector<std::string> train_files;
  for (int i = 0; i < 5; ++i)
    if (bytes.count(roles[i])) {
      train.push_back(parse_cifar_records(bytes.at(roles[i]), 1, 10, files.name_of(roles[i])));
      train_files.push_back(files.name_of(roles[i]));
    }
  RawData data;
  if (!train.empty()) data.train = concat(train);
  if (bytes.count("test")) data.test = parse_cifar_records(bytes.at("test"), 1, 10, files.name_of("test"));
  finish_loading(cifar10_info(), files, {join(train_files, ", "), train.empty()},
                 {files.name_of("test"), !bytes.count("test")}, data);
  return data;
}

RawData load_cifar100(const std::filesystem::path& data_root, const FileOptions& options) {
  DatasetFiles files(manifest("cifar100"), data_root, options);
  const auto bytes = files.read({"train", "test"});
  RawData data;
  for (const auto& [role, split] : {std::pair<std::string, Split*>{"train", &data.train}, {"test", &data.test}})
    if (bytes.count(role)) *split = parse_cifar_records(bytes.at(role), 2, 100, files.name_of(role));
  finish_loading(cifar100_info(), files, {files.name_of("train"), !bytes.count("train")},
                 {files.name_of("test"), !bytes.count("test")}, data);
  return data;
}

}  // namespace repro
