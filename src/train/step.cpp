#include "train/step.h"

#include <algorithm>

#include "train/optimizer.h"

namespace repro {

StepTotals::StepTotals(torch::Device device)
    : loss_sum(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      correct(torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device))) {}

void StepTotals::add(const torch::Tensor& loss, const torch::Tensor& logits, const torch::Tensor& labels) {
  const int64_t batch = labels.size(0);
  loss_sum += loss.detach().to(torch::kFloat32) * static_cast<double>(batch);
  correct += logits.detach().argmax(1).eq(labels).sum();
  seen += batch;
}

TrainStep::TrainStep(ClassifierImpl& model, torch::optim::Optimizer& optimizer, const TrainOptions& options,
                     torch::Device device)
    : model_(model),
      optimizer_(optimizer),
      parameters_(model.parameters()),
      device_(device),
      precision_(resolve_precision(options.precision, device)),
      clip_norm_(options.clip_norm),
      label_smoothing_(options.label_smoothing) {}

torch::Tensor TrainStep::run(const Batch& x, const torch::Tensor& labels, double lr, StepTotals& totals,
                             bool measure_grad_norm) {
  set_learning_rate(optimizer_, lr);
  optimizer_.zero_grad();
  torch::Tensor logits, loss;
  {
    AutocastScope autocast(device_, precision_);
    logits = model_.forward(x);  // (B, classes)
  }
  // The loss in float32 outside autocast, as PyTorch's recipe does.
  loss = torch::nn::functional::cross_entropy(
      logits.to(torch::kFloat32), labels,
      torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(label_smoothing_));
  loss.backward();
  grad_norm_ = torch::Tensor();
  if (clip_norm_ > 0)
    grad_norm_ = clip_gradients(parameters_, clip_norm_);
  else if (measure_grad_norm)
    grad_norm_ = gradient_norm(parameters_);
  optimizer_.step();
  totals.add(loss, logits, labels);
  return loss.detach();
}

torch::Tensor gradient_norm(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> norms;
  for (const auto& p : parameters)
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2).to(torch::kFloat32));
  if (norms.empty()) return torch::zeros({});
  return torch::stack(norms).norm(2);  // ()
}

torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm) {
  if (std::none_of(parameters.begin(), parameters.end(), [](const torch::Tensor& p) { return p.grad().defined(); }))
    return torch::zeros({});
  const auto total = gradient_norm(parameters);                   // ()
  const auto scale = (max_norm / (total + 1e-6)).clamp_max(1.0);  // () <= 1
  for (const auto& p : parameters)
    if (p.grad().defined()) p.grad().detach().mul_(scale.to(p.grad().scalar_type()));
  return total;
}

torch::Tensor predict(ClassifierImpl& model, const Batch& x, torch::Device device, Precision precision) {
  AutocastScope autocast(device, precision);
  return model.forward(x).to(torch::kFloat32);
}

}  // namespace repro
