#include "bench/bench.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "data/batcher.h"
#include "data/loader.h"
#include "data/random.h"
#include "data/registry.h"
#include "models/flops.h"
#include "models/param_count.h"
#include "train/split_metrics.h"
#include "train/step.h"
#include "util/error.h"
#include "util/version.h"

#ifdef REPRO_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace repro {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kBenchLr = 1e-4;  // every timed step's learning rate (timing does not depend on it)

void synchronize(torch::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void reset_peak_memory(torch::Device device) {
#ifdef REPRO_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device.index() < 0 ? 0 : device.index());
#else
  (void)device;
#endif
}

double peak_memory_mb(torch::Device device) {
#ifdef REPRO_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    return static_cast<double>(stats.allocated_bytes[0].peak) / (1024.0 * 1024.0);  // [0] = all pools
  }
#endif
  (void)device;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB -> MiB
}

// Sleeps until Unix time `at`; returns how many seconds it had passed already (0 when on time).
double wait_until(double at) {
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (now >= at) return now - at;
  std::this_thread::sleep_for(std::chrono::duration<double>(at - now));
  return 0;
}

// A pool of synthetic examples resident on the device: uint8 images or full-length ids.
Split synthetic_split(const DatasetInfo& info, int64_t count, torch::Device device) {
  Split split;
  split.labels = torch::randint(0, info.num_classes, {count}, torch::kInt64);
  if (info.modality == Modality::Text)
    split.inputs = torch::randint(3, info.vocab_size, {count, info.max_length}, torch::kInt64);  // no padding
  else
    split.inputs = torch::randint(0, 256, {count, info.channels, info.height, info.width}, torch::kUInt8);
  return resident_split(split, device);
}

// Runs `steps` training steps over `pool` in a fresh random order (wrapping around); returns the summed sequence
// lengths of the batches (text: after trimming to each batch's longest; 0 for images).
int64_t train_steps(TrainStep& step, const Batcher& batcher, const Split& pool, int64_t batch, int64_t steps,
                    StepTotals& totals) {
  const int64_t n = pool.size();
  auto order = torch::randperm(n, draw_generator(torch::kCPU), torch::kInt64);  // the lane's generator
  int64_t lengths = 0;
  for (int64_t s = 0, begin = 0; s < steps; ++s, begin += batch) {
    if (begin + batch > n) begin = 0;
    const auto indices = order.slice(0, begin, std::min(n, begin + batch));  // (B,)
    const Batch x = batcher.inputs(pool, indices, /*train=*/true);
    if (x.inputs.dim() == 2) lengths += x.inputs.size(1);  // (B, L) token ids
    const auto y = pool.labels.index_select(0, indices_for(pool, indices));
    step.run(x, y, s, /*epoch=*/1, totals);
  }
  return lengths;
}

// The examples a bench times: synthetic ones of the dataset's shape, or its real training split.
struct BenchData {
  DatasetInfo info;
  Split pool;        // resident on the device
  std::string what;  // "synthetic" or "real: N training examples"
};

BenchData bench_data(const PlannedRun& run, const BenchOptions& options, int64_t synthetic_count,
                     DataLoader* real_data) {
  if (!real_data) {
    const DatasetInfo info = synthetic_info(run);
    return {info, synthetic_split(info, synthetic_count, options.device), "synthetic"};
  }
  const RunData data = real_data->run_data(run.dataset, run.options);
  return {data.info, resident_split(data.train, options.device),
          "real: " + std::to_string(data.train.size()) + " training examples"};
}

// The first n examples of a split (its CPU lengths too, when it has them).
Split first_examples(const Split& split, int64_t n) {
  Split out{split.inputs.slice(0, 0, n), split.labels.slice(0, 0, n), {}};
  if (split.lengths.defined()) out.lengths = split.lengths.slice(0, 0, n);
  return out;
}

}  // namespace

DatasetInfo synthetic_info(const PlannedRun& run) {
  DatasetInfo info = find_dataset(run.dataset).info();
  if (info.modality == Modality::Text) {
    // Synthetic ids: the vocabulary is text.max_vocab words (60,000 when 0), never read from data.
    constexpr int64_t kLargestSyntheticVocab = 10'000'000;
    const int64_t vocab = run.options.text.vocab.max_vocab;
    if (vocab > kLargestSyntheticVocab)
      throw Error(run.model_config + " / " + run.dataset + ": text.max_vocab = " + std::to_string(vocab) +
                  " is the synthetic vocabulary repro bench times; expected at most " +
                  std::to_string(kLargestSyntheticVocab) + " (set it to the size to time, e.g. text.max_vocab=89530)");
    info.vocab_size = vocab > 0 ? vocab : 60000;
    info.max_length = run.options.text.max_len;
  }
  return info;
}

namespace {

// One lane of a bench: a model of its own, its step and batcher, and its own generators (as a run of the lanes
// executor: run/executor.h).
struct BenchLane {
  ClassifierPtr model;
  std::unique_ptr<TrainStep> step;
  std::unique_ptr<Batcher> batcher;
  std::unique_ptr<RunGenerators> generators;
  std::unique_ptr<StepTotals> totals;
};

// `work(lane)` on every lane at once: one thread a lane (the calling thread with one lane), each on its step's
// stream and drawing from its own generators; returns when every lane is done and the device is idle.
void on_lanes(std::vector<BenchLane>& lanes, torch::Device device, int threads_per_lane,
              const std::function<void(BenchLane&)>& work) {
  const auto one = [&](BenchLane& lane) {
    const auto stream = lane.step->lane_scope();
    const RunRandomScope random(*lane.generators);
    work(lane);
  };
  if (lanes.size() == 1) {
    one(lanes.front());
  } else {
    std::vector<std::thread> threads;
    for (auto& lane : lanes)
      threads.emplace_back([&, threads_per_lane] {
        at::set_num_threads(threads_per_lane);
        one(lane);
      });
    for (auto& thread : threads) thread.join();
  }
  synchronize(device);
}

}  // namespace

BenchResult bench_run(const PlannedRun& run, const BenchOptions& options, double peak_tflops, DataLoader* real_data) {
  const ModelOptions& model_settings = run.options.model;
  const TrainOptions& train_settings = run.options.train;
  const BenchData bench = bench_data(
      run, options, std::max<int64_t>(4 * train_settings.batch_size, train_settings.eval_batch_size), real_data);
  const DatasetInfo& info = bench.info;
  const Split& pool = bench.pool;
  allow_tf32(options.device);
  TrainOptions step_settings = train_settings;
  step_settings.log_every = 0;  // no steps.csv window: nothing read back
  const int threads_per_lane = at::get_num_threads();
  std::vector<BenchLane> lanes(static_cast<size_t>(std::max(1, options.lanes)));
  for (size_t k = 0; k < lanes.size(); ++k) {  // lane k's weights from seed k (lane 0: seed 0, as ever)
    BenchLane& lane = lanes[k];
    torch::manual_seed(k);
    lane.model = build_model(model_settings, info);
    lane.model->to(options.device);
    lane.step = std::make_unique<TrainStep>(*lane.model, step_settings, options.device, Schedule::constant(kBenchLr));
    lane.batcher = make_batcher(info, run.options.data, options.device, lane.step->length_buckets(info.max_length));
    lane.generators = std::make_unique<RunGenerators>(options.device);
    lane.generators->seed(k);
    lane.totals = std::make_unique<StepTotals>(options.device);
  }
  TrainStep& step = *lanes.front().step;
  ClassifierImpl& model = *lanes.front().model;
  const auto k = static_cast<double>(lanes.size());

  BenchResult r;
  r.model_config = run.model_config;
  r.settings = run.config.values();  // recorded as text beside the timings
  r.dataset = run.dataset;
  r.data = bench.what;
  r.lanes = options.lanes;
  r.precision = precision_name(step.precision());
  r.update = step.update_kind() == UpdateKind::Fused ? "fused" : "eager";
  r.params = count_parameters(model).total;
  r.batch = train_settings.batch_size;
  r.eval_batch = train_settings.eval_batch_size;
  r.tokens = info.modality == Modality::Text
                 ? info.max_length
                 : (info.height / model_settings.patch) * (info.width / model_settings.patch) + 1;
  r.forward_flops = forward_flops(model, r.tokens).forward();

  reset_peak_memory(options.device);
  on_lanes(lanes, options.device, threads_per_lane, [&](BenchLane& lane) {
    lane.model->train();
    train_steps(*lane.step, *lane.batcher, pool, r.batch, options.warmup, *lane.totals);
  });
  if (options.start_at > 0) r.started_late = wait_until(options.start_at);
  auto start = Clock::now();
  std::vector<int64_t> lengths(lanes.size());
  on_lanes(lanes, options.device, threads_per_lane, [&](BenchLane& lane) {
    lengths[static_cast<size_t>(&lane - lanes.data())] =
        train_steps(*lane.step, *lane.batcher, pool, r.batch, options.steps, *lane.totals);
  });
  const double train_seconds = seconds_since(start);
  if (real_data && lengths.front() > 0) {  // real text: the batches' mean length (trimmed to their longest)
    r.tokens = (lengths.front() + options.steps / 2) / options.steps;
    r.forward_flops = forward_flops(model, r.tokens).forward();
  }
  r.train_ms = 1000.0 * train_seconds / static_cast<double>(options.steps);  // a lane's step, beside the others
  r.train_examples_per_s = k * static_cast<double>(options.steps * r.batch) / train_seconds;  // every lane's
  r.train_tokens_per_s = r.train_examples_per_s * static_cast<double>(r.tokens);
  r.train_tflops = 3.0 * r.forward_flops * r.train_examples_per_s / 1e12;
  r.mfu = peak_tflops > 0 ? r.train_tflops / peak_tflops : 0;

  {  // evaluation as the trainer runs it (train/split_metrics.h) on the pool's first eval_batches x eval_batch_size
    const EvalBatching batching{train_settings.eval_batch_size, train_settings.eval_tokens};
    const Split eval_pool = first_examples(pool, std::min(pool.size(), options.eval_batches * r.eval_batch));
    // Untimed first: first-call costs; with graphs, the pool's batch shapes twice (eager, then captured).
    on_lanes(lanes, options.device, threads_per_lane, [&](BenchLane& lane) {
      if (lane.step->graphs_enabled())
        for (int round = 0; round < 2; ++round) lane.step->evaluate(eval_pool, *lane.batcher, batching);
      else
        lane.step->evaluate(first_examples(eval_pool, std::min<int64_t>(eval_pool.size(), 8)), *lane.batcher, batching);
    });
    start = Clock::now();
    on_lanes(lanes, options.device, threads_per_lane, [&](BenchLane& lane) {
      lane.step->evaluate(eval_pool, *lane.batcher, batching);  // one host read
    });
    const double eval_seconds = seconds_since(start);
    const int64_t width = eval_pool.inputs.dim() == 2 ? eval_pool.inputs.size(1) : 0;
    const size_t batches = step.graphs_enabled()
                               ? padded_eval_batches(eval_pool, batching, step.length_buckets(width)).size()
                               : eval_batches(eval_pool, batching).size();
    r.eval_ms = 1000.0 * eval_seconds / static_cast<double>(batches);                  // a lane's batch
    r.eval_examples_per_s = k * static_cast<double>(eval_pool.size()) / eval_seconds;  // every lane's
  }
  if (options.epoch_examples > 0 && lanes.size() == 1) {
    model.train();
    const Split epoch_pool = !real_data ? synthetic_split(info, options.epoch_examples, options.device) : pool;
    const int64_t steps = (epoch_pool.size() + r.batch - 1) / r.batch;  // real data: its training split
    StepTotals& totals = *lanes.front().totals;
    synchronize(options.device);
    start = Clock::now();
    {
      const auto stream = step.lane_scope();
      const RunRandomScope random(*lanes.front().generators);
      train_steps(step, *lanes.front().batcher, epoch_pool, r.batch, steps, totals);
      (void)totals.loss_sum.item<double>();  // what the trainer reads at an epoch's end
    }
    r.epoch_seconds = seconds_since(start);
  }
  r.peak_memory_mb = peak_memory_mb(options.device);
  r.cuda_graphs = step.graphs_ran();
  return r;
}

double matmul_peak_tflops(torch::Device device, int64_t n) {
  torch::NoGradGuard no_grad;
  // On the CPU the reference uses every core LibTorch uses (BLAS threads = LibTorch threads).
  const int blas_before = blas_threads();
  if (device.is_cpu() && blas_before > 0) set_blas_threads(torch::get_num_threads());
  const auto dtype = device.is_cuda() ? torch::kBFloat16 : torch::kFloat32;
  const auto a = torch::randn({n, n}, torch::TensorOptions().dtype(dtype).device(device));
  const auto b = torch::randn({n, n}, torch::TensorOptions().dtype(dtype).device(device));
  auto c = torch::matmul(a, b);
  synchronize(device);
  double best = 0;
  const int64_t repeats = device.is_cuda() ? 20 : 1;
  for (int trial = 0; trial < 3; ++trial) {
    const auto start = Clock::now();
    for (int64_t i = 0; i < repeats; ++i) c = torch::matmul(a, b);
    synchronize(device);
    const double seconds = seconds_since(start);
    best = std::max(best, 2.0 * static_cast<double>(n) * n * n * repeats / seconds / 1e12);
  }
  if (device.is_cpu() && blas_before > 0) set_blas_threads(blas_before);
  return best;
}

nlohmann::json BenchResult::to_json() const {
  return {{"model_config", model_config},
          {"dataset", dataset},
          {"data", data},
          {"precision", precision},
          {"update", update},
          {"lanes", lanes},
          {"cuda_graphs", cuda_graphs},
          {"params", params},
          {"batch", batch},
          {"tokens_per_example", tokens},
          {"forward_flops_per_example", forward_flops},
          {"train_ms_per_step", train_ms},
          {"train_examples_per_s", train_examples_per_s},
          {"train_tokens_per_s", train_tokens_per_s},
          {"train_tflops", train_tflops},
          {"mfu", mfu},
          {"eval_batch", eval_batch},
          {"eval_ms_per_batch", eval_ms},
          {"eval_examples_per_s", eval_examples_per_s},
          {"epoch_seconds", epoch_seconds},
          {"peak_memory_mb", peak_memory_mb},
          {"started_late_s", started_late},
          {"settings", settings}};
}

std::string bench_table(const std::vector<BenchResult>& results, double peak_tflops, const std::string& peak_what) {
  std::string out =
      "| model | dataset | params | prec | batch | train ms/step | ex/s | tokens/s | TFLOP/s | MFU | "
      "eval ex/s | epoch s | peak MiB |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results)
    out += fmt::format(
        "| {} | {} | {:.2f}M | {} | {} | {:.2f} | {:.0f} | {:.0f} | {:.3f} | {:.1f}% | {:.0f} | {} | {:.0f} |\n",
        r.model_config, r.dataset + (r.data == "synthetic" ? "" : " (real)"), static_cast<double>(r.params) / 1e6,
        r.precision, r.batch, r.train_ms, r.train_examples_per_s, r.train_tokens_per_s, r.train_tflops, 100.0 * r.mfu,
        r.eval_examples_per_s, r.epoch_seconds > 0 ? fmt::format("{:.2f}", r.epoch_seconds) : "-", r.peak_memory_mb);
  out += fmt::format(
      "\nMFU against {:.3f} TFLOP/s ({}). FLOPs: matrix products, training = 3 x forward (docs/performance.md).\n",
      peak_tflops, peak_what);
  if (!results.empty() && results.front().lanes > 1)
    out += fmt::format(
        "{} lanes at once (--lanes): ms/step is one lane's step beside the others; ex/s, tokens/s, "
        "TFLOP/s, MFU and eval ex/s are every lane's together.\n",
        results.front().lanes);
  return out;
}

}  // namespace repro
