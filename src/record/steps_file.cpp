#include "record/steps_file.h"

#include "util/csv.h"
#include "util/error.h"

namespace repro {

namespace {

const char* const kStepsHeader = "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time";

double step_json_number(const nlohmann::json& value) { return value.is_number() ? value.get<double>() : NAN; }

nlohmann::json step_json_of(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

}  // namespace

nlohmann::json steps_to_json(const std::vector<StepRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({r.step, r.epoch, step_json_of(r.loss), step_json_of(r.lr), step_json_of(r.grad_norm),
                   step_json_of(r.examples_per_s), step_json_of(r.cuda_memory_mb), step_json_of(r.wall_time)});
  return out;
}

std::vector<StepRow> steps_from_json(const nlohmann::json& json) {
  std::vector<StepRow> rows;
  for (const auto& r : json) {
    if (!r.is_array() || r.size() != 8 || !r[0].is_number_integer() || !r[1].is_number_integer())
      throw Error("a step row is not [step, epoch, 6 numbers]: " + r.dump());
    rows.push_back({r[0].get<int64_t>(), r[1].get<int64_t>(), step_json_number(r[2]), step_json_number(r[3]),
                    step_json_number(r[4]), step_json_number(r[5]), step_json_number(r[6]), step_json_number(r[7])});
  }
  return rows;
}

const char* steps_csv_header() { return kStepsHeader; }

std::string steps_csv(const std::vector<StepRow>& rows) {
  std::string out = std::string(kStepsHeader) + "\n";
  for (const auto& r : rows)
    out += std::to_string(r.step) + "," + std::to_string(r.epoch) + "," + csv_number(r.loss) + "," + csv_number(r.lr) +
           "," + csv_number(r.grad_norm) + "," + csv_number(r.examples_per_s) + "," + csv_number(r.cuda_memory_mb) +
           "," + csv_number(r.wall_time, 16) + "\n";
  return out;
}

std::vector<StepRow> parse_steps_csv(const std::string& text, const std::filesystem::path& path) {
  std::vector<StepRow> rows;
  for (const CsvRow& line : read_csv_table(text, path.string(), steps_csv_header())) {
    StepRow r;
    r.step = line.integer(0);
    r.epoch = line.integer(1);
    double* values[] = {&r.loss, &r.lr, &r.grad_norm, &r.examples_per_s, &r.cuda_memory_mb, &r.wall_time};
    for (size_t v = 0; v < 6; ++v) *values[v] = line.value(2 + v);
    if (!rows.empty() && r.step <= rows.back().step)
      throw Error(line.where() + ": step " + std::to_string(r.step) + " after step " +
                  std::to_string(rows.back().step));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace repro
