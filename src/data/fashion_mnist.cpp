#include "data/fashion_mnist.h"

#include "data/idx.h"
#include "data/manifest.h"
#include "data/partial.h"
#include "data/sources.h"
#include "util/error.h"

namespace repro {

DatasetInfo fashion_mnist_info() {
  DatasetInfo info;
  info.name = "fashion_mnist";
  info.modality = Modality::Image;
  info.channels = 1;
  info.height = 28;
  info.width = 28;
  info.num_classes = 10;
  info.class_names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                      "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  // Mean and std of the 60,000 training images in [0, 1] units.
  info.mean = {0.2860};
  info.std = {0.3530};
  info.default_augment = "none";
  info.official_train = 60000;
  info.official_test = 10000;
  return info;
}

namespace {

Split read_split(const DatasetFiles& files, const std::map<std::string, std::string>& bytes, const std::string& split) {
  const std::string image_file = files.name_of(split + "_images"), label_file = files.name_of(split + "_labels");
  Split out{parse_idx_images(gunzip(bytes.at(split + "_images"), image_file), image_file),
            parse_idx_labels(gunzip(bytes.at(split + "_labels"), label_file), 10, label_file)};
  if (out.inputs.size(2) != 28 || out.inputs.size(3) != 28)
    throw Error(image_file + ": images are " + std::to_string(out.inputs.size(2)) + "x" +
                std::to_string(out.inputs.size(3)) + ", expected 28x28");
  if (out.inputs.size(0) != out.labels.size(0))
    throw Error(image_file + " has " + std::to_string(out.inputs.size(0)) + " images but " + label_file + " has " +
                std::to_string(out.labels.size(0)) + " labels");
  return out;
}

}  // namespace

RawData load_fashion_mnist(const std::filesystem::path& data_root, const FileOptions& options) {
  DatasetFiles files(manifest("fashion_mnist"), data_root, options);
  const auto bytes = files.read({"train_images", "train_labels", "test_images", "test_labels"});
  RawData data;
  SplitSource sources[2];
  for (int i = 0; i < 2; ++i) {
    const std::string split = i == 0 ? "train" : "test";
    sources[i] = {files.name_of(split + "_labels"), !bytes.count(split + "_images") || !bytes.count(split + "_labels")};
    if (!sources[i].missing) (i == 0 ? data.train : data.test) = read_split(files, bytes, split);
  }
  finish_loading(fashion_mnist_info(), files, sources[0], sources[1], data);
  return data;
}

}  // namespace repro
