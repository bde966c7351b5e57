#pragma once
// `repro bench`: timed training steps and evaluation batches of each model
// configuration of a spec, on synthetic data of each dataset's shape resident on
// the device, with the same step (precision, clipping, AdamW) and batcher
// (augmentation, text trimming) as `repro run`.
#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "data/dataset.h"
#include "data/loader.h"
#include "spec/grid.h"

namespace repro {

struct BenchOptions {
  int64_t steps = 30;  // timed training steps
  int64_t warmup = 5;  // untimed steps first (allocator, kernels, autocast caches)
  int64_t eval_batches = 10;
  int64_t epoch_examples = 0;  // > 0: also time one whole epoch of this many examples
  double start_at = 0;         // > 0: the timed steps start at this Unix time (after the warm-up), so that
                               // benches started together time the same seconds
  int lanes = 1;               // models trained at once in this process, one thread each (as `repro run --lanes`)
  torch::Device device = torch::kCPU;
};

struct BenchResult {
  std::string model_config, dataset, precision;
  std::string update = "eager";  // the AdamW update: eager (torch::optim::AdamW) or fused (train/step.h)
  int lanes = 1;                 // with lanes: train_ms and eval_ms are one lane's, the rates every lane's together
  bool cuda_graphs = false;      // whether the timed steps replayed CUDA graphs
  std::string data = "synthetic";  // or "real: N training examples"
  int64_t params = 0, batch = 0, tokens = 0, eval_batch = 0;  // tokens: per example (real text: mean batch length)
  double forward_flops = 0;  // per example (models/flops.h)
  double train_ms = 0;       // per step, mean over the timed steps
  double train_examples_per_s = 0, train_tokens_per_s = 0, train_tflops = 0, mfu = 0;
  double eval_ms = 0, eval_examples_per_s = 0;
  double epoch_seconds = 0;                     // with epoch_examples: one measured epoch (steps only, no evaluation)
  double peak_memory_mb = 0;                    // CUDA: peak allocated; CPU: the process's peak RSS so far
  double started_late = 0;                      // with start_at: seconds the warm-up ran past it (0: on time)
  std::map<std::string, std::string> settings;  // every resolved key (scripts/reference rebuilds the model from it)
  nlohmann::json to_json() const;
};

// Shapes: images as the dataset's (C, H, W); text of text.max_len tokens from a
// vocabulary of text.max_vocab ids (60,000 when 0), every sequence full length.
DatasetInfo synthetic_info(const PlannedRun& run);
// `real_data`: null = synthetic data; else each dataset's real training split, read by this loader
// (texts at their real lengths, batches trimmed to their longest as in training; the epoch is the real
// split). One loader across a spec's runs reads and tokenizes a dataset once for all its rows.
BenchResult bench_run(const PlannedRun& run, const BenchOptions& options, double peak_tflops,
                      DataLoader* real_data = nullptr);

// A dense matrix product's throughput on the device, the MFU reference: bf16 on
// CUDA, float32 on CPU with every LibTorch thread as a BLAS thread (n x n x n, best of several).
double matmul_peak_tflops(torch::Device device, int64_t n);

// `bench.json`'s environment part and the table printed by `repro bench`.
std::string bench_table(const std::vector<BenchResult>& results, double peak_tflops, const std::string& peak_what);

}  // namespace repro
