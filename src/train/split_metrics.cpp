#include "train/split_metrics.h"

#include <algorithm>

namespace repro {

namespace {

// Real (non-padding) lengths of a text split's examples, (N,) int64 on the CPU.
torch::Tensor text_lengths(const Split& split) {
  if (split.lengths.defined()) return split.lengths.to(torch::kCPU, torch::kInt64);
  return split.inputs.ne(0).sum(1).to(torch::kCPU, torch::kInt64);
}

// Forward of an evaluation batch under the precision; logits as float32 (B, classes).
torch::Tensor predict(ClassifierImpl& model, const Batch& x, torch::Device device, Precision precision) {
  AutocastScope autocast(device, precision);
  return model.forward(x).to(torch::kFloat32);
}

}  // namespace

StepTotals::StepTotals(torch::Device device)
    : loss_sum(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      correct(torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device))) {}

void StepTotals::add_counts(const torch::Tensor& mean_loss, const torch::Tensor& correct_count, int64_t batch) {
  loss_sum += mean_loss * static_cast<double>(batch);
  correct += correct_count;
  seen += batch;
}

std::vector<torch::Tensor> eval_batches(const Split& split, const EvalBatching& batching) {
  const int64_t n = split.size(), most = std::max<int64_t>(1, batching.max_examples);
  std::vector<torch::Tensor> batches;
  if (split.inputs.dim() != 2 || batching.max_tokens <= 0) {  // images, or text without a token budget
    for (int64_t begin = 0; begin < n; begin += most)
      batches.push_back(torch::arange(begin, std::min(n, begin + most), torch::kInt64));
    return batches;
  }
  const auto lengths = text_lengths(split);
  const auto order = std::get<1>(lengths.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false));  // (N,)
  const auto length = lengths.accessor<int64_t, 1>();
  const auto position = order.accessor<int64_t, 1>();
  int64_t begin = 0;
  while (begin < n) {
    int64_t end = begin + 1;  // ascending lengths: the batch is padded to its last example's length
    while (end < n && end - begin < most &&
           (end - begin + 1) * std::max<int64_t>(1, length[position[end]]) <= batching.max_tokens)
      ++end;
    batches.push_back(order.slice(0, begin, end).clone());
    begin = end;
  }
  return batches;
}

namespace {

// `positions` (some of the split's, in order) cut into batches of `rows`, the last filled up with its first.
void cut_padded(const std::vector<int64_t>& positions, int64_t rows, std::vector<PaddedBatch>& out) {
  for (size_t begin = 0; begin < positions.size(); begin += static_cast<size_t>(rows)) {
    const size_t end = std::min(positions.size(), begin + static_cast<size_t>(rows));
    std::vector<int64_t> batch(positions.begin() + static_cast<std::ptrdiff_t>(begin),
                               positions.begin() + static_cast<std::ptrdiff_t>(end));
    const auto count = static_cast<int64_t>(batch.size());
    batch.resize(static_cast<size_t>(rows), batch.front());
    out.push_back({torch::tensor(batch, torch::kInt64), count});
  }
}

}  // namespace

std::vector<PaddedBatch> padded_eval_batches(const Split& split, const EvalBatching& batching,
                                             const std::vector<int64_t>& length_buckets) {
  const int64_t n = split.size(), most = std::max<int64_t>(1, batching.max_examples);
  std::vector<PaddedBatch> out;
  if (split.inputs.dim() != 2 || length_buckets.empty()) {  // images, or text without buckets: in order
    std::vector<int64_t> all(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
    cut_padded(all, std::min(most, std::max<int64_t>(1, n)), out);
    return out;
  }
  const auto lengths = text_lengths(split);
  const auto order = std::get<1>(lengths.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false));  // (N,)
  const auto length = lengths.accessor<int64_t, 1>();
  const auto position = order.accessor<int64_t, 1>();
  int64_t next = 0;  // into `order`
  for (size_t b = 0; b < length_buckets.size() && next < n; ++b) {
    const bool last = b + 1 == length_buckets.size();
    std::vector<int64_t> members;
    while (next < n && (last || std::max<int64_t>(1, length[position[next]]) <= length_buckets[b]))
      members.push_back(position[next++]);
    if (members.empty()) continue;
    const int64_t by_tokens = batching.max_tokens > 0 ? batching.max_tokens / length_buckets[b] : most;
    cut_padded(members, std::max<int64_t>(1, std::min(most, by_tokens)), out);
  }
  return out;
}

EvalSums eval_batch_sums(ClassifierImpl& model, const Batch& x, const torch::Tensor& labels,
                         const torch::Tensor& counted, torch::Device device, Precision precision) {
  const auto logits = predict(model, x, device, precision);  // (B, classes) float32
  const auto right = logits.argmax(1).eq(labels);            // (B,)
  if (!counted.defined())
    return {torch::nn::functional::cross_entropy(logits, labels) * static_cast<double>(labels.size(0)), right.sum()};
  const auto losses = torch::nn::functional::cross_entropy(
      logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));  // (B,)
  return {losses.masked_fill(counted.logical_not(), 0).sum(), right.logical_and(counted).sum()};
}

SplitMetrics split_metrics(ClassifierImpl& model, const Split& split, const Batcher& batcher, torch::Device device,
                           const EvalBatching& batching, Precision precision) {
  if (split.size() == 0) return {};
  torch::NoGradGuard no_grad;
  model.eval();
  StepTotals totals(device);
  for (const auto& indices : eval_batches(split, batching)) {
    const Batch x = batcher.inputs(split, indices, /*train=*/false);
    const auto y = split.labels.index_select(0, indices_for(split, indices));  // on the split's (= run's) device
    const EvalSums sums = eval_batch_sums(model, x, y, /*counted=*/{}, device, precision);
    totals.loss_sum += sums.loss_sum;
    totals.correct += sums.correct;
  }
  const auto n = static_cast<double>(split.size());
  return {totals.loss_sum.item<double>() / n, 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / n};
}

}  // namespace repro
