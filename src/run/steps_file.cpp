#include "run/steps_file.h"

#include "util/csv.h"
#include "util/error.h"

namespace repro {

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
