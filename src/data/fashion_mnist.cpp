#include "data/fashion_mnist.h"

#include "data/idx.h"
#include "data/manifest.h"
#include "data/partial.h"
#include "util/error.h"

namespace repro {

DatasetInfo fashion_mnist_info() {
  DatasetInfo info;
  info.name = "fashion_mnist";
  info.modality = "image";
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

Split read_split(const Manifest& m, const std::filesystem::path& root, const std::string& split) {
  const auto image_path = locate(m, split + "_images", root);
  const auto label_path = locate(m, split + "_labels", root);
  Split out{read_idx_images(image_path), read_idx_labels(label_path, 10)};
  if (out.inputs.size(2) != 28 || out.inputs.size(3) != 28)
    throw Error(image_path.string() + ": images are " + std::to_string(out.inputs.size(2)) + "x" +
                std::to_string(out.inputs.size(3)) + ", expected 28x28");
  if (out.inputs.size(0) != out.labels.size(0))
    throw Error(image_path.string() + " has " + std::to_string(out.inputs.size(0)) + " images but " +
                label_path.string() + " has " + std::to_string(out.labels.size(0)) + " labels");
  return out;
}

}  // namespace

RawData load_fashion_mnist(const std::filesystem::path& data_root) {
  const Manifest& m = manifest("fashion_mnist");
  RawData data{read_split(m, data_root, "train"), read_split(m, data_root, "test"), {}};
  note_partial_splits(fashion_mnist_info(), data);
  return data;
}

}  // namespace repro
