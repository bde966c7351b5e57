#pragma once
// Attention maps on request: while an AttentionMapProbe is alive on a thread, every
// attention module's forward on that thread computes its maps explicitly and records
// them, one (B, H, N, N) per block in order (what `repro rollout` reads). Without a
// probe a forward returns its output only and takes the fused path where there is one.
//   AttentionMapProbe probe;
//   model->forward(x);
//   probe.maps()  // per block
#include <torch/torch.h>

#include <vector>

namespace repro {

class AttentionMapProbe {
 public:
  AttentionMapProbe();
  ~AttentionMapProbe();
  AttentionMapProbe(const AttentionMapProbe&) = delete;
  AttentionMapProbe& operator=(const AttentionMapProbe&) = delete;

  const std::vector<torch::Tensor>& maps() const { return maps_; }
  void record(const torch::Tensor& map) { maps_.push_back(map); }

  // The innermost live probe of this thread, or null (then no module computes maps it does not need).
  static AttentionMapProbe* active();

 private:
  AttentionMapProbe* outer_;  // the probe this one hides, restored when it ends
  std::vector<torch::Tensor> maps_;
};

// For a variant's forward: `&maps` when a probe is active (the explicit path fills it), else null (the fused
// path may run); then record_map(maps) hands a filled map to the probe.
inline torch::Tensor* probed(torch::Tensor& maps) { return AttentionMapProbe::active() ? &maps : nullptr; }
inline void record_map(const torch::Tensor& maps) {
  if (AttentionMapProbe* probe = AttentionMapProbe::active(); probe && maps.defined()) probe->record(maps);
}

}  // namespace repro
