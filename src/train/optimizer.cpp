#include "train/optimizer.h"

#include <algorithm>

namespace repro {

// ---- update: AdamW's two groups, its learning rate

std::unique_ptr<torch::optim::AdamW> make_optimizer(ClassifierImpl& model, const OptimizerOptions& options, double lr) {
  std::vector<torch::Tensor> with_decay, without_decay;
  const auto decays = decayed_parameters(model, options.no_decay);
  for (const auto& item : model.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    (decays.at(item.key()) ? with_decay : without_decay).push_back(item.value());
  }
  torch::optim::AdamWOptions base(lr);
  base.betas({options.beta1, options.beta2}).eps(options.eps).weight_decay(options.weight_decay);
  auto no_decay = std::make_unique<torch::optim::AdamWOptions>(base);
  no_decay->weight_decay(0.0);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(with_decay, std::make_unique<torch::optim::AdamWOptions>(base));
  groups.emplace_back(without_decay, std::move(no_decay));
  return std::make_unique<torch::optim::AdamW>(std::move(groups), base);
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

// ---- clip: the gradients' norm, the eager way

torch::Tensor gradient_norm(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> norms;
  for (const auto& p : parameters)
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2).to(torch::kFloat32));  // () each
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

}  // namespace repro
