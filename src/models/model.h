#pragma once
// The classifier interface the trainer sees, and the function that builds the
// model a spec names for a dataset.
#include <torch/torch.h>

#include <map>
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

// The model families of model.kind, one line each (repro list).
struct ModelKindSummary {
  ModelKind kind;
  const char* summary;
};
const std::vector<ModelKindSummary>& model_kind_table();

// Checks the options against the dataset (divisibility, sizes) and builds the model.
// `info` gives what the data decides: classes, image size and channels, vocabulary,
// maximum length.
ClassifierPtr build_model(const ModelOptions& options, const DatasetInfo& info);
// The checks of build_model that need no module (the model kind against the dataset's modality, model.dim against
// model.heads, model.patch against the image); throws repro::Error. The attention variants check their own
// options when built or counted (AttentionEntry::count).
void check_model_options(const ModelOptions& options, const DatasetInfo& info);

// Whether each named parameter of `model` gets weight decay under `rule` (train.no_decay):
//   paper: every parameter but biases and the weights of norm layers (LayerNorm, RMSNorm,
//     the differential heads' RMSNorm), as the DGSA paper's Table 4 says;
//   vectors_embeddings: weight matrices (the patch convolution included) only, not the token
//     embeddings, class token or positions (repro's reading before 0.3).
std::map<std::string, bool> decayed_parameters(const torch::nn::Module& model, NoDecay rule);

}  // namespace repro
