#pragma once
// One optimizer step, shared by the trainer and `repro bench`: forward under the
// run's precision, cross-entropy (with label smoothing), backward, gradient
// clipping and AdamW, with no host synchronisation: the loss and the count of
// correct predictions stay on the device until the caller reads them.
#include <torch/torch.h>

#include "data/dataset.h"
#include "models/model.h"
#include "spec/options.h"
#include "train/precision.h"

namespace repro {

// Running sums over an epoch, on the run's device.
struct StepTotals {
  torch::Tensor loss_sum;  // () float32: sum over examples of the loss
  torch::Tensor correct;   // () int64
  int64_t seen = 0;
  StepTotals(torch::Device device);
  void add(const torch::Tensor& loss, const torch::Tensor& logits, const torch::Tensor& labels);
};

class TrainStep {
 public:
  // Reads options.precision (resolved for `device`), clip_norm and label_smoothing.
  TrainStep(ClassifierImpl& model, torch::optim::Optimizer& optimizer, const TrainOptions& options,
            torch::Device device);

  // x: a batch on the device; labels (B,) int64 on the device; lr: this step's (the schedule's).
  // Returns the loss () on the device. measure_grad_norm: keep the gradients' global norm
  // before clipping for grad_norm() (with clipping on it is computed anyway).
  torch::Tensor run(const Batch& x, const torch::Tensor& labels, double lr, StepTotals& totals,
                    bool measure_grad_norm = false);
  Precision precision() const { return precision_; }
  // () on the device: the last step's gradient norm before clipping; undefined when it was not measured.
  const torch::Tensor& grad_norm() const { return grad_norm_; }

 private:
  ClassifierImpl& model_;
  torch::optim::Optimizer& optimizer_;
  std::vector<torch::Tensor> parameters_;
  torch::Device device_;
  Precision precision_;
  double clip_norm_, label_smoothing_;
  torch::Tensor grad_norm_;
};

// The global L2 norm of the parameters' gradients, (), without a host read.
torch::Tensor gradient_norm(const std::vector<torch::Tensor>& parameters);

// Scales gradients so that their global L2 norm is at most `max_norm`, without
// reading the norm on the host (LibTorch's clip_grad_norm_ returns it as a double,
// which would synchronise a GPU every step). Returns the norm before clipping, ().
torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm);

// Forward of an evaluation batch under the precision; logits as float32 (B, classes).
torch::Tensor predict(ClassifierImpl& model, const Batch& x, torch::Device device, Precision precision);

}  // namespace repro
