#pragma once
// steps.csv (train.log_every): every N optimizer steps one row, the window of steps (step - N, step]. The rows are
// kept in the checkpoint with the epoch history (steps_to_json) and shown as steps.csv by the run layer
// (run/train_run.cpp), so the file is rewritten from the checkpoint's rows at every epoch end, interrupt and resume
// (no duplicated or missing steps after a kill, as metrics.csv). The trainer's step makes the rows
// (train/step_window.h); `repro status` shows a running run's last one, and an event file is rewritten from the
// file (run/tensorboard_log.h); the tests read it too.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace repro {

// One row of steps.csv: the window of steps (step - N, step].
struct StepRow {
  int64_t step = 0;             // optimizer steps so far (1-based count of the window's last step)
  int64_t epoch = 0;            // the epoch the step belongs to
  double loss = 0;              // mean training loss over the window's examples
  double lr = 0;                // the learning rate of the window's last step
  double grad_norm = 0;         // global L2 norm of the last step's gradients, before clipping
  double examples_per_s = 0;    // training examples over the window's wall time (a resumed window: since the resume)
  double cuda_memory_mb = NAN;  // allocated CUDA memory at the window's end; NaN on the CPU
  double wall_time = 0;         // Unix time of the window's end (seconds)
};

// The rows as a checkpoint keeps them: [step, epoch, 6 numbers] each, null for NaN.
nlohmann::json steps_to_json(const std::vector<StepRow>& rows);
std::vector<StepRow> steps_from_json(const nlohmann::json& json);

const char* steps_csv_header();  // "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time"
// The header and a line a row (empty = NaN; csv_number's digits, wall_time with 16). A resume takes the rows from
// the checkpoint; `repro status` and an event file's rewrite read the file back (parse_steps_csv).
std::string steps_csv(const std::vector<StepRow>& rows);
// The exact header, eight fields a row (empty = NaN), steps increasing. Throws repro::Error "PATH:LINE: what".
std::vector<StepRow> parse_steps_csv(const std::string& text, const std::filesystem::path& path);

}  // namespace repro
