#pragma once
// AdamW with two parameter groups: with and without weight decay.
#include <torch/torch.h>

#include <memory>

#include "models/model.h"
#include "spec/config.h"

namespace repro {

std::unique_ptr<torch::optim::AdamW> make_optimizer(ClassifierImpl& model, const Config& config);
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace repro
