#pragma once
// The two ways of one training step (train/step.h) side by side, for the CPU suite (the fused update on the
// CPU of a LibTorch >= 2.4) and the CUDA tests (the fused update, its CUDA graphs): a tiny text model, batches of
// two lengths in turn, and the numbers a few steps leave behind.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "catch.h"
#include "fixtures.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "spec/options.h"
#include "train/checkpoint.h"
#include "train/step.h"

namespace repro::test {

// Text model: one block of `attention` (vanilla, diff or dgsa), width 16, 2 heads, mean pooling; no dropout, so
// that two ways of a step see the same numbers whatever their random draws.
inline ModelOptions step_text_model(const std::string& attention) {
  ModelOptions o;
  o.kind = ModelKind::Text;
  o.pool = Pool::Mean;
  o.attention = attention_defaults(attention);
  o.dim = 16;
  o.heads = 2;
  o.depth = 1;
  o.ffn.ratio = 2;
  o.dropout = 0;
  return o;
}

// The same weights (seed 5) on `device`.
inline ClassifierPtr step_model(const std::string& attention, torch::Device device) {
  torch::manual_seed(5);
  auto model = build_model(step_text_model(attention), tiny_text_info());
  model->to(device);
  model->train();
  return model;
}

// `count` batches of 6 texts, padded to 12 and 20 ids in turn (real lengths 1..12 / 1..20), labels 0-2, on `device`.
inline std::vector<std::pair<Batch, torch::Tensor>> step_batches(torch::Device device, int count) {
  torch::manual_seed(11);
  std::vector<std::pair<Batch, torch::Tensor>> out;
  for (int i = 0; i < count; ++i) {
    const int64_t width = i % 2 == 0 ? 12 : 20;
    auto ids = torch::zeros({6, width}, torch::kInt64);
    for (int64_t row = 0; row < 6; ++row) {
      const int64_t length = row == 0 ? width : 1 + (row * 7 + i) % width;
      ids[row].slice(0, 0, length).copy_(torch::randint(1, 50, {length}, torch::kInt64));
    }
    ids = ids.to(device);
    out.push_back({Batch{ids, ids.eq(0)}, torch::randint(0, 3, {6}, torch::kInt64).to(device)});
  }
  return out;
}

// Steps first .. first + batches - 1 of `step` over `batches`; the losses read after each step.
inline std::vector<double> step_losses(TrainStep& step, const std::vector<std::pair<Batch, torch::Tensor>>& batches,
                                       int64_t first = 0) {
  std::vector<double> losses;
  StepTotals totals(batches.front().second.device());
  for (size_t i = 0; i < batches.size(); ++i)
    losses.push_back(
        step.run(batches[i].first, batches[i].second, first + static_cast<int64_t>(i), 1, totals).loss.item<double>());
  return losses;
}

// The largest |a - b| over the two models' parameters (float64 on the CPU).
inline double max_parameter_difference(ClassifierImpl& a, ClassifierImpl& b) {
  const auto pa = a.parameters(), pb = b.parameters();
  double most = 0;
  for (size_t i = 0; i < pa.size(); ++i)
    most = std::max(most,
                    (pa[i].detach().to(torch::kCPU, torch::kFloat64) - pb[i].detach().to(torch::kCPU, torch::kFloat64))
                        .abs()
                        .max()
                        .item<double>());
  return most;
}

// Training settings of the comparisons: fp32 (no autocast), clipping on (the foreach path scales), weight decay.
inline TrainOptions step_options(CudaGraphsChoice graphs) {
  TrainOptions o;
  o.precision = PrecisionChoice::Fp32;
  o.clip_norm = 0.5;
  o.log_every = 2;
  o.cuda_graphs = graphs;
  o.optimizer.weight_decay = 0.05;
  return o;
}

// The fused update (on `device`; forced on the CPU) against the eager one: equal within float32 rounding over six
// steps of two input shapes, and each one's checkpoint taken up by the other: three more steps of the other kind
// from it land where the first kind's own three more steps land.
inline void check_fused_against_eager(torch::Device device, const std::filesystem::path& folder) {
  const auto batches = step_batches(device, 9);
  const std::vector<std::pair<Batch, torch::Tensor>> first(batches.begin(), batches.begin() + 6),
      rest(batches.begin() + 6, batches.end());
  const TrainOptions options = step_options(CudaGraphsChoice::Off);
  const Schedule schedule = Schedule::constant(3e-3);
  auto eager_model = step_model("dgsa", device), fused_model = step_model("dgsa", device);
  TrainStep eager(*eager_model, options, device, schedule, UpdateKind::Eager);
  TrainStep fused(*fused_model, options, device, schedule, UpdateKind::Fused);
  const auto eager_losses = step_losses(eager, first), fused_losses = step_losses(fused, first);
  for (size_t i = 0; i < eager_losses.size(); ++i) CHECK(fused_losses[i] == Approx(eager_losses[i]).epsilon(1e-5));
  CHECK(max_parameter_difference(*eager_model, *fused_model) < 1e-5);  // a step moves a weight by about 3e-3

  // Checkpoints: written by one kind, read by the other.
  TrainState state;
  state.history_json = "[]";
  state.step = 6;
  fused.before_save();
  save_checkpoint(folder / "fused.pt", *fused_model, fused.optimizer(), state);
  save_checkpoint(folder / "eager.pt", *eager_model, eager.optimizer(), state);
  auto from_fused = step_model("dgsa", device), from_eager = step_model("dgsa", device);
  TrainStep eager_from_fused(*from_fused, options, device, schedule, UpdateKind::Eager);
  TrainStep fused_from_eager(*from_eager, options, device, schedule, UpdateKind::Fused);
  CHECK(load_checkpoint(folder / "fused.pt", *from_fused, eager_from_fused.optimizer()).step == 6);
  eager_from_fused.after_load();
  load_checkpoint(folder / "eager.pt", *from_eager, fused_from_eager.optimizer());
  fused_from_eager.after_load();
  step_losses(fused, rest, 6);
  step_losses(eager, rest, 6);
  step_losses(eager_from_fused, rest, 6);
  step_losses(fused_from_eager, rest, 6);
  CHECK(max_parameter_difference(*fused_model, *from_fused) < 1e-5);
  CHECK(max_parameter_difference(*eager_model, *from_eager) < 1e-5);
  CHECK(max_parameter_difference(*eager_model, *fused_model) < 1e-5);
  // The step counts went through both ways: after 6 + 3 steps every AdamW state of either kind says 9.
  fused.before_save();
  fused_from_eager.before_save();
  for (TrainStep* step : {&fused, &eager, &eager_from_fused, &fused_from_eager})
    for (const auto& [key, state] : step->optimizer().state())
      CHECK(static_cast<const torch::optim::AdamWParamState&>(*state).step() == 9);
}

}  // namespace repro::test
