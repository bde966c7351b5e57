#include "train/history.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "util/csv.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace {

nlohmann::json number(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

double read_number(const nlohmann::json& row, const std::string& key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : NAN;
}

const char* kMetricsHeader = "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds";

}  // namespace

nlohmann::json history_to_json(const std::vector<EpochRow>& rows) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json row = {{"epoch", r.epoch}, {"step", r.step}, {"lr", r.lr}, {"seconds", r.seconds}};
    for (const auto& name : metric_names()) row[name] = number(metric_value(r, name));
    out.push_back(row);
  }
  return out;
}

std::vector<EpochRow> history_from_json(const nlohmann::json& json) {
  std::vector<EpochRow> rows;
  for (const auto& j : json) {
    EpochRow r;
    r.epoch = j.at("epoch").get<int64_t>();
    r.step = j.at("step").get<int64_t>();
    r.lr = j.at("lr").get<double>();
    r.seconds = j.at("seconds").get<double>();
    r.train_loss = read_number(j, "train_loss");
    r.train_acc = read_number(j, "train_acc");
    r.val_loss = read_number(j, "val_loss");
    r.val_acc = read_number(j, "val_acc");
    r.test_loss = read_number(j, "test_loss");
    r.test_acc = read_number(j, "test_acc");
    rows.push_back(r);
  }
  return rows;
}

std::string metrics_csv(const std::vector<EpochRow>& rows) {
  std::string out = std::string(kMetricsHeader) + "\n";
  for (const auto& r : rows) {
    out += std::to_string(r.epoch) + "," + std::to_string(r.step) + "," + csv_number(r.lr);
    for (const auto& name : metric_names()) out += "," + csv_number(metric_value(r, name));
    out += "," + csv_number(r.seconds) + "\n";
  }
  return out;
}

std::vector<EpochRow> parse_metrics_csv(const std::string& text, const std::filesystem::path& path) {
  std::vector<EpochRow> rows;
  for (const CsvRow& line : read_csv_table(text, path.string(), kMetricsHeader)) {
    EpochRow r;
    r.epoch = line.integer(0);
    r.step = line.integer(1);
    r.lr = line.value(2);
    double* metrics[] = {&r.train_loss, &r.train_acc, &r.val_loss, &r.val_acc, &r.test_loss, &r.test_acc};
    for (size_t m = 0; m < 6; ++m) *metrics[m] = line.value(3 + m);
    r.seconds = line.value(9);
    if (r.epoch != static_cast<int64_t>(rows.size()) + 1)
      throw Error(line.where() + ": epoch " + std::to_string(r.epoch) + ", expected " +
                  std::to_string(rows.size() + 1));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace repro
