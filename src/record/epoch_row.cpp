#include "record/epoch_row.h"

#include "util/error.h"

namespace repro {

std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  for (const Metric metric : epoch_metrics()) names.push_back(name_of(metric));
  return names;
}

double metric_value(const EpochRow& row, Metric metric) {
  switch (metric) {
    case Metric::TrainLoss:
      return row.train_loss;
    case Metric::TrainAcc:
      return row.train_acc;
    case Metric::ValLoss:
      return row.val_loss;
    case Metric::ValAcc:
      return row.val_acc;
    case Metric::TestLoss:
      return row.test_loss;
    case Metric::TestAcc:
      return row.test_acc;
    default:
      break;
  }
  throw Error("internal: '" + name_of(metric) + "' is not a metric of an epoch");
}

double metric_value(const EpochRow& row, const std::string& name) {
  return metric_value(row, enum_from_name<Metric>(name, "metric"));
}

}  // namespace repro
