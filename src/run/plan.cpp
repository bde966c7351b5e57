#include "run/plan.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "data/registry.h"
#include "models/param_count.h"
#include "record/folder.h"
#include "record/json_fields.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "record/task_plan.h"
#include "spec/options.h"
#include "spec/run_spec.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

// Text models are checked with this vocabulary size: any size builds the same layers.
constexpr int64_t kPlaceholderVocabulary = 64;

// What a model needs from its dataset, known without reading data.
DatasetInfo shape_without_data(const PlannedRun& run) {
  DatasetInfo info = find_dataset(run.dataset).info();
  if (info.modality == Modality::Text) {
    info.vocab_size = kPlaceholderVocabulary;
    info.max_length = run.options.text.max_len;
  }
  return info;
}

// model.max_len sizes the position table; shorter than the tokens the model sees, it cannot be honoured.
void check_max_len(const ModelOptions& model, const DatasetInfo& info) {
  if (model.max_len == 0) return;  // exactly the positions needed
  const auto text = [](int64_t n) { return std::to_string(n); };
  if (model.kind == ModelKind::Vit) {
    const int64_t tokens = (info.height / model.patch) * (info.width / model.patch) + 1;
    if (model.max_len < tokens)
      throw Error("model.max_len=" + text(model.max_len) + " is shorter than the " + text(tokens) +
                  " tokens of a ViT with model.patch=" + text(model.patch) + " on " + info.name + "'s " +
                  text(info.height) + "x" + text(info.width) + " images (patches + the class token); expected 0 " +
                  "(exactly the tokens needed) or at least " + text(tokens));
  } else if (model.max_len < info.max_length) {
    throw Error("model.max_len=" + text(model.max_len) + " is shorter than text.max_len=" + text(info.max_length) +
                " (the tokens of a batch of " + info.name + "); expected 0 (text.max_len) or at least " +
                text(info.max_length));
  }
}

}  // namespace

void validate_plan(const std::vector<PlannedRun>& runs) {
  for (const auto& run : one_per_configuration(runs)) {
    try {
      const ModelOptions& model = run.options.model;
      const DatasetInfo info = shape_without_data(run);
      count_parameters(model, info);  // build_model's checks, from the options: nothing is allocated
      check_max_len(model, info);
    } catch (const std::exception& e) {
      throw Error(run.blame(error_text(e)));
    }
  }
}

std::optional<std::string> memory_refusal(const std::vector<PlannedRun>& runs, const MemoryBudget& memory, int lanes) {
  if (memory.bytes == 0) return std::nullopt;  // the machine does not say
  const auto gib = [](double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(uint64_t(1) << 30));
    return std::string(text);
  };
  for (const auto& run : one_per_configuration(runs)) {
    const int64_t params = count_parameters(run.options.model, shape_without_data(run)).total;
    const int64_t needed = training_state_bytes(params) * std::max(1, lanes);
    if (static_cast<uint64_t>(needed) <= memory.bytes) continue;
    return run.origin + " on " + run.dataset + ": " + std::to_string(params) + " parameters (" +
           format_millions(params) + ") need " + gib(static_cast<double>(needed)) + " to train" +
           (lanes > 1 ? " " + std::to_string(lanes) + " at once (--lanes)" : std::string()) +
           " (float32 weights, their gradients and AdamW's two moments: 16 bytes a parameter, before "
           "activations" +
           (shape_without_data(run).modality == Modality::Text ? " and with a 64-word placeholder vocabulary" : "") +
           "), more than the " + gib(static_cast<double>(memory.bytes)) + " of " + memory.where +
           ". Nothing was allocated; make the model smaller (model.dim, model.depth, model.ffn.ratio)" +
           (lanes > 1 ? std::string(", use fewer --lanes,") : std::string()) + " or train it where it fits";
  }
  return std::nullopt;
}

namespace {

// The state summary.json records when the run is finished (complete or diverged); nullopt when it has none or
// records a failed run (retried). A record that cannot be read (damaged, of a newer repro, a folder or a FIFO of its
// name) is neither taken for a finished run nor trained over: refused, naming it and the way to keep it.
std::optional<RunState> finished_state(const RunFolder& folder) {
  const std::filesystem::path path = folder.summary_path();
  std::optional<RunRecord> record;
  try {
    std::error_code ec;  // anything of that name, a dangling link included
    if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) record = read_run_record(path);
  } catch (const Error& e) {
    throw Error(error_text(e) + ". Nothing was overwritten: repro run never trains over a record it cannot read; " +
                "to keep it and train the run again, move it away (mv " + path.string() + " " + path.string() +
                ".unread), or read it with the repro that wrote it");
  }
  if (record && is_finished(record->status)) return record->status;
  return std::nullopt;
}

}  // namespace

std::string record_without_spec(const RunFolder& folder) {
  std::error_code ec;
  const auto present = [&](const std::filesystem::path& path) {
    return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
  };
  if (present(folder.spec_path())) return "";
  for (const auto& record : {folder.summary_path(), folder.model_path()})
    if (present(record)) return record.filename().string();
  return "";
}

std::vector<SettingChange> settings_changed_in(const PlannedRun& run, const RunFolder& folder) {
  if (!std::filesystem::exists(folder.spec_path())) return {};
  const std::string existing = read_regular_file(folder.spec_path(), kSpecBytes, "a run's spec.resolved.yaml");
  return existing == run.resolved_yaml() ? std::vector<SettingChange>{}
                                         : changed_settings(existing, run.resolved_yaml());
}

std::string other_spec_text(const std::vector<SettingChange>& changes) {
  return "a run of a different spec (" + changes_text(changes) + ")";
}

std::vector<RunState> check_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out) {
  std::vector<RunState> statuses;
  for (const auto& run : runs) {
    const RunFolder folder(out / run.dir());
    if (const std::string record = record_without_spec(folder); !record.empty())
      throw Error(folder.spec_path().string() + " is missing beside the run's " + record +
                  ": which settings trained it cannot be told. Nothing was overwritten: repro run never trains over "
                  "a record; put the spec back, or move the folder away to train the run again (mv " +
                  folder.dir().string() + " " + folder.dir().string() + ".unread)");
    if (!std::filesystem::exists(folder.spec_path())) {
      statuses.push_back(RunState::Pending);
      continue;
    }
    const auto changes = settings_changed_in(run, folder);
    if (!changes.empty())
      throw Error(folder.dir().string() + " holds " + other_spec_text(changes) + ". Nothing was overwritten. " +
                  keep_both_advice(changes));
    const std::optional<RunState> recorded = finished_state(folder);
    if (recorded)
      statuses.push_back(*recorded);
    else if (std::filesystem::exists(folder.checkpoint_path()))
      statuses.push_back(RunState::Resumable);
    else
      statuses.push_back(RunState::Pending);
  }
  return statuses;
}

namespace {

// The entries of an earlier plan.json of this experiment that this command's selection does not cover: another
// column (--datasets), row (--rows), seed (sweep --seeds) or configuration (sweep --set) planned by another
// command. None when the command plans the whole grid or the plan cannot be read.
std::vector<PlanEntry> entries_outside(const Experiment& experiment, const std::vector<PlannedRun>& runs,
                                       const std::filesystem::path& path) {
  std::vector<PlanEntry> kept;
  if (!experiment.is_selection() || !std::filesystem::exists(path)) return kept;
  std::set<std::string> planned_dirs;
  std::map<std::string, int64_t> planned_configurations;  // -> row_index (sweeps shift it: other seeds take this one)
  for (const auto& run : runs)
    planned_dirs.insert(run.subdir()), planned_configurations.emplace(run.model_config, run.row_index);
  const auto outside = [&](const PlanEntry& entry) {
    const std::string& row = entry.row.empty() ? entry.model_config : entry.row;
    return !experiment.dataset_selected(entry.dataset) || !experiment.row_selected(row) ||
           !experiment.seed_selected(entry.seed) ||
           (experiment.axes_selected && !planned_configurations.count(entry.model_config));
  };
  try {
    const PlanRecord earlier = read_plan_record(path);
    if (earlier.experiment != experiment.name || earlier.profile != experiment.profile) return kept;
    for (PlanEntry entry : earlier.runs) {
      if (planned_dirs.count(entry.dir_in_plan()) || !outside(entry)) continue;
      if (const auto it = planned_configurations.find(entry.model_config); it != planned_configurations.end())
        entry.row_index = it->second;
      kept.push_back(entry);
    }
  } catch (const std::exception& e) {
    spdlog::warn("{}: not readable ({}): rewritten with this command's runs only", path.string(), e.what());
  }
  return kept;
}

}  // namespace

void write_plan(const Experiment& experiment, const std::vector<PlannedRun>& runs, const std::filesystem::path& out) {
  const std::filesystem::path path = plan_path_in(out / experiment.folder());
  sweep_stale_temp_files(path.parent_path());  // plan.json.tmp-PID of a process killed in its rename
  PlanRecord plan{experiment.name,        experiment.profile,         experiment.source_file,
                  experiment.description, experiment.report_baseline, entries_outside(experiment, runs, path)};
  for (const auto& run : runs) {
    PlanEntry entry;
    entry.id() = run.id();
    entry.row_index = run.row_index;
    plan.runs.push_back(entry);
  }
  // Grid order (rows, then datasets in the spec's order, then seeds), however the plan was assembled.
  const auto order = [&](const PlanEntry& entry) {
    const auto& names = experiment.datasets;
    return std::make_tuple(entry.row_index, std::find(names.begin(), names.end(), entry.dataset) - names.begin(),
                           entry.seed);
  };
  std::stable_sort(plan.runs.begin(), plan.runs.end(),
                   [&](const PlanEntry& a, const PlanEntry& b) { return order(a) < order(b); });
  write_plan_record(path, plan);
}

std::string describe_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out, DataLoader& loader) {
  std::ostringstream text;
  const Config defaults = Config::defaults();
  std::map<std::string, std::vector<int64_t>> seeds;  // config|dataset -> seeds
  std::vector<const PlannedRun*> firsts;
  for (const auto& run : runs) {
    const std::string key = run.model_config + "|" + run.dataset;
    if (!seeds.count(key)) firsts.push_back(&run);
    seeds[key].push_back(run.seed);
  }
  text << runs.size() << " runs in " << firsts.size() << " model configuration x dataset pairs\n";
  for (const PlannedRun* run : firsts) {
    const auto params = count_parameters(run->options.model, loader.model_info(run->dataset, run->options));
    std::vector<std::string> seed_text;
    for (auto s : seeds[run->model_config + "|" + run->dataset]) seed_text.push_back(std::to_string(s));
    text << "\n"
         << run->model_config << " on " << run->dataset << ": " << params.total << " parameters ("
         << format_millions(params.total) << "), seeds " << join(seed_text, ",") << "\n";
    for (const auto& key : run->config.differences(defaults))
      text << "  " << key << " = " << run->config.text(key) << "\n";
    text << "  folders: " << (out / run->dir()).parent_path().string() << "/seed_*\n";
  }
  return text.str();
}

std::vector<const PlannedRun*> Plan::selected() const {
  std::vector<const PlannedRun*> out;
  for (const size_t i : positions) out.push_back(&runs[i]);
  return out;
}

std::vector<size_t> Plan::to_train() const {
  std::vector<size_t> out;
  for (size_t k = 0; k < positions.size(); ++k)
    if (states.empty() || !is_finished(states[k])) out.push_back(positions[k]);
  return out;
}

int Plan::finished() const {
  return static_cast<int>(std::count_if(states.begin(), states.end(), [](RunState s) { return is_finished(s); }));
}

namespace {

std::vector<PlannedRun> copies(const std::vector<const PlannedRun*>& runs) {
  std::vector<PlannedRun> out;
  for (const auto* run : runs) out.push_back(*run);
  return out;
}

}  // namespace

Plan plan_grid(const Experiment& experiment, std::optional<int64_t> only) {
  Plan plan;
  plan.runs = expand_grid(experiment, dataset_catalog());  // throws when two runs would share a folder
  plan.spec_file = experiment.source_file;
  if (only && (*only < 0 || *only >= static_cast<int64_t>(plan.runs.size())))
    throw Error("--index " + std::to_string(*only) + ": the plan of " + experiment.folder() + " has " +
                std::to_string(plan.runs.size()) + " runs (positions 0-" + std::to_string(plan.runs.size() - 1) + ")");
  for (size_t i = 0; i < plan.runs.size(); ++i)
    if (!only || static_cast<int64_t>(i) == *only) plan.positions.push_back(i);
  validate_plan(copies(plan.selected()));  // every model this command trains is built before the first one trains
  return plan;
}

namespace {

// A swept configuration whose settings equal those of the row's plain run already in --out (`vanilla+lr=0.001`
// beside `vanilla`, trained before the sweep, whose lr is 1e-3) is that run: it takes the plain run's folder (its
// model_config becomes the row's name, its row and sweep values stay), so it is neither trained again nor listed
// twice, and the report finds it at its sweep values.
void adopt_plain_runs(Plan& plan, const std::filesystem::path& out) {
  std::set<std::string> planned;
  for (const auto& run : plan.runs) planned.insert(run.dir());
  for (const size_t i : plan.positions) {
    PlannedRun& run = plan.runs[i];
    if (run.sweep.empty() || run.model_config == run.row) continue;
    RunId plain = run.id();
    plain.model_config = run.row;
    const RunFolder folder(out / plain.dir());
    if (planned.count(plain.dir()) || !std::filesystem::exists(folder.spec_path())) continue;
    try {
      const RunSpec existing = read_run_spec(folder.spec_path());
      if (existing.id() != plain || existing.config.to_yaml() != run.config.to_yaml()) continue;
    } catch (const std::exception&) {  // a damaged resolved spec: check_plan names it for the plain run's own plan
      continue;
    }
    spdlog::info("{}: its settings are those of the run in {}: that run stands for it (not trained again)",
                 run.model_config, folder.dir().string());
    planned.insert(plain.dir());
    run.model_config = run.row;
  }
}

}  // namespace

void check_plan(Plan& plan, const std::filesystem::path& out) {
  adopt_plain_runs(plan, out);
  plan.states = check_plan(copies(plan.selected()), out);
}

namespace {

// A frozen plan trains into the --out it was frozen under: its tasks.json lies in <out>/<experiment>[/<profile>]/
// (slurm/<stamp>/ or jobs/<pid>/). Given another --out, a task would train every run elsewhere, beside no plan.json.
void check_task_out(const std::filesystem::path& tasks_file, const TaskPlan& tasks, const std::filesystem::path& out) {
  const std::filesystem::path folder = out / RunId::folder_of(tasks.experiment, tasks.profile);
  std::error_code ec;
  const auto file = std::filesystem::weakly_canonical(tasks_file, ec);
  const auto root = std::filesystem::weakly_canonical(folder, ec);
  if (ec || std::mismatch(root.begin(), root.end(), file.begin(), file.end()).first != root.end())
    throw Error("--tasks " + tasks_file.string() + ": not below " + folder.string() + "/, where --out " + out.string() +
                " keeps the runs of " + folder.lexically_relative(out).string() +
                ": a task trains into the --out it was frozen under (repro launch slurm's task script gives it); "
                "give that --out");
}

}  // namespace

Plan plan_of_task(const std::filesystem::path& tasks_file, int64_t index, const std::filesystem::path& out) {
  std::error_code ec;
  if (std::filesystem::is_symlink(tasks_file, ec))  // its target lies elsewhere: "not below --out" misled
    throw Error("--tasks " + tasks_file.string() + ": a symbolic link (to " + link_target(tasks_file) +
                "); a task reads the tasks.json repro wrote, in its launch folder: give that file");
  const TaskPlan tasks = read_task_plan(tasks_file);
  check_task_out(tasks_file, tasks, out);
  Plan plan;
  plan.spec_file = tasks.spec_file;
  for (const TaskEntry& entry : tasks.task(index, tasks_file)) {
    const std::string source = tasks_file.string() + " (the run at position " + std::to_string(entry.position) + ")";
    PlannedRun run;
    run.config = parse_run_spec(entry.resolved_spec, source).config;
    run.id() = entry.id();
    run.position = entry.position;
    run.row_index = static_cast<int>(entry.row_index);
    run.origin = source + ": model configuration '" + entry.model_config + "'";
    try {
      run.options = run_options(run.config);
    } catch (const Error& e) {
      throw Error(run.origin + " on " + run.dataset + ": " + e.what());
    }
    if (run.resolved_yaml() != entry.resolved_spec)  // what the task trains is exactly what was frozen
      throw Error(source + ": its resolved spec does not read back to the same text (written by another repro?)");
    plan.positions.push_back(plan.runs.size());
    plan.runs.push_back(std::move(run));
  }
  validate_plan(plan.runs);
  check_plan(plan, out);
  return plan;
}

void freeze_tasks(const std::filesystem::path& path, const std::vector<const PlannedRun*>& runs,
                  const std::string& spec_file, int64_t runs_per_task) {
  if (runs.empty()) throw Error("internal: no runs to freeze into " + path.string());
  TaskPlan tasks;
  tasks.experiment = runs.front()->experiment, tasks.profile = runs.front()->profile;
  tasks.spec_file = spec_file;
  tasks.runs_per_task = runs_per_task;
  for (const auto* run : runs) {
    TaskEntry entry;
    entry.id() = run->id();
    entry.row_index = run->row_index;
    entry.position = run->position;
    entry.resolved_spec = run->resolved_yaml();
    tasks.runs.push_back(std::move(entry));
  }
  write_task_plan(path, tasks);
}

}  // namespace repro
