#pragma once
// Batches of images as tensor ops (so the same code runs on a GPU): gather,
// random crop with zero padding, horizontal flip, per-channel normalization.
#include <string>

#include "data/batcher.h"
#include "data/dataset.h"
#include "spec/options.h"

namespace repro {

class VisionBatcher : public Batcher {
 public:
  VisionBatcher(const DatasetInfo& info, const DataOptions& data, torch::Device device);

  Batch inputs(const Split& split, const torch::Tensor& indices, bool train) const override {
    return {images(split, indices, train), {}};
  }

  // images: (N, C, H, W) uint8 on any device; indices: (B,) int64.
  // Returns (B, C, H, W) float on the batcher's device. Augments only when `train`.
  torch::Tensor images(const Split& split, const torch::Tensor& indices, bool train) const;

  Augment augment() const { return augment_; }

 private:
  torch::Tensor random_crop(const torch::Tensor& x) const;  // (B, C, H, W) -> same shape
  torch::Tensor random_flip(const torch::Tensor& x) const;

  Augment augment_;
  int64_t padding_;
  bool normalize_;
  torch::Tensor mean_, std_;  // (1, C, 1, 1)
  torch::Device device_;
};

}  // namespace repro
