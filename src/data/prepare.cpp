#include "data/prepare.h"

#include "data/noise.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

Split take(const Split& split, const std::vector<int64_t>& indices) {
  if (indices.empty()) return {};
  const auto index = torch::tensor(indices, torch::kInt64);
  return {split.inputs.index_select(0, index), split.labels.index_select(0, index)};
}

void add_noise(RunData& data, const NoiseOptions& noise) {
  if (noise.split == NoiseSplit::None) return;
  if (!is_image_noise(noise.kind))
    throw Error("data.noise.kind=" + name_of(noise.kind) + " is a text noise; " + data.info.name +
                " is an image dataset (" + noise_kinds_text(true) + ")");
  const std::string what = "noise: " + name_of(noise.kind) + " level " + format_number(noise.level) + " on ";
  if (noise_applies_to(noise, NoiseSplit::Train)) data.train.inputs = add_image_noise(data.train.inputs, noise, 1);
  if (noise_applies_to(noise, NoiseSplit::Test)) data.test.inputs = add_image_noise(data.test.inputs, noise, 3);
  data.note(NoteKind::Info, what + name_of(noise.split) + " (seed " + std::to_string(noise.seed) + ")");
}

}  // namespace

std::vector<int64_t> label_vector(const Split& split) {
  if (split.size() == 0) return {};
  const auto labels = split.labels.to(torch::kInt64).contiguous();
  const auto* y = labels.data_ptr<int64_t>();
  return std::vector<int64_t>(y, y + labels.size(0));
}

RunData prepare_run_data(const DatasetInfo& info, const RawData& raw, const DataOptions& options) {
  RunData data = split_run_data(info, raw, options.split);
  add_noise(data, options.noise);
  return data;
}

RunData split_run_data(const DatasetInfo& info, const RawData& raw, const SplitOptions& split) {
  const SplitPlan plan = plan_splits(info, label_vector(raw.train), label_vector(raw.test), split, raw.notes);
  RunData data;
  data.info = info;
  data.add_notes(raw);
  data.add_notes(plan);
  const auto pool = [&](const PlannedSplit& s) -> const Split& { return s.pool == SourceSplit::Train ? raw.train : raw.test; };
  data.train = take(pool(plan.train), plan.train.indices);
  data.val = take(pool(plan.val), plan.val.indices);
  data.test = take(pool(plan.test), plan.test.indices);
  return data;
}

}  // namespace repro
