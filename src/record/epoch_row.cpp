#include "record/epoch_row.h"

#include "util/error.h"

namespace repro {

namespace {

// The field of `row` (const or not) that holds metric `name`.
template <typename Row>
auto& field_of(Row& row, const std::string& name) {
  if (name == "train_loss") return row.train_loss;
  if (name == "train_acc") return row.train_acc;
  if (name == "val_loss") return row.val_loss;
  if (name == "val_acc") return row.val_acc;
  if (name == "test_loss") return row.test_loss;
  if (name == "test_acc") return row.test_acc;
  throw Error("unknown metric '" + name + "'");
}

}  // namespace

std::vector<std::string> metric_names() {
  return {"train_loss", "train_acc", "val_loss", "val_acc", "test_loss", "test_acc"};
}

double metric_value(const EpochRow& row, const std::string& name) { return field_of(row, name); }

double& metric_field(EpochRow& row, const std::string& name) { return field_of(row, name); }

}  // namespace repro
