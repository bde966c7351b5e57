#pragma once
// A run's identity (record/run_id.h) in the files that carry it, written and read only here: the JSON records
// (summary.json, plan.json's and tasks.json's header and entries, eval/NAME.json's "run") and the header of
// spec.resolved.yaml. No other code spells an identity field (tests/test_records.cpp walks src/ for them).
#include <nlohmann/json.hpp>
#include <string>

#include "record/run_id.h"

namespace repro {

class JsonFields;

// Whether a format holds a group of identity fields: not at all, maybe (records older than the field, or an
// evaluation that names its run as far as it knew it), or always.
enum class Presence { Absent, Optional, Required };

// The identity fields a JSON format holds.
struct RunIdFields {
  Presence experiment = Presence::Required;  // "experiment"
  Presence profile = Presence::Optional;     // "profile" ("" = none)
  Presence run = Presence::Required;         // "model_config", "dataset", "seed"
  Presence row = Presence::Optional;         // "row", and "sweep" (written since 0.7.1; "sweep" may be absent)
};

// The fields `fields` holds, written into the JSON object `out` beside its other fields.
void write_run_id(nlohmann::json& out, const RunId& id, const RunIdFields& fields);
// The same as an object of its own (eval/NAME.json's "run").
nlohmann::json run_id_json(const RunId& id, const RunIdFields& fields);
// The fields `fields` holds, read into `id`: a required one missing or of another type throws RecordError
// naming it, an optional one absent or null reads as "" (a seed as 0, sweep values as none).
void read_run_id(const JsonFields& in, RunId& id, const RunIdFields& fields);

// spec.resolved.yaml's header, its lines before the settings:
//   experiment: E / profile: P (only with a profile) / model_config: "M" / dataset: D / seed: K
std::string run_id_yaml_header(const RunId& id);
// Whether a top-level `name` of spec.resolved.yaml is a field of that header (not a setting).
bool is_run_id_field(const std::string& name);
// A header line `name: value` into `id` (a name that is no header field: nothing); throws repro::Error naming
// `where` when the seed is not a whole number.
void read_run_id_line(RunId& id, const std::string& name, const std::string& value, const std::string& where);

}  // namespace repro
