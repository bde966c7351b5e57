#include "report/tables/eval_table.h"

#include <cmath>

#include "record/eval_record.h"
#include "record/folder.h"
#include "report/tables/table.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// One evaluation point of a run: its column label and value.
struct EvalValue {
  std::string label;
  double value = 0;
  bool partial = false;
  std::vector<std::string> notes;
};

struct EvalRead {
  RunState state = RunState::Complete;  // Complete, Corrupt, or the run's own state when it is not complete
  MetricGap gap = MetricGap::None;      // NotEvaluated: no eval/<name>.json
  std::string problem;                  // corrupt: what is wrong, naming the file
  std::vector<EvalValue> points;
};

// eval/<name>.json's points, with the loss (Metric::EvalLoss) or the accuracy as each point's value.
EvalRead read_eval(const fs::path& run_dir, const std::string& name, Metric field) {
  const fs::path file = RunFolder(run_dir).eval_path(name);
  EvalRead read;
  if (!fs::exists(file)) {
    read.gap = MetricGap::NotEvaluated;
    return read;
  }
  try {
    for (const auto& point : read_eval_record(file).points) {
      const std::optional<double>& value = field == Metric::EvalLoss ? point.loss : point.acc;
      read.points.push_back({point.label, value.value_or(NAN), point.partial, point.notes});
    }
  } catch (const Error& e) {
    read = {RunState::Corrupt, MetricGap::None, e.what(), {}};
  }
  return read;
}

std::string column(const std::string& dataset, const std::string& label, bool one_dataset) {
  return one_dataset ? label : dataset + ": " + label;
}

// The experiment with its runs' training records replaced by their evaluations under `names`.
ExperimentResults with_evaluations(const ExperimentResults& trained, const std::vector<std::string>& names,
                                   Metric field) {
  ExperimentResults out = trained;
  out.metric = field;
  out.runs.clear();
  out.datasets.clear();
  out.heading = (trained.heading.empty() ? trained.name : trained.heading) + ", eval " + join(names, ", ");
  const bool one_dataset = trained.datasets.size() == 1;
  for (const auto& dataset : trained.datasets)
    for (const auto& name : names) {
      std::vector<std::string> labels;  // this name's points on this dataset, in file order
      std::vector<std::pair<const RunResult*, EvalRead>> reads;
      for (const auto& run : trained.runs) {
        if (run.dataset != dataset) continue;
        EvalRead read = is_counted(run) ? read_eval(run.path, name, field) : EvalRead{run.state, run.gap, "", {}};
        for (const auto& point : read.points) add_unique(labels, point.label);
        reads.emplace_back(&run, std::move(read));
      }
      if (labels.empty()) labels.push_back(name);  // no run evaluated: one column saying so
      for (const auto& label : labels) {
        const std::string heading = column(dataset, label, one_dataset);
        add_unique(out.datasets, heading);
        for (const auto& [run, read] : reads) {
          RunResult cell = *run;
          cell.dataset = heading;
          cell.state = read.state;  // Complete without this label's point: not evaluated
          cell.gap =
              read.state == RunState::Complete && read.gap == MetricGap::None ? MetricGap::NotEvaluated : read.gap;
          cell.problem = read.problem.empty() ? run->problem : read.problem;
          for (const auto& point : read.points)
            if (point.label == label) {
              cell.gap = std::isnan(point.value) ? MetricGap::NoMetric : MetricGap::None;
              cell.value = point.value;
              cell.partial = point.partial;
              cell.notes = point.notes;
            }
          out.runs.push_back(cell);
        }
      }
    }
  return out;
}

}  // namespace

std::vector<ExperimentResults> collect_eval_results(const fs::path& dir, const std::vector<std::string>& names,
                                                    Metric metric, const RunFilter& filter) {
  if (names.empty()) throw Error("--eval: expected NAME[,NAME...] (the eval/NAME.json files of repro eval)");
  const Metric field = lower_is_better(metric) ? Metric::EvalLoss : Metric::EvalAcc;
  std::vector<ExperimentResults> all;
  for (const auto& trained : collect_results(dir, Metric::TestAcc, RecordEpoch::Selected, filter))
    all.push_back(with_evaluations(trained, names, field));
  return all;
}

std::string render_eval_report(const fs::path& dir, const std::vector<std::string>& names, Metric metric,
                               const RunFilter& filter) {
  std::string out;
  for (const auto& results : collect_eval_results(dir, names, metric, filter))
    out += (out.empty() ? "" : "\n") + render_markdown(results);
  return out;
}

}  // namespace repro
