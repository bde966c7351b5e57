// repro bench SPEC.yaml: training-step and evaluation throughput of every model
// configuration x dataset of a spec (one seed), on synthetic data of the right
// shape resident on the device; prints a table and writes bench.json.
#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>

#include "bench/bench.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/enum_option.h"
#include "data/registry.h"
#include "run/device.h"
#include "spec/grid.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

struct BenchArguments {
  std::string spec_path, profile, out = "bench.json", only, data_root;
  DeviceChoice device = DeviceChoice::Auto;
  std::vector<std::string> overrides, datasets, rows;  // --datasets / --rows: as `repro run`
  int threads = 0;
  int64_t steps = 30, warmup = 5, eval_batches = 10, epoch_examples = 0;
  double start_at = 0;
  int lanes = 1;
  bool epoch = false;
};

// One run per (dataset, model configuration), optionally those whose
// "dataset/model_config" contains `only`.
std::vector<PlannedRun> bench_runs(const Experiment& experiment, const std::string& only) {
  std::vector<PlannedRun> runs;
  for (const auto& run : one_per_configuration(expand_grid(experiment, dataset_catalog())))
    if (only.empty() || (run.dataset + "/" + run.model_config).find(only) != std::string::npos) runs.push_back(run);
  if (runs.empty()) throw Error("--only '" + only + "': no dataset/model configuration of the spec contains it");
  return runs;
}

// The latest --start-at taken: a time further ahead is a typo (milliseconds, a year), not a plan to wait.
constexpr double kMostSecondsAhead = 24 * 3600;

// --start-at: a UNIX time ≥ 0 in seconds (a fraction allowed), at most a day from now.
CLI::Validator unix_time_within_a_day() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value) || value < 0)
          return "got '" + escaped(text) + "', expected a UNIX time ≥ 0 in seconds, e.g. $(( $(date +%s) + 60 ))";
        const double now = static_cast<double>(std::time(nullptr));
        if (value > now + kMostSecondsAhead)
          return "got " + text + ": " + fmt::format("{:.3g}", (value - now) / 3600) + " hours from now (it is " +
                 fmt::format("{:.0f}", now) + "); expected a UNIX time in seconds at most a day ahead";
        return std::string();
      },
      "UNIX_TIME >= 0");
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto* command =
      app.add_subcommand("bench", "Time training steps and evaluation of each model of a spec (synthetic data)");
  auto args = std::make_shared<BenchArguments>();
  command->add_option("spec", args->spec_path, "Experiment spec (YAML)")->required();
  command->add_option("overrides", args->overrides, "Spec overrides KEY=VALUE, e.g. train.batch_size=256");
  command->add_option("--profile", args->profile, "A budget profile of the spec");
  add_selection_options(*command, args->datasets, args->rows);
  hinted(command->add_option("--steps", args->steps, "Timed training steps per model (default 30)"),
         whole_number_at_least(1));
  hinted(command->add_option("--warmup", args->warmup, "Untimed steps first (default 5)"), whole_number_at_least(0));
  hinted(
      command->add_option("--eval-batches", args->eval_batches,
                          "Time evaluation on the first N x train.eval_batch_size examples, batched as runs evaluate "
                          "(train.eval_tokens; default 10)"),
      whole_number_at_least(1));
  command->add_flag("--epoch", args->epoch, "Also time one whole epoch of the dataset's official training size");
  hinted(command->add_option("--epoch-examples", args->epoch_examples, "Also time one epoch of this many examples"),
         whole_number_at_least(0));
  hinted(command->add_option(
             "--start-at", args->start_at,
             "Start the timed steps at this Unix time (after the warm-up): benches started together then time "
             "the same seconds (scripts/reference/runs_per_minute.py)"),
         unix_time_within_a_day());
  hinted(command->add_option(
             "--lanes", args->lanes,
             "Time K models at once in this process, one thread (and CUDA stream) each, as `repro run --lanes "
             "K` trains them: ms/step is one lane's, the rates and MFU every lane's together (default 1; --epoch "
             "only with 1)"),
         whole_number_in(1, 64));
  command->add_option("--only", args->only, "Only the dataset/model configurations containing this text");
  add_enum_option(*command, "--device", args->device);
  hinted(
      command->add_option("--threads", args->threads, "CPU threads for LibTorch (default and most: the usable CPUs)"),
      whole_number_at_least(0));
  command->add_option("--data-root", args->data_root,
                      "Time on each dataset's real training split from this folder (texts at their real lengths, "
                      "batches trimmed to their longest as in training; --epoch = one real epoch) instead of "
                      "synthetic full-length data");
  command->add_option("--out", args->out, "Where to write the results as JSON (default bench.json)");
  command->callback([args, &exit_code] {
    configure_threads(checked_threads(args->threads));
    const auto runs =
        bench_runs(load_spec(args->spec_path, args->overrides, args->profile, args->datasets, args->rows), args->only);
    BenchOptions options;
    options.steps = args->steps;
    options.warmup = args->warmup;
    options.eval_batches = args->eval_batches;
    options.start_at = args->start_at;
    options.lanes = args->lanes;
    options.device = resolve_device(args->device);
    // One loader for every run: each dataset is read and tokenized once, whatever the number of rows.
    std::unique_ptr<DataLoader> real_data;
    if (!args->data_root.empty()) real_data = std::make_unique<DataLoader>(resolve_data_root(args->data_root));
    const int64_t peak_n = options.device.is_cuda() ? 8192 : 2048;
    const double peak = matmul_peak_tflops(options.device, peak_n);
    const std::string peak_what = fmt::format("measured {}x{}x{} {} matrix product on {}", peak_n, peak_n, peak_n,
                                              options.device.is_cuda() ? "bf16" : "float32", options.device.str());
    spdlog::info("MFU reference: {:.3f} TFLOP/s ({})", peak, peak_what);
    std::vector<BenchResult> results;
    nlohmann::json records = nlohmann::json::array();
    for (const auto& run : runs) {
      options.epoch_examples = args->epoch_examples > 0 ? args->epoch_examples
                               : args->epoch            ? find_dataset(run.dataset).info().official_train
                                                        : 0;
      spdlog::info("bench {} / {}: {} warm-up + {} timed steps", run.dataset, run.model_config, options.warmup,
                   options.steps);
      results.push_back(bench_run(run, options, peak, real_data.get()));
      records.push_back(results.back().to_json());
    }
    const nlohmann::json report = {{"spec", args->spec_path},
                                   {"profile", args->profile},
                                   {"data_root", args->data_root},
                                   {"overrides", args->overrides},
                                   {"steps", args->steps},
                                   {"warmup", args->warmup},
                                   {"peak_tflops", peak},
                                   {"peak_reference", peak_what},
                                   {"environment", environment_record(options.device)},
                                   {"time", utc_now()},
                                   {"results", records}};
    write_file_atomic(args->out, report.dump(2) + "\n");
    std::cout << bench_table(results, peak, peak_what);
    spdlog::info("wrote {}", args->out);
    exit_code = 0;
  });
}

}  // namespace repro
