#pragma once
// The feed-forward interface and its explicit name -> factory table.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace repro {

struct FeedForwardOptions {
  int64_t dim = 0;   // D
  double ratio = 4;  // hidden width / D
  double dropout = 0;
  int64_t dropouts = 2;  // 1: after the activation; 2: also after the output projection
  double init_std = 0.02;
  double inh_p = 0.1;  // gimlp's inhibition level
};

class FeedForwardImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;  // (B, N, D) -> (B, N, D)
};
using FeedForwardPtr = std::shared_ptr<FeedForwardImpl>;

// fc1 (D -> first_width) ... fc2 (second_width -> D): the frame of mlp and swiglu.
class TwoLayerFeedForward : public FeedForwardImpl {
 protected:
  TwoLayerFeedForward(const FeedForwardOptions& o, int64_t first_width, int64_t second_width);
  // dropout(h) -> fc2 [-> dropout]: (B, N, second_width) -> (B, N, D)
  torch::Tensor project_out(const torch::Tensor& h);

  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};

 private:
  double dropout_;
  int64_t dropouts_;
};

struct FeedForwardEntry {
  const char* name;
  const char* summary;
  FeedForwardPtr (*make)(const FeedForwardOptions&);
};

}  // namespace repro
