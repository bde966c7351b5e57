#pragma once
// summary.json, the record of a run that ended: its state, the selected and final epochs' metrics, the
// parameter count, data provenance and the environment. One writer (the runner, atomically) and one reader;
// nothing else reads its fields. Records of older repro versions (no "record_version", fewer fields) are read;
// a field of the wrong type is refused with one line naming the file and the field.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/lifecycle.h"
#include "record/run_id.h"
#include "record/metric.h"

namespace repro {

inline constexpr int64_t kRunRecordVersion = 1;

// summary.json's "selected" or "final": one epoch's metrics (record/metric.h's epoch_metrics()).
struct RecordedEpoch {
  int64_t epoch = 0;                                      // 1-based (0 when the record names none)
  std::map<Metric, std::optional<double>> metrics;  // nullopt: not measured (null)
};

struct SelectionRecord {
  std::string rule;  // best_val | last
  int64_t epoch = 0;
};

struct DataRecord {
  int64_t train = 0, val = 0, test = 0;
  bool partial = false;              // a partial dataset (e.g. CIFAR-10's first 1,000 test records)
  std::vector<std::string> notes;    // the loader's notes (partial data, limits, a known copy)
};

struct ModelFileRecord {  // model.pt: the epoch whose weights it holds and the rule that chose it
  std::string file;
  int64_t epoch = 0;
  std::string rule;
};

// Where a run ran, in summary.json's environment (with train.cuda_graphs): the GPU's identity (null on the CPU), the
// precision train.precision resolved to and whether the training step ran as CUDA graphs (train.cuda_graphs;
// false on the CPU). Every field is null in records written before these fields, the last two in a failed run's.
struct DeviceIdentity {
  std::optional<std::string> gpu_name;            // "NVIDIA H100 80GB HBM3"
  std::optional<std::string> driver_version;      // the NVIDIA driver's, "580.159.04"
  std::optional<std::string> cuda_runtime;        // the CUDA runtime's, "12.4"
  std::optional<std::string> compute_capability;  // "9.0"
  std::optional<std::string> precision;           // bf16 | fp32
  std::optional<bool> cuda_graphs;
  bool operator==(const DeviceIdentity& other) const;
};

// The identity's fields as environment keys (null for nullopt), to merge into an environment object.
nlohmann::json device_identity_json(const DeviceIdentity& identity);
// The identity read from an environment object (absent fields: nullopt); `file` names it in a RecordError for a
// field of the wrong type or a precision other than bf16 and fp32.
DeviceIdentity read_device_identity(const nlohmann::json& environment, const std::filesystem::path& file);

// What orders a run's float sums on the CPU (util/cpu_kernels.h), as its environment records it: two runs of one
// spec, seed and settings give the same numbers bit for bit where all of these are equal (and the device is the
// CPU). Fields a record lacks are nullopt: records before 0.8.0 name neither ATen's capability nor oneDNN's
// instruction set, so they compare equal to no new one.
struct SumOrder {
  std::optional<std::string> device;           // "cpu"
  std::optional<std::string> libtorch;         // "1.13.0"
  std::optional<int64_t> threads;              // LibTorch's threads
  std::optional<std::string> blas_core;        // OpenBLAS's kernel set: "Haswell"
  std::optional<std::string> aten_capability;  // "AVX2"
  std::optional<std::string> onednn_isa;       // "avx2"; null where oneDNN is not visible (PyTorch's own LibTorch)
  bool operator==(const SumOrder& other) const;
  bool operator!=(const SumOrder& other) const { return !(*this == other); }
};
// "cpu, LibTorch 1.13.0, 1 thread, OpenBLAS Haswell, ATen AVX2, oneDNN avx2" ("?" for what it lacks).
std::string sum_order_text(const SumOrder& order);
// The fields where `a` and `b` differ, "ATen capability AVX512 against AVX2; …" ("" when equal).
std::string sum_order_differences(const SumOrder& a, const SumOrder& b);
SumOrder read_sum_order(const nlohmann::json& environment, const std::filesystem::path& file);

// The run's identity (record/run_id.h) is its base: summary.json's experiment, profile, model_config, row, sweep,
// dataset and seed.
struct RunRecord : RunId {
  int64_t version = kRunRecordVersion;  // "record_version"; 0 when read from a record that predates it
  RunState status = RunState::Complete;  // complete | diverged | failed
  std::string message;                   // why it diverged or failed
  int64_t row_index = 0;
  nlohmann::json environment;  // run/device's environment record: shown, not interpreted
  DeviceIdentity device;       // written into the environment; read from it
  SumOrder sum_order;          // read from the environment (run/device.cpp writes it)
  std::string git_commit;
  // What training produced; a failed run's record has none of these (`trained` false).
  bool trained = false;
  int64_t epochs_planned = 0, epochs_run = 0;
  SelectionRecord selection;
  int64_t params = 0;
  std::vector<std::pair<std::string, int64_t>> param_breakdown;  // part -> count
  DataRecord data;
  double wall_seconds = 0;
  int64_t resumed_from_epoch = 0;
  std::string finished_at;                     // UTC
  std::optional<RecordedEpoch> selected, final;  // null when no epoch ran (a complete run's are never null)
  std::optional<ModelFileRecord> model_file;   // null without a model.pt
};

// "cpu, LibTorch 1.13.0" / "cuda:0 (NVIDIA H100 80GB HBM3, 81559 MiB), LibTorch 2.11.0": the environment's device,
// its GPU where recorded, and LibTorch ("?" for what it lacks).
std::string environment_summary(const RunRecord& record);

// Throws RecordError naming the file and field, repro::Error when the file cannot be read.
RunRecord read_run_record(const std::filesystem::path& summary_path);
// nullopt when the file does not exist.
std::optional<RunRecord> read_run_record_if_any(const std::filesystem::path& summary_path);
void write_run_record(const std::filesystem::path& summary_path, const RunRecord& record);
nlohmann::json run_record_json(const RunRecord& record);

}  // namespace repro
