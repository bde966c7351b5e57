#pragma once
// Batches as tensor ops on the run's device: the interface the trainer uses, and
// the one for text (padded ids trimmed to the longest sequence of the batch, or, under CUDA graphs, padded
// to that sequence's length bucket: TextBatcher's length_buckets).
#include <memory>
#include <vector>

#include "data/dataset.h"
#include "spec/options.h"

namespace repro {

class Batcher {
 public:
  virtual ~Batcher() = default;
  // The model input for examples `indices` (B,) of `split`; augments only when `train`.
  virtual Batch inputs(const Split& split, const torch::Tensor& indices, bool train) const = 0;
};

class TextBatcher : public Batcher {
 public:
  // length_buckets (ascending; empty = none): a batch is padded to the first bucket that holds its longest
  // text instead of trimmed to it, so that batches come in a few shapes (CUDA graphs: train/step.h).
  explicit TextBatcher(torch::Device device, std::vector<int64_t> length_buckets = {})
      : device_(device), buckets_(std::move(length_buckets)) {}
  // ids (B, L') with L' the longest real length in the batch (or its bucket); mask = ids == 0.
  // With split.lengths (resident text) and CPU indices, L' is found without a device read.
  Batch inputs(const Split& split, const torch::Tensor& indices, bool train) const override;

 private:
  torch::Device device_;
  std::vector<int64_t> buckets_;
};

// The split with inputs and labels resident on `device` (uint8 images stay uint8);
// text splits also get their CPU `lengths`. On the CPU: the split itself.
Split resident_split(const Split& split, torch::Device device);
RunData resident_data(const RunData& data, torch::Device device);

// `indices` (B,) int64 on the device holding `split` (a non-blocking copy from pinned memory).
torch::Tensor indices_for(const Split& split, const torch::Tensor& indices);

// VisionBatcher for images, TextBatcher for text (with `length_buckets`, see TextBatcher).
std::unique_ptr<Batcher> make_batcher(const DatasetInfo& info, const DataOptions& data, torch::Device device,
                                      const std::vector<int64_t>& length_buckets = {});

}  // namespace repro
