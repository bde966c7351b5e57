#include "data/svhn.h"

#if REPRO_HAS_MATIO
#include <matio.h>
#endif

#include <cstring>
#include <memory>

#include "data/manifest.h"
#include "data/partial.h"
#include "data/sources.h"
#include "util/error.h"

namespace repro {

DatasetInfo svhn_info() {
  DatasetInfo info;
  info.name = "svhn";
  info.modality = Modality::Image;
  info.channels = 3;
  info.height = info.width = 32;
  info.num_classes = 10;
  info.class_names = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  info.mean = {0.4377, 0.4438, 0.4728};
  info.std = {0.1980, 0.2010, 0.1970};
  info.default_augment = "crop";  // no flips: they change digits
  info.official_train = 73257;
  info.official_test = 26032;
  return info;
}

namespace {

#if REPRO_HAS_MATIO
using MatFile = std::unique_ptr<mat_t, decltype(&Mat_Close)>;
using MatVar = std::unique_ptr<matvar_t, decltype(&Mat_VarFree)>;

MatVar read_variable(mat_t* file, const char* name, const std::string& path) {
  MatVar var(Mat_VarRead(file, name), Mat_VarFree);
  if (!var) throw Error(path + ": no variable '" + name + "' (expected SVHN format 2: X and y)");
  return var;
}

// X: 32 x 32 x 3 x N uint8 in MATLAB's column-major order -> (N, 3, 32, 32).
torch::Tensor images_from(const matvar_t* x, const std::string& path) {
  if (x->rank != 4 || x->dims[0] != 32 || x->dims[1] != 32 || x->dims[2] != 3 || x->data_type != MAT_T_UINT8)
    throw Error(path + ": X is not a 32x32x3xN uint8 array");
  const auto n = static_cast<int64_t>(x->dims[3]);
  // Column-major (row, col, channel, n) is row-major (n, channel, col, row).
  auto images = torch::empty({n, 3, 32, 32}, torch::kUInt8);
  std::memcpy(images.data_ptr<uint8_t>(), x->data, static_cast<size_t>(n) * 3072);
  return images.transpose(2, 3).contiguous();
}

torch::Tensor labels_from(const matvar_t* y, int64_t n, const std::string& path) {
  const auto count = static_cast<int64_t>(y->dims[0] * (y->rank > 1 ? y->dims[1] : 1));
  if (count != n)
    throw Error(path + ": y has " + std::to_string(count) + " labels for " + std::to_string(n) + " images");
  auto labels = torch::empty({n}, torch::kInt64);
  for (int64_t i = 0; i < n; ++i) {
    double value;
    if (y->data_type == MAT_T_DOUBLE)
      value = static_cast<const double*>(y->data)[i];
    else if (y->data_type == MAT_T_UINT8)
      value = static_cast<const uint8_t*>(y->data)[i];
    else
      throw Error(path + ": y must be double or uint8");
    if (value < 1 || value > 10 || value != static_cast<int64_t>(value))
      throw Error(path + ": label " + std::to_string(value) + " at " + std::to_string(i) + " is not in 1-10");
    labels.data_ptr<int64_t>()[i] = static_cast<int64_t>(value) % 10;  // 10 means the digit 0
  }
  return labels;
}

Split read_mat(const std::filesystem::path& path) {
  MatFile file(Mat_Open(path.c_str(), MAT_ACC_RDONLY), Mat_Close);
  if (!file) throw Error(path.string() + ": not a MATLAB file libmatio can read");
  const MatVar x = read_variable(file.get(), "X", path.string());
  const MatVar y = read_variable(file.get(), "y", path.string());
  const auto images = images_from(x.get(), path.string());
  return {images, labels_from(y.get(), images.size(0), path.string())};
}
#else
Split read_mat(const std::filesystem::path& path) {
  missing_feature("SVHN (" + path.string() + ")", "libmatio", "REPRO_WITH_MATIO");
}
#endif

}  // namespace

RawData load_svhn(const std::filesystem::path& data_root, const FileOptions& options) {
  DatasetFiles files(manifest("svhn"), data_root, options);
  RawData data;
  const auto train = files.plain_path("train"), test = files.plain_path("test");
  if (train) data.train = read_mat(*train);
  if (test) data.test = read_mat(*test);
  finish_loading(svhn_info(), files, {files.name_of("train"), !train}, {files.name_of("test"), !test}, data);
  return data;
}

}  // namespace repro
