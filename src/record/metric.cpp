#include "record/metric.h"

#include <algorithm>

namespace repro {

namespace {

// The one table: name, direction, digits, unit, axis label.
const MetricInfo kMetrics[] = {
    {Metric::TrainLoss, "train_loss", Better::Lower, 4, "", "training loss (cross-entropy)"},
    {Metric::TrainAcc, "train_acc", Better::Higher, 2, "%", "training accuracy (%)"},
    {Metric::ValLoss, "val_loss", Better::Lower, 4, "", "validation loss (cross-entropy)"},
    {Metric::ValAcc, "val_acc", Better::Higher, 2, "%", "validation accuracy (%)"},
    {Metric::TestLoss, "test_loss", Better::Lower, 4, "", "test loss (cross-entropy)"},
    {Metric::TestAcc, "test_acc", Better::Higher, 2, "%", "test accuracy (%)"},
    {Metric::EvalLoss, "eval_loss", Better::Lower, 4, "", "evaluation loss (cross-entropy)"},
    {Metric::EvalAcc, "eval_acc", Better::Higher, 2, "%", "evaluation accuracy (%)"},
    {Metric::Params, "params", Better::Higher, 0, "parameters", "parameters"},
};

}  // namespace

const EnumNames<Metric>& enum_names(Metric) {
  static const EnumNames<Metric> names = [] {
    EnumNames<Metric> out;
    for (const auto& info : kMetrics) out.emplace_back(info.metric, info.name);
    return out;
  }();
  return names;
}

const MetricInfo& metric_info(Metric metric) {
  for (const auto& info : kMetrics)
    if (info.metric == metric) return info;
  throw Error("internal: a metric without an entry in the metric table");
}

const std::vector<Metric>& epoch_metrics() {
  static const std::vector<Metric> metrics = {Metric::TrainLoss, Metric::TrainAcc, Metric::ValLoss,
                                              Metric::ValAcc,    Metric::TestLoss, Metric::TestAcc};
  return metrics;
}

bool is_epoch_metric(Metric metric) {
  const auto& all = epoch_metrics();
  return std::find(all.begin(), all.end(), metric) != all.end();
}

}  // namespace repro
