#include "data/batcher.h"

#include "data/vision_batches.h"

namespace repro {

Batch TextBatcher::inputs(const Split& split, const torch::Tensor& indices, bool train) const {
  auto ids = split.inputs.index_select(0, indices_for(split, indices));  // (B, L)
  const auto lengths =
      split.lengths.defined() && indices.is_cpu() ? split.lengths.index_select(0, indices) : ids.ne(0).sum(1);  // (B,)
  int64_t longest = std::max<int64_t>(1, lengths.max().item<int64_t>());
  for (const int64_t bucket : buckets_)
    if (bucket >= longest) {
      longest = bucket;  // the padding beyond the longest text is masked like any other
      break;
    }
  ids = ids.slice(1, 0, std::min(longest, ids.size(1))).to(device_);  // (B, L')
  return {ids, ids.eq(0)};
}

Split resident_split(const Split& split, torch::Device device) {
  if (device.is_cpu() || split.size() == 0) return split;
  if (split.inputs.device() == device && split.labels.device() == device) return split;  // resident already
  Split out{split.inputs.to(device), split.labels.to(device), {}};
  if (split.inputs.dim() == 2) out.lengths = split.inputs.ne(0).sum(1).cpu();  // text ids (N, L)
  return out;
}

RunData resident_data(const RunData& data, torch::Device device) {
  RunData out = data;
  out.train = resident_split(data.train, device);
  out.val = resident_split(data.val, device);
  out.test = resident_split(data.test, device);
  return out;
}

torch::Tensor indices_for(const Split& split, const torch::Tensor& indices) {
  const auto device = split.labels.device();
  if (indices.device() == device) return indices;
  return indices.to(torch::TensorOptions().device(device), /*non_blocking=*/true);
}

std::unique_ptr<Batcher> make_batcher(const DatasetInfo& info, const DataOptions& data, torch::Device device,
                                      const std::vector<int64_t>& length_buckets) {
  if (info.modality == Modality::Text) return std::make_unique<TextBatcher>(device, length_buckets);
  return std::make_unique<VisionBatcher>(info, data, device);
}

}  // namespace repro
