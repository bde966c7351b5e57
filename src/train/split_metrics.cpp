#include "train/split_metrics.h"

#include "train/step.h"

namespace repro {

SplitMetrics split_metrics(ClassifierImpl& model, const Split& split, const Batcher& batcher, torch::Device device,
                           int64_t batch_size, Precision precision) {
  if (split.size() == 0) return {};
  torch::NoGradGuard no_grad;
  model.eval();
  StepTotals totals(device);
  for (int64_t begin = 0; begin < split.size(); begin += batch_size) {
    const auto indices = torch::arange(begin, std::min(split.size(), begin + batch_size), torch::kInt64);
    const Batch x = batcher.inputs(split, indices, /*train=*/false);
    const auto y = split.labels.index_select(0, indices_for(split, indices));  // on the split's (= run's) device
    const auto logits = predict(model, x, device, precision);                  // (B, classes) float32
    totals.add(torch::nn::functional::cross_entropy(logits, y), logits, y);
  }
  const auto n = static_cast<double>(split.size());
  return {totals.loss_sum.item<double>() / n, 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / n};
}

}  // namespace repro
