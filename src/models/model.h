#pragma once
// The classifier interface the trainer sees, and the function that builds the
// model a spec names for a dataset.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "data/dataset.h"
#include "spec/options.h"

namespace repro {

using ModelInput = Batch;  // images (B, C, H, W) float, or ids (B, L) with their padding mask

class ClassifierImpl : public torch::nn::Module {
 public:
  // Returns logits (B, classes). Attention maps: an AttentionMapProbe around the call
  // (models/attention/map_probe.h) records one (B, H, N, N) tensor per block.
  virtual torch::Tensor forward(const ModelInput& input) = 0;
};
using ClassifierPtr = std::shared_ptr<ClassifierImpl>;

// Checks the options against the dataset (divisibility, sizes) and builds the model.
// `info` gives what the data decides: classes, image size and channels, vocabulary,
// maximum length.
ClassifierPtr build_model(const ModelOptions& options, const DatasetInfo& info);

// True for parameters that get weight decay: matrices, except token embeddings,
// class token and positions (biases and norm weights are vectors). The patch
// embedding convolution is a matrix and is decayed.
bool decays(const std::string& parameter_name, const torch::Tensor& parameter);

}  // namespace repro
