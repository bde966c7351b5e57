#pragma once
// The step's update and clip phases the eager way (train/step.h): AdamW's construction, its learning rate, and the
// gradients' global norm and clipping tensor by tensor. The fused update (CUDA) has its own in step.cpp; it keeps
// its state in this very optimizer, so that checkpoints are one format for both.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "models/model.h"
#include "spec/options.h"

namespace repro {

// AdamW with two parameter groups: with and without weight decay (train.no_decay: models/model.h's
// decayed_parameters()). `lr` is the first step's; TrainStep sets each step's.
std::unique_ptr<torch::optim::AdamW> make_optimizer(ClassifierImpl& model, const OptimizerOptions& options, double lr);
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// The global L2 norm of the parameters' gradients, (), without a host read.
torch::Tensor gradient_norm(const std::vector<torch::Tensor>& parameters);

// Scales gradients so that their global L2 norm is at most `max_norm`, without
// reading the norm on the host (LibTorch's clip_grad_norm_ returns it as a double,
// which would synchronise a GPU every step). Returns the norm before clipping, ().
torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace repro
