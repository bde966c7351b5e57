#include "cli/rollout_run.h"

#include "util/error.h"

namespace repro {

RolloutRun load_rollout_run(const std::filesystem::path& dir, const std::vector<Setting>& overrides, DataLoader& loader,
                            torch::Device device) {
  const std::string why = why_not_evaluable(dir);
  if (!why.empty()) throw Error(dir.string() + ": " + why);
  RolloutRun run{dir, read_run_spec(RunFolder(dir).spec_path()), {}, {}, nullptr, {}};
  Config config = run.spec.config;
  for (const auto& s : overrides) config.set(s.key, s.raw, s.where);
  run.options = run_options(config);
  run.data = loader.run_data(run.spec.dataset, run.options);
  run.model = build_model(run.options.model, run.data.info);
  run.file = load_model_file(model_file_path(dir), *run.model, run.spec.id());
  run.model->to(device);
  run.model->eval();
  return run;
}

std::string class_name(const DatasetInfo& info, int64_t label) {
  return label < static_cast<int64_t>(info.class_names.size()) ? info.class_names[label] : std::to_string(label);
}

}  // namespace repro
