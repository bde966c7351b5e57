#include "data/batcher.h"

#include "data/vision_batches.h"

namespace repro {

Batch TextBatcher::inputs(const Split& split, const torch::Tensor& indices, bool train) const {
  auto ids = split.inputs.index_select(0, indices.to(split.inputs.device()));  // (B, L)
  const int64_t longest = std::max<int64_t>(1, ids.ne(0).sum(1).max().item<int64_t>());
  ids = ids.slice(1, 0, longest).to(device_);  // (B, L')
  return {ids, ids.eq(0)};
}

std::unique_ptr<Batcher> make_batcher(const DatasetInfo& info, const Config& config, torch::Device device) {
  if (info.modality == "text") return std::make_unique<TextBatcher>(device);
  return std::make_unique<VisionBatcher>(info, config, device);
}

}  // namespace repro
