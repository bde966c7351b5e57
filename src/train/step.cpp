#include "train/step.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <type_traits>

#include "train/optimizer.h"
#include "util/error.h"

// The fused update (at::_fused_adamw_ with a tensor learning rate, foreach kernels with a tensor scale): LibTorch
// 2.4 and later, on any device; repro uses it on CUDA (and the tests on the CPU, to compare the two updates).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define REPRO_FUSED_UPDATE 1
#endif

namespace repro {

// ---- the step: lr, forward, loss, backward, clip, update, log

StepResult TrainStep::run(const Batch& x, const torch::Tensor& labels, int64_t step, int64_t epoch,
                          StepTotals& totals) {
  const double lr = schedule_.at(step);  // lr
  const bool log_due = log_every_ > 0 && (step + 1) % log_every_ == 0;
  set_learning_rate(lr);
  if (fused_)  // forward, loss, backward, clip, update: on static inputs, replayed as a graph where on
    run_on_static_inputs(x, labels);
  else
    body(x, labels, /*measure_grad_norm=*/log_due);
  const int64_t batch = labels.size(0);
  totals.add_counts(outputs_.loss, outputs_.correct, batch);
  StepResult result{outputs_.loss, std::nullopt};
  if (log_every_ > 0) window_.add(outputs_.loss, batch);  // log: the window's sums stay on the device
  if (log_due) result.row = window_.close(step + 1, epoch, lr, outputs_.grad_norm);  // its one host read
  return result;
}

void TrainStep::body(const Batch& x, const torch::Tensor& labels, bool measure_grad_norm) {
  zero_gradients();
  torch::Tensor logits;
  {
    AutocastScope autocast(device_, precision_);
    logits = model_.forward(x);  // forward (B, classes)
  }
  // The loss in float32 outside autocast, as PyTorch's recipe does.
  const auto loss = torch::nn::functional::cross_entropy(
      logits.to(torch::kFloat32), labels,
      torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(label_smoothing_));
  loss.backward();                                                  // backward
  const auto norm = measure_and_clip(measure_grad_norm);            // clip: () the norm before clipping
  update();                                                         // update
  const auto correct = logits.detach().argmax(1).eq(labels).sum();  // ()
  if (fused_) {  // static outputs: written in place (a graph's replay leaves its results there)
    outputs_.loss.copy_(loss.detach());
    outputs_.correct.copy_(correct);
    outputs_.grad_norm.copy_(norm);
  } else {
    outputs_ = {loss.detach(), correct, norm};
  }
}

// ---- the fused update's tensors: allocated once, so that a graph can read and write them on every replay

struct TrainStep::Fused {
  struct Group {                                                             // one AdamW parameter group
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;  // steps: () float32 each
    double weight_decay = 0;
  };
  std::vector<Group> groups;
  std::vector<torch::Tensor> params, grads, steps;  // every group's, for the foreach kernels
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  torch::Tensor lr;  // () float32: written before each step
  struct Inputs {    // the static inputs of one input shape
    torch::Tensor inputs, labels;
    bool text = false;
  };
  std::map<std::vector<int64_t>, Inputs> inputs;
  struct EvalBuffers {  // the static inputs and outputs of one evaluation batch shape
    torch::Tensor inputs, labels, count, rows, loss_sum, correct;
    bool text = false;
  };
  std::map<std::vector<int64_t>, EvalBuffers> eval;
};

namespace {

// The optimizer's state entry of `p`: LibTorch keys it by the parameter's TensorImpl, before 2.0 as that pointer
// printed to a stream (c10::guts::to_string, gone in 2.x).
template <typename Map>
typename Map::key_type state_key(const Map&, const torch::Tensor& p) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>) {
    std::ostringstream key;
    key << p.unsafeGetTensorImpl();
    return key.str();
  } else
    return static_cast<typename Map::key_type>(p.unsafeGetTensorImpl());
}

torch::optim::AdamWParamState& adamw_state(torch::optim::AdamW& optimizer, const torch::Tensor& p) {
  auto& map = optimizer.state();
  const auto key = state_key(map, p);
  auto found = map.find(key);
  if (found == map.end()) {  // a parameter not updated yet: AdamW's own initial state
    auto state = std::make_unique<torch::optim::AdamWParamState>();
    state->step(0);
    state->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    state->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    found = map.insert({key, std::move(state)}).first;
  }
  return static_cast<torch::optim::AdamWParamState&>(*found->second);
}

torch::Tensor device_scalar(torch::Device device, torch::ScalarType dtype) {
  return torch::zeros({}, torch::TensorOptions().dtype(dtype).device(device));
}

// A batch's inputs as the step reads them: the padding mask made from the (static) ids inside the step.
Batch model_input(const torch::Tensor& inputs, bool text) {
  return text ? Batch{inputs, inputs.eq(0)} : Batch{inputs, {}};
}

std::vector<int64_t> shape_key(int64_t mode, const torch::Tensor& inputs) {
  std::vector<int64_t> key{mode};
  for (const auto size : inputs.sizes()) key.push_back(size);
  return key;
}

}  // namespace

// ---- where Eager and Fused differ: zeroing, the gradient norm and clipping, the update, the learning rate

void TrainStep::zero_gradients() {
  if (!fused_) return optimizer_->zero_grad();
#ifdef REPRO_FUSED_UPDATE
  at::_foreach_zero_(fused_->grads);  // backward adds into these very tensors (AccumulateGrad, in place)
#endif
}

torch::Tensor TrainStep::measure_and_clip(bool measure) {
  if (!fused_) {  // tensor by tensor
    if (clip_norm_ > 0) return clip_gradients(parameters_, clip_norm_);
    return measure ? gradient_norm(parameters_) : torch::Tensor();
  }
#ifdef REPRO_FUSED_UPDATE
  const Fused& f = *fused_;
  for (size_t i = 0; i < f.params.size(); ++i)  // the update reads f.grads: backward must have added into them
    if (!f.params[i].grad().is_same(f.grads[i]))
      throw Error(
          "internal: backward replaced a gradient tensor instead of adding into it (the fused update "
          "reads them in place)");
  const auto norm = torch::stack(at::_foreach_norm(f.grads)).norm(2);  // () the global norm, always measured
  if (clip_norm_ > 0) at::_foreach_mul_(f.grads, (clip_norm_ / (norm + 1e-6)).clamp_max(1.0));
  return norm;
#else
  (void)measure;
  throw Error("internal: the fused update needs LibTorch 2.4 or later");
#endif
}

void TrainStep::update() {
  if (!fused_) {
    optimizer_->step();
    return;
  }
#ifdef REPRO_FUSED_UPDATE
  Fused& f = *fused_;
  at::_foreach_add_(f.steps, at::Scalar(1.0));  // AdamW's step counts, then one kernel per group
  for (const auto& g : f.groups)
    at::_fused_adamw_(g.params, g.grads, g.exp_avgs, g.exp_avg_sqs, /*max_exp_avg_sqs=*/at::TensorList{}, g.steps, f.lr,
                      f.beta1, f.beta2, g.weight_decay, f.eps, /*amsgrad=*/false, /*maximize=*/false,
                      /*grad_scale=*/std::nullopt, /*found_inf=*/std::nullopt);
#endif
}

void TrainStep::set_learning_rate(double lr) {
  if (fused_)
    fused_->lr.fill_(lr);  // the learning rate enters the step (and its graphs) through its device tensor
  else
    repro::set_learning_rate(*optimizer_, lr);
}

void TrainStep::run_on_static_inputs(const Batch& x, const torch::Tensor& labels) {
  Fused& f = *fused_;
  const auto key = shape_key(0, x.inputs);
  auto found = f.inputs.find(key);
  if (found == f.inputs.end())
    found = f.inputs
                .emplace(key, Fused::Inputs{torch::empty_like(x.inputs), torch::empty_like(labels),
                                            x.padding_mask.defined()})
                .first;
  Fused::Inputs& in = found->second;
  in.inputs.copy_(x.inputs);
  in.labels.copy_(labels);
  lane_.run(key, [&] { body(model_input(in.inputs, in.text), in.labels, /*measure_grad_norm=*/true); });
}

// ---- the step's making (the optimizer at the schedule's first lr; Fused: its tensors), checkpoints, buckets

TrainStep::TrainStep(ClassifierImpl& model, const TrainOptions& options, torch::Device device, const Schedule& schedule,
                     std::optional<UpdateKind> update)
    : model_(model),
      device_(device),
      precision_(resolve_precision(options.precision, device)),
      clip_norm_(options.clip_norm),
      label_smoothing_(options.label_smoothing),
      log_every_(options.log_every),
      schedule_(schedule),
      optimizer_(make_optimizer(model, options.optimizer, schedule.at(0))),
#ifdef REPRO_FUSED_UPDATE
      update_(update.value_or(device.is_cuda() ? UpdateKind::Fused : UpdateKind::Eager)),
#else
      update_(update.value_or(UpdateKind::Eager)),
#endif
      parameters_(model.parameters()),
      window_(device),
      lane_(device,
            update_ == UpdateKind::Fused && options.cuda_graphs == CudaGraphsChoice::Auto && cuda_graphs_built(),
            /*thread_local_capture=*/true) {
#ifndef REPRO_FUSED_UPDATE
  if (update_ == UpdateKind::Fused)
    throw Error("the fused AdamW update needs LibTorch 2.4 or later, this is " TORCH_VERSION);
#endif
  if (update_ != UpdateKind::Fused) return;
  fused_ = std::make_unique<Fused>();
  Fused& f = *fused_;
  f.beta1 = options.optimizer.beta1;
  f.beta2 = options.optimizer.beta2;
  f.eps = options.optimizer.eps;
  f.lr = device_scalar(device, torch::kFloat32);
  outputs_ = {device_scalar(device, torch::kFloat32), device_scalar(device, torch::kInt64),
              device_scalar(device, torch::kFloat32)};
  for (auto& group : optimizer_->param_groups()) {
    Fused::Group g;
    g.weight_decay = static_cast<torch::optim::AdamWOptions&>(group.options()).weight_decay();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p, torch::MemoryFormat::Preserve);
      auto& state = adamw_state(*optimizer_, p);
      g.params.push_back(p);
      g.grads.push_back(p.grad());
      g.exp_avgs.push_back(state.exp_avg());
      g.exp_avg_sqs.push_back(state.exp_avg_sq());
      g.steps.push_back(torch::full({}, static_cast<double>(state.step()),
                                    torch::TensorOptions().dtype(torch::kFloat32).device(device)));
      f.params.push_back(p);
      f.grads.push_back(g.grads.back());
      f.steps.push_back(g.steps.back());
    }
    if (!g.params.empty()) f.groups.push_back(std::move(g));
  }
}

TrainStep::~TrainStep() = default;

void TrainStep::before_save() {
  if (!fused_) return;
  const auto counts = torch::stack(fused_->steps).to(torch::kCPU, torch::kInt64);  // (P,): one host read
  size_t i = 0;
  for (const auto& g : fused_->groups)
    for (const auto& p : g.params) adamw_state(*optimizer_, p).step(counts[static_cast<int64_t>(i++)].item<int64_t>());
}

void TrainStep::after_load() {
  if (!fused_) return;
  torch::NoGradGuard no_grad;
  for (auto& g : fused_->groups)
    for (size_t i = 0; i < g.params.size(); ++i) {
      auto& state = adamw_state(*optimizer_, g.params[i]);  // the checkpoint's (new tensors)
      g.exp_avgs[i].copy_(state.exp_avg());                 // into the tensors the step (and its graphs) use
      g.exp_avg_sqs[i].copy_(state.exp_avg_sq());
      g.steps[i].fill_(static_cast<double>(state.step()));
      state.exp_avg(g.exp_avgs[i]);  // so that the next save writes what the step updates
      state.exp_avg_sq(g.exp_avg_sqs[i]);
    }
}

std::vector<int64_t> TrainStep::length_buckets(int64_t max_len) const {
  if (!lane_.enabled()) return {};
  return length_buckets_for(max_len);
}

bool fused_update_built() {
#ifdef REPRO_FUSED_UPDATE
  return true;
#else
  return false;
#endif
}

std::vector<int64_t> length_buckets_for(int64_t max_len) {
  if (max_len <= 0) return {};
  std::vector<int64_t> buckets;
  for (const int64_t quarters : {1, 2, 3, 4}) {
    const int64_t length = std::min(max_len, (max_len * quarters / 4 + 7) / 8 * 8);
    if (length > 0 && (buckets.empty() || length > buckets.back())) buckets.push_back(length);
  }
  if (buckets.back() != max_len) buckets.push_back(max_len);
  return buckets;
}

// ---- evaluation: split_metrics, or its batches as graphs

// Both evaluate a batch with split_metrics' body (eval_batch_sums); with graphs, on fixed-shape padded batches.
SplitMetrics TrainStep::evaluate(const Split& split, const Batcher& batcher, const EvalBatching& batching) {
  if (!lane_.enabled()) return split_metrics(model_, split, batcher, device_, batching, precision_);
  return evaluate_graphed(split, batcher, batching);
}

SplitMetrics TrainStep::evaluate_graphed(const Split& split, const Batcher& batcher, const EvalBatching& batching) {
  if (split.size() == 0) return {};
  torch::NoGradGuard no_grad;
  model_.eval();
  StepTotals totals(device_);
  const int64_t max_len = split.inputs.dim() == 2 ? split.inputs.size(1) : 0;
  for (const auto& batch : padded_eval_batches(split, batching, length_buckets(max_len))) {
    const Batch x = batcher.inputs(split, batch.indices, /*train=*/false);
    const auto y = split.labels.index_select(0, indices_for(split, batch.indices));  // (B,)
    const auto key = shape_key(1, x.inputs);
    auto found = fused_->eval.find(key);
    if (found == fused_->eval.end()) {
      const int64_t rows = x.inputs.size(0);
      found =
          fused_->eval
              .emplace(key, Fused::EvalBuffers{torch::empty_like(x.inputs), torch::empty_like(y),
                                               device_scalar(device_, torch::kInt64), torch::arange(rows, y.options()),
                                               device_scalar(device_, torch::kFloat32),
                                               device_scalar(device_, torch::kInt64), x.padding_mask.defined()})
              .first;
    }
    Fused::EvalBuffers& s = found->second;
    s.inputs.copy_(x.inputs);
    s.labels.copy_(y);
    s.count.fill_(batch.count);
    lane_.run(key, [&] {
      const auto counted = s.rows.lt(s.count);  // (B,): the batch's own examples, not its padding rows
      const EvalSums sums =
          eval_batch_sums(model_, model_input(s.inputs, s.text), s.labels, counted, device_, precision_);
      s.loss_sum.copy_(sums.loss_sum);
      s.correct.copy_(sums.correct);
    });
    totals.loss_sum += s.loss_sum;
    totals.correct += s.correct;
  }
  const auto n = static_cast<double>(split.size());
  return {totals.loss_sum.item<double>() / n, 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / n};
}

}  // namespace repro
