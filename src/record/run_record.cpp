#include "record/run_record.h"

#include <cmath>

#include "record/epoch_row.h"
#include "record/json_fields.h"
#include "record/run_id_fields.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

using nlohmann::json;

namespace {

// Every identity field; records written before 0.7.1 lack row and sweep, before profiles the profile.
constexpr RunIdFields kSummaryIdFields{Presence::Required, Presence::Optional, Presence::Required, Presence::Optional};

json epoch_json(const std::optional<RecordedEpoch>& epoch) {
  if (!epoch) return nullptr;
  json out = {{"epoch", epoch->epoch}};
  for (const auto& [metric, value] : epoch->metrics) out[name_of(metric)] = json_number(value);
  return out;
}

// A metric's value: a number (finite, not negative, an accuracy at most 100) or null.
std::optional<double> read_metric(const JsonFields& fields, Metric metric) {
  const std::string name = name_of(metric);
  const std::optional<double> value = fields.optional_number(name);
  if (!value) return std::nullopt;
  const bool percent = is_percent(metric);
  if (!std::isfinite(*value) || *value < 0 || (percent && *value > 100))
    fields.wrong(name, fields.required(name), percent ? "outside 0-100" : "outside 0-inf");
  return value;
}

// The environment object with the identity's fields set (an environment that is not an object: just them).
json environment_with(const json& environment, const DeviceIdentity& device);

RecordedEpoch read_epoch(const JsonFields& fields) {
  RecordedEpoch epoch;
  epoch.epoch = fields.optional_integer("epoch").value_or(0);
  for (const Metric metric : epoch_metrics())
    if (fields.has(name_of(metric))) epoch.metrics[metric] = read_metric(fields, metric);
  return epoch;
}

// "selected"/"final": an object, or null when no epoch ran; a complete run's must be an object.
std::optional<RecordedEpoch> read_epoch_slot(const JsonFields& s, const std::string& key, bool required) {
  if (required) return read_epoch(s.object(key));
  if (const auto object = s.optional_object(key)) return read_epoch(*object);
  return std::nullopt;
}

RunState read_status(const JsonFields& s) {
  const std::string status = s.text("status");
  for (const RunState state : {RunState::Complete, RunState::Diverged, RunState::Failed})
    if (status == name_of(state)) return state;
  s.fail("status '" + status + "', expected complete, diverged or failed");
}

void read_training(const JsonFields& s, RunRecord& r) {
  r.trained = s.has("epochs_run") || s.has("selected");
  r.epochs_planned = s.optional_integer("epochs_planned").value_or(0);
  r.epochs_run = s.optional_integer("epochs_run").value_or(0);
  if (const auto selection = s.optional_object("selection"))
    r.selection = {selection->optional_text("rule").value_or(""), selection->optional_integer("epoch").value_or(0)};
  r.params = s.optional_integer("params").value_or(0);
  if (const auto parts = s.optional_object("param_breakdown"))
    for (const auto& [part, count] : parts->raw().items()) r.param_breakdown.emplace_back(part, parts->integer(part));
  if (const auto data = s.optional_object("data")) {
    r.data.train = data->optional_integer("train").value_or(0);
    r.data.val = data->optional_integer("val").value_or(0);
    r.data.test = data->optional_integer("test").value_or(0);
    r.data.partial = data->optional_flag("partial").value_or(false);
    r.data.notes = data->text_list("notes");
  }
  r.wall_seconds = s.optional_number("wall_seconds").value_or(0);
  r.resumed_from_epoch = s.optional_integer("resumed_from_epoch").value_or(0);
  r.finished_at = s.optional_text("finished_at").value_or("");
  const bool complete = r.status == RunState::Complete;
  r.selected = read_epoch_slot(s, "selected", complete);
  r.final = read_epoch_slot(s, "final", complete);
  if (const auto file = s.optional_object("model_file"))
    r.model_file = ModelFileRecord{file->text("file"), file->integer("epoch"), file->text("rule")};
}

json environment_with(const json& environment, const DeviceIdentity& device) {
  json out = environment.is_object() ? environment : json::object();
  out.update(device_identity_json(device));
  return out;
}

}  // namespace

bool DeviceIdentity::operator==(const DeviceIdentity& o) const {
  return gpu_name == o.gpu_name && driver_version == o.driver_version && cuda_runtime == o.cuda_runtime &&
         compute_capability == o.compute_capability && precision == o.precision && cuda_graphs == o.cuda_graphs;
}

json device_identity_json(const DeviceIdentity& d) {
  const auto text = [](const std::optional<std::string>& value) { return value ? json(*value) : json(); };
  return {{"gpu_name", text(d.gpu_name)},         {"driver_version", text(d.driver_version)},
          {"cuda_runtime", text(d.cuda_runtime)}, {"compute_capability", text(d.compute_capability)},
          {"precision", text(d.precision)},       {"cuda_graphs", d.cuda_graphs ? json(*d.cuda_graphs) : json()}};
}

DeviceIdentity read_device_identity(const json& environment, const std::filesystem::path& file) {
  DeviceIdentity d;
  if (!environment.is_object()) return d;
  const JsonFields e(environment, file, "environment.");
  d.gpu_name = e.optional_text("gpu_name");
  d.driver_version = e.optional_text("driver_version");
  d.cuda_runtime = e.optional_text("cuda_runtime");
  d.compute_capability = e.optional_text("compute_capability");
  d.precision = e.optional_text("precision");
  if (d.precision && *d.precision != "bf16" && *d.precision != "fp32")
    e.wrong("precision", e.required("precision"), "expected bf16 or fp32");
  d.cuda_graphs = e.optional_flag("cuda_graphs");
  return d;
}

bool SumOrder::operator==(const SumOrder& o) const {
  return device == o.device && libtorch == o.libtorch && threads == o.threads && blas_core == o.blas_core &&
         aten_capability == o.aten_capability && onednn_isa == o.onednn_isa;
}

namespace {

std::string or_unknown(const std::optional<std::string>& value) { return value ? *value : "?"; }

}  // namespace

std::string sum_order_text(const SumOrder& o) {
  const std::string threads = o.threads ? std::to_string(*o.threads) + (*o.threads == 1 ? " thread" : " threads")
                                        : std::string("? threads");
  return or_unknown(o.device) + ", LibTorch " + or_unknown(o.libtorch) + ", " + threads + ", OpenBLAS " +
         or_unknown(o.blas_core) + ", ATen " + or_unknown(o.aten_capability) + ", oneDNN " + or_unknown(o.onednn_isa);
}

std::string sum_order_differences(const SumOrder& a, const SumOrder& b) {
  std::vector<std::string> parts;
  const auto compare = [&](const char* what, const std::optional<std::string>& x, const std::optional<std::string>& y) {
    if (x != y) parts.push_back(std::string(what) + " " + or_unknown(x) + " against " + or_unknown(y));
  };
  compare("device", a.device, b.device);
  compare("LibTorch", a.libtorch, b.libtorch);
  if (a.threads != b.threads)
    parts.push_back("threads " + (a.threads ? std::to_string(*a.threads) : std::string("?")) + " against " +
                    (b.threads ? std::to_string(*b.threads) : std::string("?")));
  compare("OpenBLAS kernels", a.blas_core, b.blas_core);
  compare("ATen capability", a.aten_capability, b.aten_capability);
  compare("oneDNN instruction set", a.onednn_isa, b.onednn_isa);
  return join(parts, "; ");
}

SumOrder read_sum_order(const json& environment, const std::filesystem::path& file) {
  SumOrder o;
  if (!environment.is_object()) return o;
  const JsonFields e(environment, file, "environment.");
  o.device = e.optional_text("device");
  o.libtorch = e.optional_text("libtorch");
  o.threads = e.optional_integer("threads");
  o.blas_core = e.optional_text("blas_core");
  if (o.blas_core && o.blas_core->empty()) o.blas_core.reset();  // not OpenBLAS
  o.aten_capability = e.optional_text("aten_capability");
  o.onednn_isa = e.optional_text("onednn_isa");
  return o;
}

std::string environment_summary(const RunRecord& record) {
  const auto text = [&](const char* key) {
    const auto it = record.environment.find(key);
    return it != record.environment.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  const auto gpu = record.environment.find("gpu");  // 0.7.0 and later, on a GPU: "NVIDIA H100 80GB HBM3, 81559 MiB"
  const std::string name =
      gpu != record.environment.end() && gpu->is_string() ? " (" + gpu->get<std::string>() + ")" : "";
  return text("device") + name + ", LibTorch " + text("libtorch");
}

RunRecord read_run_record(const std::filesystem::path& summary_path) {
  const json parsed = read_json_object(summary_path);
  const JsonFields s(parsed, summary_path);
  RunRecord r;
  r.version = record_version(s, kRunRecordVersion);
  r.status = read_status(s);
  read_run_id(s, r, kSummaryIdFields);
  r.message = s.optional_text("message").value_or("");
  r.row_index = s.has("row_index") && s.raw().at("row_index").is_number_integer() ? s.integer("row_index") : 0;
  r.environment = s.has("environment") ? s.raw().at("environment") : json();
  r.device = read_device_identity(r.environment, summary_path);
  r.sum_order = read_sum_order(r.environment, summary_path);
  r.git_commit = s.has("git_commit") && s.raw().at("git_commit").is_string() ? s.text("git_commit") : "";
  read_training(s, r);
  return r;
}

std::optional<RunRecord> read_run_record_if_any(const std::filesystem::path& summary_path) {
  if (!std::filesystem::exists(summary_path)) return std::nullopt;
  return read_run_record(summary_path);
}

json run_record_json(const RunRecord& r) {
  json out = {{"record_version", r.version},
              {"status", name_of(r.status)},
              {"message", r.message},
              {"row_index", r.row_index},
              {"environment", environment_with(r.environment, r.device)},
              {"git_commit", r.git_commit}};
  write_run_id(out, r, kSummaryIdFields);
  if (!r.trained) return out;  // a failed run's record
  json breakdown = json::object();
  for (const auto& [part, count] : r.param_breakdown) breakdown[part] = count;
  out.update(
      {{"epochs_planned", r.epochs_planned},
       {"epochs_run", r.epochs_run},
       {"selection", {{"rule", r.selection.rule}, {"epoch", r.selection.epoch}}},
       {"params", r.params},
       {"param_breakdown", breakdown},
       {"data",
        {{"train", r.data.train},
         {"val", r.data.val},
         {"test", r.data.test},
         {"partial", r.data.partial},
         {"notes", r.data.notes}}},
       {"wall_seconds", r.wall_seconds},
       {"resumed_from_epoch", r.resumed_from_epoch},
       {"finished_at", r.finished_at},
       {"selected", epoch_json(r.selected)},
       {"final", epoch_json(r.final)},
       {"model_file",
        r.model_file ? json{{"file", r.model_file->file}, {"epoch", r.model_file->epoch}, {"rule", r.model_file->rule}}
                     : json()}});
  return out;
}

void write_run_record(const std::filesystem::path& summary_path, const RunRecord& record) {
  write_file_atomic(summary_path, run_record_json(record).dump(2) + "\n");
}

}  // namespace repro
