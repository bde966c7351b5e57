#include "report/tables/run_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "record/folder.h"
#include "record/run_record.h"
#include "report/tables/table.h"
#include "util/csv.h"
#include "util/strings.h"

namespace repro {

namespace {

// One run with what its summary.json says (nullopt: no record, or one that cannot be read).
struct RunRow {
  const ExperimentResults* results = nullptr;
  const RunResult* run = nullptr;
  std::optional<RunRecord> record;
};

std::optional<RunRecord> record_of(const RunResult& run) {
  if (run.path.empty() || is_bad_record(run)) return std::nullopt;
  try {
    return read_run_record_if_any(RunFolder(run.path).summary_path());
  } catch (const std::exception&) {  // collect_results has marked it corrupt already; the row says so
    return std::nullopt;
  }
}

std::vector<RunRow> rows_of(const std::vector<ExperimentResults>& all) {
  std::vector<RunRow> rows;
  for (const auto& results : all)
    for (const auto& run : results.runs) rows.push_back({&results, &run, record_of(run)});
  return rows;
}

// The sweep axes of every run, in the order first met (one column each).
std::vector<std::string> sweep_axes(const std::vector<RunRow>& rows) {
  std::vector<std::string> axes;
  for (const auto& row : rows)
    for (const auto& [axis, value] : row.run->sweep)
      if (std::find(axes.begin(), axes.end(), axis) == axes.end()) axes.push_back(axis);
  return axes;
}

std::string sweep_value(const RunResult& run, const std::string& axis) {
  for (const auto& [name, value] : run.sweep)
    if (name == axis) return value;
  return "";
}

std::string metric_at(const std::optional<RecordedEpoch>& epoch, Metric metric) {
  if (!epoch) return "";
  const auto it = epoch->metrics.find(metric);
  return it == epoch->metrics.end() || !it->second ? "" : csv_number(*it->second);
}

// The same value as a table prints it (the metric's digits: 77.51, 0.4123).
std::string shown_metric_at(const std::optional<RecordedEpoch>& epoch, Metric metric) {
  if (!epoch) return "";
  const auto it = epoch->metrics.find(metric);
  if (it == epoch->metrics.end() || !it->second) return "";
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", metric_info(metric).digits, *it->second);
  return text;
}

std::string optional_text(const std::optional<std::string>& text) { return text.value_or(""); }

std::string wall_seconds(const RunRow& row) {
  return row.record && row.record->trained ? csv_number(row.record->wall_seconds, 6) : "";
}

std::string epoch_text(const std::optional<RecordedEpoch>& epoch) {
  return epoch && epoch->epoch > 0 ? std::to_string(epoch->epoch) : "";
}

}  // namespace

std::string runs_csv(const std::vector<ExperimentResults>& all) {
  const std::vector<RunRow> rows = rows_of(all);
  const std::vector<std::string> axes = sweep_axes(rows);
  std::vector<std::string> header = {"experiment", "profile", "dataset", "row", "model_config"};
  for (const auto& axis : axes) header.push_back("sweep." + axis);
  for (const char* column : {"seed", "state", "device", "gpu", "precision", "threads", "blas_core", "aten_capability",
                             "onednn_isa", "selected_epoch", "final_epoch"})
    header.push_back(column);
  for (const char* at : {"selected_", "final_"})
    for (const Metric metric : epoch_metrics()) header.push_back(at + name_of(metric));
  for (const char* column : {"wall_seconds", "git_commit", "path", "problem"}) header.push_back(column);
  std::string out = join(header, ",") + "\n";
  for (const auto& row : rows) {
    const RunResult& run = *row.run;
    const std::optional<RunRecord>& record = row.record;
    std::vector<std::string> fields = {run.experiment, run.profile, run.dataset, run.row, run.model_config};
    for (const auto& axis : axes) fields.push_back(sweep_value(run, axis));
    fields.push_back(std::to_string(run.seed));
    fields.push_back(name_of(run.state));
    fields.push_back(record ? run.device : "");
    fields.push_back(record ? optional_text(record->device.gpu_name) : "");
    fields.push_back(record ? optional_text(record->device.precision) : "");
    // What ordered the float sums on the CPU (record/run_record.h: SumOrder); empty where the record does not say.
    const auto threads = record ? record->sum_order.threads : std::nullopt;
    fields.push_back(threads ? std::to_string(*threads) : "");
    fields.push_back(record ? optional_text(record->sum_order.blas_core) : "");
    fields.push_back(record ? optional_text(record->sum_order.aten_capability) : "");
    fields.push_back(record ? optional_text(record->sum_order.onednn_isa) : "");
    fields.push_back(record ? epoch_text(record->selected) : "");
    fields.push_back(record ? epoch_text(record->final) : "");
    for (const auto epoch : {&RunRecord::selected, &RunRecord::final})
      for (const Metric metric : epoch_metrics()) fields.push_back(record ? metric_at((*record).*epoch, metric) : "");
    fields.push_back(wall_seconds(row));
    fields.push_back(record ? record->git_commit : "");
    fields.push_back(run.path);
    fields.push_back(run.problem);
    for (auto& field : fields) field = csv_quoted(field);
    out += join(fields, ",") + "\n";
  }
  return out;
}

std::string runs_markdown(const std::vector<ExperimentResults>& all, Metric metric) {
  const std::vector<RunRow> rows = rows_of(all);
  const std::string name = name_of(metric);
  std::string out = "| experiment | dataset | model configuration | seed | state | device | selected epoch | " + name +
                    " (selected) | last epoch | " + name +
                    " (last) | wall time |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  const auto cell = [](const std::string& text) { return text.empty() ? std::string("–") : markdown_cell(text); };
  for (const auto& row : rows) {
    const RunResult& run = *row.run;
    const auto& record = row.record;
    const std::string seconds = wall_seconds(row);
    out += "| " + cell(run.folder()) + " | " + cell(run.dataset) + " | " + cell(run.model_config) + " | " +
           std::to_string(run.seed) + " | " + name_of(run.state) + " | " + cell(record ? run.device : "") + " | " +
           cell(record ? epoch_text(record->selected) : "") + " | " +
           cell(record ? shown_metric_at(record->selected, metric) : "") + " | " +
           cell(record ? epoch_text(record->final) : "") + " | " +
           cell(record ? shown_metric_at(record->final, metric) : "") + " | " +
           cell(seconds.empty() ? "" : seconds + " s") + " |\n";
  }
  size_t with_record = 0;
  for (const auto& row : rows) with_record += row.record ? 1 : 0;
  out += "\n" + std::to_string(rows.size()) + " runs, " + std::to_string(with_record) +
         " with a record. `--format csv` gives every column (each metric at both epochs, sweep values, GPU, "
         "precision, the CPU kernels, commit, folder).\n";
  return out;
}

}  // namespace repro
