// `repro report`'s readers: plan.json, summary.json and metrics.csv under a runs
// folder, collected and rendered as render_report does. Input: byte 0 picks the
// metric and the format (md | csv); the rest is NUL-separated
//   exp/plan.json, exp/ds/m/seed_0/summary.json, exp/ds/m/seed_0/metrics.csv,
//   exp/ds/m/seed_1/summary.json (a second record, e.g. a duplicate)
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "report/tables/table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  if (size == 0) return 0;
  ReportOptions options;
  static const Metric kMetrics[] = {Metric::TestAcc, Metric::ValAcc, Metric::TrainLoss, Metric::TestLoss};
  options.metric = kMetrics[data[0] % 4];
  options.format = (data[0] / 4) % 2 ? ReportFormat::Csv : ReportFormat::Markdown;
  const auto parts = fuzz::split_parts(std::string(reinterpret_cast<const char*>(data) + 1, size - 1), 4);
  const auto root = fuzz::fresh_scratch();
  const char* files[] = {"exp/plan.json", "exp/ds/m/seed_0/summary.json", "exp/ds/m/seed_0/metrics.csv",
                         "exp/ds/m/seed_1/summary.json"};
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parts[i].empty() || i == 0) fuzz::write_bytes(root / files[i], parts[i]);
  fuzz::expect_clean("report", [&] { render_report(root, options); });
  return 0;
}
