#include "report/tables/select.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "report/tables/stats.h"
#include "spec/grid.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const EnumNames<SelectOn>& enum_names(SelectOn) {
  static const EnumNames<SelectOn> names = {{SelectOn::Mean, "mean"}, {SelectOn::Seed, "seed"}};
  return names;
}

namespace {

const std::vector<Metric> kSelectable = {Metric::ValAcc, Metric::ValLoss, Metric::TrainAcc, Metric::TrainLoss};

std::vector<std::string> selectable_names() {
  std::vector<std::string> names;
  for (const Metric m : kSelectable) names.push_back(name_of(m));
  return names;
}

}  // namespace

void check_select_metric(Metric by) {
  if (std::find(kSelectable.begin(), kSelectable.end(), by) != kSelectable.end()) return;
  if (by == Metric::TestAcc || by == Metric::TestLoss)
    throw Error("--by " + name_of(by) +
                ": choosing on the test set biases the test metric the table reports; "
                "choose on val_acc or val_loss (runs need data.val_fraction > 0)");
  throw Error("--by: got '" + name_of(by) + "', expected one of " + join(selectable_names(), " | "));
}

Metric select_metric(const std::string& by) {
  for (const Metric m : epoch_metrics())
    if (name_of(m) == by) {
      check_select_metric(m);
      return m;
    }
  throw Error("--by: got '" + by + "', expected one of " + join(selectable_names(), " | "));
}

namespace {

using Sweep = std::vector<std::pair<std::string, std::string>>;

// The experiment's axis labels in plan order.
std::vector<std::string> axes_of(const ExperimentResults& results) {
  std::vector<std::string> labels;
  for (const auto& run : results.runs)
    for (const auto& [label, value] : run.sweep)
      if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
  return labels;
}

// A full key or its label -> the label (spec/grid.h: axis_label).
std::string resolve_axis(const std::string& given, const std::vector<std::string>& labels,
                         const ExperimentResults& results) {
  if (std::find(labels.begin(), labels.end(), given) != labels.end()) return given;
  if (std::find(labels.begin(), labels.end(), axis_label(given)) != labels.end()) return axis_label(given);
  const std::string table = results.heading.empty() ? results.name : results.heading;
  if (labels.empty())
    throw Error("--select " + given + ": experiment '" + table +
                "' has no sweep axes in its plan.json (a spec without `sweep:`/--set, or a plan written before "
                "repro recorded sweep values: rerun the sweep command to rewrite plan.json; finished runs are kept)");
  throw Error("--select " + given + ": not a sweep axis of experiment '" + table +
              "' (its axes: " + join(labels, ", ") + ")");
}

bool is_selected(const std::string& label, const std::vector<std::string>& selected) {
  return std::find(selected.begin(), selected.end(), label) != selected.end();
}

// The collapsed row: the spec row plus the axes not selected; and the chosen values' text.
std::string collapsed_name(const RunResult& run, const std::vector<std::string>& selected) {
  std::string name = run.row.empty() ? run.model_config : run.row;
  for (const auto& [label, value] : run.sweep)
    if (!is_selected(label, selected)) name += "+" + label + "=" + value;
  return name;
}

std::string chosen_values(const RunResult& run, const std::vector<std::string>& selected) {
  std::vector<std::string> parts;
  for (const auto& [label, value] : run.sweep)
    if (is_selected(label, selected)) parts.push_back(label + "=" + value);
  return join(parts, ", ");
}

std::string key(const std::string& config, const std::string& dataset, int64_t seed) {
  return config + "|" + dataset + "|" + std::to_string(seed);
}

// One collapsed row on one dataset: its candidates (model configurations, spec order) and their runs.
struct Group {
  std::string row, dataset;
  int row_index = 0;
  std::vector<std::string> candidates;
  std::map<std::string, std::vector<const RunResult*>> runs;  // candidate -> reported runs
};

struct Chooser {
  const std::map<std::string, const RunResult*>& by_runs;  // key() -> the run in the METRIC collection
  bool lower_is_better;

  // The METRIC of a candidate's run on a seed; NaN unless complete.
  double metric(const std::string& candidate, const std::string& dataset, int64_t seed) const {
    const auto it = by_runs.find(key(candidate, dataset, seed));
    return it != by_runs.end() && is_counted(*it->second) ? it->second->value : NAN;
  }
  bool better(double a, double b) const { return std::isnan(b) || (lower_is_better ? a < b : a > b); }
};

std::vector<Group> groups_of(const ExperimentResults& reported, const std::vector<std::string>& selected) {
  std::vector<Group> groups;
  for (const auto& run : reported.runs) {
    const std::string row = collapsed_name(run, selected);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.row == row && g.dataset == run.dataset; });
    if (it == groups.end()) {
      groups.push_back({row, run.dataset, run.row_index, {}, {}});
      it = groups.end() - 1;
    }
    if (!it->runs.count(run.model_config)) it->candidates.push_back(run.model_config);
    it->runs[run.model_config].push_back(&run);
  }
  return groups;
}

std::optional<double> number_of(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The selected axes on which `chosen` took the smallest or largest number the group tried: the best value may lie
// outside the grid (issue 48). Axes whose values are not all numbers have no edge.
std::vector<std::string> edges_of(const Group& g, const RunResult& chosen, const std::vector<std::string>& selected) {
  std::vector<std::string> edges;
  for (const auto& [label, value] : chosen.sweep) {
    if (!is_selected(label, selected)) continue;
    std::vector<std::pair<double, std::string>> tried;
    bool numbers = true;
    for (const auto& candidate : g.candidates)
      for (const auto& [other_label, other_value] : g.runs.at(candidate).front()->sweep)
        if (other_label == label) {
          const auto number = number_of(other_value);
          numbers = numbers && number.has_value();
          if (number) tried.emplace_back(*number, other_value);
        }
    if (!numbers) continue;
    std::sort(tried.begin(), tried.end());
    tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
    if (tried.size() < 2) continue;
    std::vector<std::string> texts;
    for (const auto& t : tried) texts.push_back(t.second);
    const std::string of = " of " + join(texts, ", ");
    if (value == tried.front().second) edges.push_back(label + "=" + value + ", the smallest" + of);
    if (value == tried.back().second) edges.push_back(label + "=" + value + ", the largest" + of);
  }
  return edges;
}

// A run as the collapsed table shows it: its row the group's, its sweep without the selected axes.
RunResult collapsed_run(const RunResult& run, const Group& group, const std::vector<std::string>& selected) {
  RunResult out = run;
  out.model_config = group.row;
  out.row_index = group.row_index;
  out.sweep.clear();
  for (const auto& entry : run.sweep)
    if (!is_selected(entry.first, selected)) out.sweep.push_back(entry);
  return out;
}

// A shown run without any candidate's METRIC: its cell says so (not the reported metric, which it may have).
void mark_nothing_to_choose_on(RunResult& shown, Metric by) {
  if (!is_counted(shown)) return;
  shown.gap = MetricGap::NoMetric;
  shown.missing = name_of(by) + " to select on";
}

// The bad records (corrupt, inconsistent, link) among a candidate's runs: they are listed under the table, as the plain
// report lists them, whether or not the candidate is chosen.
void keep_bad(const std::vector<const RunResult*>& runs, std::vector<RunResult>& out) {
  for (const RunResult* run : runs)
    if (is_bad_record(*run)) out.push_back(*run);
}

// mean: the candidate with the best mean METRIC over its complete seeds; all its runs go into the cell. A candidate
// judged on fewer seeds than it has (a record corrupt or unfinished) is named with its n.
void choose_on_mean(const Group& g, const Chooser& chooser, const std::vector<std::string>& selected, Metric by,
                    Selection& out) {
  Choice choice{g.row, g.dataset, -1, "", NAN, 0, static_cast<int>(g.candidates.size())};
  const std::string* best = nullptr;
  for (const auto& candidate : g.candidates) {
    std::vector<double> values;
    const auto& runs = g.runs.at(candidate);
    for (const RunResult* run : runs) {
      const double v = chooser.metric(candidate, g.dataset, run->seed);
      if (!std::isnan(v)) values.push_back(v);
    }
    if (values.empty()) continue;
    ++choice.candidates;
    if (values.size() < runs.size())
      choice.short_of_seeds.push_back(chosen_values(*runs.front(), selected) + ": " + std::to_string(values.size()) +
                                      " of " + std::to_string(runs.size()) + " seeds");
    const double m = mean(values);
    if (chooser.better(m, choice.by_value))
      choice.by_value = m, best = &candidate, choice.n = static_cast<int>(values.size());
  }
  const std::string& chosen = best ? *best : g.candidates.front();
  if (best) {
    choice.values = chosen_values(*g.runs.at(chosen).front(), selected);
    choice.at_edge = edges_of(g, *g.runs.at(chosen).front(), selected);
  }
  for (const auto& candidate : g.candidates)
    if (candidate != chosen) keep_bad(g.runs.at(candidate), out.unchosen_bad);
  for (const RunResult* run : g.runs.at(chosen)) {
    RunResult shown = collapsed_run(*run, g, selected);
    if (!best) mark_nothing_to_choose_on(shown, by);
    out.results.runs.push_back(shown);
  }
  out.choices.push_back(choice);
}

// seed: on each seed, the candidate with the best METRIC on that seed.
void choose_per_seed(const Group& g, const Chooser& chooser, const std::vector<std::string>& selected, Metric by,
                     Selection& out) {
  std::vector<int64_t> seeds;
  for (const auto& candidate : g.candidates)
    for (const RunResult* run : g.runs.at(candidate))
      if (std::find(seeds.begin(), seeds.end(), run->seed) == seeds.end()) seeds.push_back(run->seed);
  for (const int64_t seed : seeds) {
    Choice choice{g.row, g.dataset, seed, "", NAN, 0, static_cast<int>(g.candidates.size())};
    const RunResult* best = nullptr;
    const RunResult* first = nullptr;
    for (const auto& candidate : g.candidates)
      for (const RunResult* run : g.runs.at(candidate)) {
        if (run->seed != seed) continue;
        if (!first) first = run;
        const double v = chooser.metric(candidate, g.dataset, seed);
        if (std::isnan(v)) continue;
        ++choice.candidates;
        if (chooser.better(v, choice.by_value)) choice.by_value = v, best = run, choice.n = 1;
      }
    const RunResult* shown_run = best ? best : first;
    for (const auto& candidate : g.candidates)
      for (const RunResult* run : g.runs.at(candidate))
        if (run->seed == seed && run != shown_run && is_bad_record(*run)) out.unchosen_bad.push_back(*run);
    RunResult shown = collapsed_run(*shown_run, g, selected);
    if (best) {
      choice.values = chosen_values(*best, selected);
      choice.at_edge = edges_of(g, *best, selected);
    } else
      mark_nothing_to_choose_on(shown, by);
    out.results.runs.push_back(shown);
    out.choices.push_back(choice);
  }
}

}  // namespace

Selection select_axes(const ExperimentResults& reported, const ExperimentResults& by, const SelectOptions& options) {
  check_select_metric(options.by);
  const auto labels = axes_of(reported);
  std::vector<std::string> selected;
  for (const auto& axis : options.axes) selected.push_back(resolve_axis(axis, labels, reported));

  std::map<std::string, const RunResult*> by_runs;
  for (const auto& run : by.runs) by_runs[key(run.model_config, run.dataset, run.seed)] = &run;
  const Chooser chooser{by_runs, lower_is_better(options.by)};

  Selection out;
  out.results = reported;
  out.results.runs.clear();
  out.results.model_configs.clear();
  for (const Group& group : groups_of(reported, selected)) {
    if (options.on == SelectOn::Mean)
      choose_on_mean(group, chooser, selected, options.by, out);
    else
      choose_per_seed(group, chooser, selected, options.by, out);
  }
  for (const auto& run : out.results.runs)
    if (std::find(out.results.model_configs.begin(), out.results.model_configs.end(), run.model_config) ==
        out.results.model_configs.end())
      out.results.model_configs.push_back(run.model_config);
  out.results.selection_note = choices_markdown(out, options, reported.metric);
  return out;
}

namespace {

// The chosen values of a row, or why none: a row without the axis (a reference row beside a sweep, e.g. the Transformer
// beside the bag of words' weight decays) has its one configuration; a row with no candidate had nothing to choose on.
std::string chosen_text(const Choice& c, const std::string& by) {
  if (!c.values.empty()) return c.values;
  return c.candidates > 0 ? "— (not swept)" : "none (no " + by + ")";
}

}  // namespace

std::string choices_markdown(const Selection& selection, const SelectOptions& options, Metric reported) {
  const bool per_seed = options.on == SelectOn::Seed;
  const std::string by = name_of(options.by), metric = name_of(reported);
  std::string out =
      "\nSelected on " + by + " (" + (per_seed ? "per seed: each seed's best value" : "the best mean over seeds") +
      ") among the " + join(options.axes, ", ") + " values of each row; the table above reports " + metric +
      " there.\n\n| row | dataset |" + (per_seed ? " seed |" : "") + " chosen | " + by + (per_seed ? "" : " (mean)") +
      " | n | candidates with " + by + " |\n|---|---|" + (per_seed ? "---|" : "") + "---|---|---|---|\n";
  std::vector<std::string> short_notes, edge_notes;
  for (const auto& c : selection.choices) {
    out += "| " + c.row + " | " + c.dataset + " |" + (per_seed ? " " + std::to_string(c.seed) + " |" : "") + " " +
           chosen_text(c, by) + " | " + (std::isnan(c.by_value) ? "–" : fmt::format("{:.2f}", c.by_value)) + " | " +
           std::to_string(c.n) + " | " + std::to_string(c.candidates) + " of " + std::to_string(c.candidates_total) +
           " |\n";
    for (const auto& note : c.short_of_seeds) short_notes.push_back(c.row + " on " + c.dataset + ", " + note);
    for (const auto& edge : c.at_edge)
      edge_notes.push_back(c.row + " on " + c.dataset + (per_seed ? ", seed " + std::to_string(c.seed) : "") + ": " +
                           edge);
  }
  if (!edge_notes.empty())
    out += "\nChosen at the edge of the values tried (the best may lie beyond them; widen the axis to know):\n- " +
           join(edge_notes, "\n- ") + "\n";
  if (!short_notes.empty())
    out += "\nCandidates judged on fewer seeds than they have (the others lack " + by + "):\n- " +
           join(short_notes, "\n- ") + "\n";
  if (!selection.unchosen_bad.empty()) {
    out += "\nRecords of candidates not chosen, not counted:\n";
    for (const auto& run : selection.unchosen_bad) out += "- " + name_of(run.state) + ": " + run.problem + "\n";
  }
  return out;
}

}  // namespace repro
