#pragma once
// A run's identity, declared once: the experiment (and budget profile), the dataset, the model configuration (the
// spec row plus its sweep values) and the seed. Every struct that names a run (the planned run, plan.json's
// entries, summary.json, eval records, SLURM manifest rows, the report's results) derives from RunId, so these
// fields exist in one place, with one folder layout and one text key:
//   dir():  <experiment>[/<profile>]/<dataset>/<model_config made folder-safe>/seed_<k>   (relative to --out)
//   key():  <experiment>[/<profile>]/<dataset>/<model_config>/seed_<k>                    (model.pt's owner, maps)
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace repro {

// A model configuration's sweep values: (axis label, value) in axis order, e.g. {("ffn.ratio", "4")}.
using SweepValues = std::vector<std::pair<std::string, std::string>>;

struct RunId {
  std::string experiment;
  std::string profile;  // the budget profile ("" = none): its runs live in <experiment>/<profile>/
  std::string dataset;
  std::string model_config;  // the row's name plus its sweep values: "DGViT+ffn.ratio=4"
  std::string row;           // the spec row ("" in records written before 0.7.1)
  SweepValues sweep;         // its sweep values (empty: none, or a record before 0.7.1)
  int64_t seed = 0;

  // The row's name with its sweep values appended: what model_config holds for a run planned today.
  static std::string compose_model_config(const std::string& row, const SweepValues& sweep);

  // <experiment>[/<profile>]: the experiment's folder inside --out or a results folder.
  std::string folder() const { return folder_of(experiment, profile); }
  // The one spelling of <experiment>[/<profile>] (folders, tables, messages), for code that holds the two alone.
  static std::string folder_of(const std::string& experiment, const std::string& profile);
  // <dataset>/<model_config made folder-safe>/seed_<k>: inside the experiment's folder.
  std::string subdir() const;
  // folder()/subdir(): the run folder relative to --out.
  std::string dir() const { return folder() + "/" + subdir(); }
  // The one text form of the identity (unique per run, stable across versions: model.pt records it).
  std::string key() const;
  // "DGViT+ffn.ratio=4 on fashion_mnist, seed 2": for messages.
  std::string describe() const;
  // The identity this struct holds, as a RunId (for code that takes one from a struct that derives from it).
  const RunId& id() const { return *this; }
  RunId& id() { return *this; }

  // What a run folder's path says of its identity: <dataset>/<model_config>/seed_<k> are its last three
  // components (model_config as the folder-safe name, row = model_config, no sweep values); experiment and
  // profile are given by the caller, who knows the experiment folder. nullopt when the last component is not
  // seed_<k>.
  static std::optional<RunId> from_dir(const std::filesystem::path& run_dir, const std::string& experiment,
                                       const std::string& profile);
};

bool operator==(const RunId& a, const RunId& b);
inline bool operator!=(const RunId& a, const RunId& b) { return !(a == b); }

}  // namespace repro
