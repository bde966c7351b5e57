#pragma once
// An experiment spec file: the base settings, the rows (model configurations),
// datasets, seeds and sweep axes; plus command-line overrides and axes.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "record/run_id.h"

namespace repro {

struct Setting {
  std::string key;    // dotted, e.g. "model.ffn.ratio"
  std::string raw;    // the value as written
  std::string where;  // "file.yaml:12" or "override 'k=v'"
};

struct ModelRow {
  std::string name;
  std::vector<Setting> settings;
  std::string where;  // "file.yaml:12" of its `name:`, or the file for the one unnamed row
};

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
  std::string where;
};

// (dataset name, "file:line") of every dataset a spec names: in `datasets`, a
// profile's `datasets` or `per_dataset`. expand_grid checks them against the catalog.
using DatasetMentions = std::vector<std::pair<std::string, std::string>>;

struct Experiment {
  std::string name;
  std::string source_file;
  std::string description;
  std::vector<Setting> base;   // the file's model/data/train sections
  std::vector<ModelRow> rows;  // `models:`; one unnamed row when absent
  std::vector<std::string> datasets;
  DatasetMentions dataset_mentions;  // every dataset name in the file, with its place
  std::vector<int64_t> seeds;
  std::string seeds_where;                                  // where `seeds` were given (for messages)
  std::vector<SweepAxis> axes;                              // `sweep:` and `--set`
  std::map<std::string, std::vector<Setting>> per_dataset;  // `per_dataset:` settings for one dataset
  struct Profile {
    std::vector<Setting> settings;
    std::vector<std::string> datasets;  // replaces the spec's when not empty
    std::vector<int64_t> seeds;         // likewise
    std::string seeds_where;            // where the profile's seeds were given
  };
  std::map<std::string, Profile> profiles;  // `profiles:` budget overlays by name
  std::string profile;                      // the chosen one (--profile), or ""
  std::vector<Setting> overrides;           // `key=value` on the command line, applied last
  // --datasets / --rows: only these columns / rows of the grid are planned (empty = all). Rows keep their
  // position (row_index) in the spec, so a table assembled column by column keeps the spec's row order.
  std::vector<std::string> selected_datasets, selected_rows;
  // `repro sweep --seeds` / `--set`: this command plans these seeds / these axis values only. Like --datasets and
  // --rows they make the command a selection: an earlier plan's runs of other seeds or configurations stay planned.
  bool seeds_selected = false, axes_selected = false;
  // `report: {baseline: ROW}`: the row `repro report --stats` compares the others with ("" = the first row);
  // a report setting, so not part of any run's spec (changing it re-runs nothing).
  std::string report_baseline;

  // Runs live in <out>/<folder()>: the experiment's name, plus /<profile> when one is chosen.
  std::string folder() const { return RunId::folder_of(name, profile); }
  // Chooses a profile; throws naming the spec and the profiles it has.
  void choose_profile(const std::string& name);
  // Keeps only these datasets (after the profile's) and rows of the grid; throws naming the option, the name
  // and what the spec has. Call after choose_profile.
  void select(const std::vector<std::string>& datasets, const std::vector<std::string>& rows);
  bool is_selection() const {
    return !selected_datasets.empty() || !selected_rows.empty() || seeds_selected || axes_selected;
  }
  bool dataset_selected(const std::string& dataset) const;
  bool row_selected(const std::string& row_name) const;
  bool seed_selected(int64_t seed) const;  // true unless --seeds chose others
};

// Parses and validates a spec file (every key and value is checked here, so a
// bad spec fails before any training starts).
Experiment load_experiment(const std::string& path);

// "k=v" -> Setting; throws naming the argument when it has no '='.
Setting parse_override(const std::string& argument);
// "model.ffn.ratio=2,4,16/3" -> axis with three values.
SweepAxis parse_axis(const std::string& argument);
// "0-4" -> 0..4, "1,3" -> {1, 3}, "7" -> {7}; throws naming `where` when empty or malformed.
// Duplicates are kept: the grid's run-identity check names them.
std::vector<int64_t> parse_seeds(const std::string& text, const std::string& where);

}  // namespace repro
