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
  const std::vector<std::string> lines = csv_lines(text, path.string());
  if (lines.empty()) throw Error(path.string() + ": empty; expected the header " + kMetricsHeader);
  const auto columns = split_csv_line(kMetricsHeader);
  if (split_csv_line(lines[0]) != columns)
    throw Error(path.string() + ":1: header '" + lines[0] + "', expected " + kMetricsHeader);
  std::vector<EpochRow> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string where = path.string() + ":" + std::to_string(i + 1);
    const auto fields = split_csv_line(lines[i]);
    if (fields.size() != columns.size())
      throw Error(where + ": " + std::to_string(fields.size()) + " fields, expected " + std::to_string(columns.size()));
    EpochRow r;
    r.epoch = csv_integer(fields[0], where, columns[0]);
    r.step = csv_integer(fields[1], where, columns[1]);
    r.lr = csv_value(fields[2], where, columns[2]);
    double* metrics[] = {&r.train_loss, &r.train_acc, &r.val_loss, &r.val_acc, &r.test_loss, &r.test_acc};
    for (size_t m = 0; m < 6; ++m) *metrics[m] = csv_value(fields[3 + m], where, columns[3 + m]);
    r.seconds = csv_value(fields[9], where, columns[9]);
    if (r.epoch != static_cast<int64_t>(rows.size()) + 1)
      throw Error(where + ": epoch " + std::to_string(r.epoch) + ", expected " + std::to_string(rows.size() + 1));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace repro
