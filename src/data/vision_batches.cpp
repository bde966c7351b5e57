#include "data/vision_batches.h"

#include "data/random.h"

namespace repro {

VisionBatcher::VisionBatcher(const DatasetInfo& info, const DataOptions& data, torch::Device device)
    : augment_(data.augment),  // data.augment=auto was resolved to the dataset's default with the plan
      padding_(data.crop_padding),
      normalize_(data.normalize),
      device_(device) {
  const auto channels = static_cast<int64_t>(info.mean.size());
  mean_ = torch::tensor(info.mean, torch::kFloat32).view({1, channels, 1, 1}).to(device);
  std_ = torch::tensor(info.std, torch::kFloat32).view({1, channels, 1, 1}).to(device);
}

torch::Tensor VisionBatcher::images(const Split& split, const torch::Tensor& indices, bool train) const {
  auto x = split.inputs.index_select(0, indices_for(split, indices)).to(device_);  // (B, C, H, W) uint8
  x = x.to(torch::kFloat32).div_(255.0);
  if (train && (augment_ == Augment::Crop || augment_ == Augment::CropFlip)) x = random_crop(x);
  if (train && (augment_ == Augment::Flip || augment_ == Augment::CropFlip)) x = random_flip(x);
  if (normalize_) x = (x - mean_) / std_;
  return x;
}

torch::Tensor VisionBatcher::random_crop(const torch::Tensor& x) const {
  if (padding_ == 0) return x;
  const int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const auto padded = torch::constant_pad_nd(x, {padding_, padding_, padding_, padding_}, 0);  // (B, C, H+2p, W+2p)
  const auto options = torch::TensorOptions().dtype(torch::kInt64).device(x.device());
  const auto generator = draw_generator(x.device());  // the run's (data/random.h)
  const auto offset_y = torch::randint(0, 2 * padding_ + 1, {B, 1}, generator, options);
  const auto offset_x = torch::randint(0, 2 * padding_ + 1, {B, 1}, generator, options);
  const auto rows = (offset_y + torch::arange(H, options)).view({B, 1, H, 1}).expand({B, C, H, W + 2 * padding_});
  const auto cropped_rows = padded.gather(2, rows);  // (B, C, H, W+2p)
  const auto cols = (offset_x + torch::arange(W, options)).view({B, 1, 1, W}).expand({B, C, H, W});
  return cropped_rows.gather(3, cols);  // (B, C, H, W)
}

torch::Tensor VisionBatcher::random_flip(const torch::Tensor& x) const {
  const auto flip = torch::rand({x.size(0), 1, 1, 1}, draw_generator(x.device()), x.options()) < 0.5;  // (B, 1, 1, 1)
  return torch::where(flip, x.flip({3}), x);
}

}  // namespace repro
