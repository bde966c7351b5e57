// Spec loading with overrides. Input: a spec file, then (after a NUL byte) one
// command-line argument per line, handled as `repro run` / `repro sweep` do:
// KEY=VALUE overrides, "--set KEY=V1,V2", "--seeds TEXT", "--profile NAME".
// load_spec, parse_seeds, parse_axis, then expand_grid on grids of at most 256 runs.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/common.h"
#include "data/registry.h"
#include "fuzz_common.h"
#include "spec/grid.h"
#include "util/strings.h"

namespace {

size_t grid_size(const repro::Experiment& experiment) {
  size_t size = experiment.rows.size() * experiment.datasets.size() * experiment.seeds.size();
  for (const auto& axis : experiment.axes) size *= axis.values.size();
  return size;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  const auto parts = fuzz::split_parts(std::string(reinterpret_cast<const char*>(data), size), 2);
  const auto spec_path = fuzz::fresh_scratch() / "spec.yaml";
  fuzz::write_bytes(spec_path, parts[0]);
  std::vector<std::string> overrides, axes;
  std::string profile, seeds;
  if (parts.size() > 1)
    for (const auto& line : split_lines(parts[1])) {
      if (starts_with(line, "--set "))
        axes.push_back(line.substr(6));
      else if (starts_with(line, "--seeds "))
        seeds = line.substr(8);
      else if (starts_with(line, "--profile "))
        profile = line.substr(10);
      else
        overrides.push_back(line);
    }
  fuzz::expect_clean("spec", [&] {
    Experiment experiment = load_spec(spec_path.string(), overrides, profile);
    if (!seeds.empty()) experiment.seeds = parse_seeds(seeds, "--seeds");
    for (const auto& axis : axes) experiment.axes.push_back(parse_axis(axis));
    if (grid_size(experiment) <= 256) expand_grid(experiment, dataset_catalog());
  });
  return 0;
}
