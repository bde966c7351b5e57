#include "analysis/rollout.h"

#include "util/error.h"

namespace repro {

namespace {

// (B, N, N) rows divided by their sum of absolute values (a zero row stays zero).
torch::Tensor normalise_abs(const torch::Tensor& a) {
  const auto sums = a.abs().sum(-1, /*keepdim=*/true);  // (B, N, 1)
  return a / sums.clamp_min(1e-12);
}

}  // namespace

RolloutMethod rollout_method(const std::string& name) {
  if (name == "rollout") return RolloutMethod::Rollout;
  if (name == "last-layer") return RolloutMethod::LastLayer;
  if (name == "excitatory") return RolloutMethod::Excitatory;
  throw Error("--method: got '" + name + "', expected rollout | last-layer | excitatory");
}

torch::Tensor roll_out(const std::vector<torch::Tensor>& maps, RolloutMethod method) {
  if (maps.empty()) throw Error("internal: no attention maps to roll out");
  const auto head_mean = [](const torch::Tensor& m) { return m.to(torch::kFloat64).mean(1); };  // (B, N, N)
  if (method == RolloutMethod::LastLayer) return head_mean(maps.back());
  const auto first = head_mean(maps.front());
  const auto eye = torch::eye(first.size(-1), first.options()).unsqueeze(0);  // (1, N, N)
  torch::Tensor rolled = eye.expand_as(first).clone();
  for (const auto& map : maps) {
    auto a = head_mean(map);
    if (method == RolloutMethod::Excitatory) a = a.clamp_min(0);
    const auto step = normalise_abs(a + eye);  // (B, N, N)
    rolled = torch::matmul(step, rolled);      // later layers act on the left
  }
  return rolled;
}

torch::Tensor token_relevance(const torch::Tensor& rolled, bool class_token_row, const torch::Tensor& real) {
  if (class_token_row || !real.defined()) return rolled.select(1, 0);  // (B, N)
  const auto weights = real.to(rolled.dtype()).unsqueeze(-1);          // (B, N, 1)
  return (rolled * weights).sum(1) / weights.sum(1).clamp_min(1);      // (B, N)
}

}  // namespace repro
