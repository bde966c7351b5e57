#include "train/optimizer.h"

namespace repro {

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

}  // namespace repro
