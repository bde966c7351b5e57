#pragma once
// AdamW with two parameter groups: with and without weight decay (train.no_decay:
// models/model.h's decayed_parameters()). The learning rate is the schedule's (train/schedule.h): the caller passes
// the first step's and TrainStep sets each step's.
#include <torch/torch.h>

#include <memory>

#include "models/model.h"
#include "spec/options.h"

namespace repro {

std::unique_ptr<torch::optim::AdamW> make_optimizer(ClassifierImpl& model, const OptimizerOptions& options, double lr);
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace repro
