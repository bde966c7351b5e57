#pragma once
// The feed-forward interface and its explicit kind -> factory table entry; the
// kinds' spec names are in spec/options.cpp.
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "spec/options.h"

namespace repro {

class FeedForwardImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;  // (B, N, D) -> (B, N, D)
};
using FeedForwardPtr = std::shared_ptr<FeedForwardImpl>;

// fc1 (D -> first_width) ... fc2 (second_width -> D): the frame of mlp and swiglu.
class TwoLayerFeedForward : public FeedForwardImpl {
 protected:
  TwoLayerFeedForward(const ModelOptions& o, int64_t first_width, int64_t second_width);
  // dropout(h) -> fc2 [-> dropout]: (B, N, second_width) -> (B, N, D)
  torch::Tensor project_out(const torch::Tensor& h);

  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};

 private:
  double dropout_;
  int64_t dropouts_;
};

// e*D rounded: the hidden width of mlp and gimlp.
inline int64_t expanded_width(const ModelOptions& o) { return static_cast<int64_t>(std::llround(o.ffn.ratio * o.dim)); }

struct FeedForwardEntry {
  FfnKind kind;
  const char* summary;  // one line for `repro list`
  FeedForwardPtr (*make)(const ModelOptions&);
  int64_t (*count)(const ModelOptions&);  // its parameters, without building it (tests/test_model.cpp checks it)
};

}  // namespace repro
