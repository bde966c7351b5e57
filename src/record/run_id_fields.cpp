#include "record/run_id_fields.h"

#include <cstdlib>

#include "record/json_fields.h"
#include "util/error.h"

namespace repro {

using nlohmann::json;

namespace {

// A run's sweep values: [[label, value], ...].
json sweep_json(const SweepValues& sweep) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [label, value] : sweep) pairs.push_back({label, value});
  return pairs;
}

// The pairs under `key`; empty when absent; throws RecordError on anything but a list of two-text lists.
SweepValues read_sweep_values(const JsonFields& fields, const std::string& key) {
  SweepValues sweep;
  if (!fields.has(key)) return sweep;
  const nlohmann::json& pairs = fields.required(key);
  if (!pairs.is_array()) fields.wrong(key, pairs, "expected a list of [axis label, value] pairs");
  for (const auto& pair : pairs) {  // [[label, value], ...]
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      fields.wrong(key, pairs, "expected a list of [axis label, value] pairs");
    sweep.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  return sweep;
}

std::string id_text_field(const JsonFields& in, const std::string& key, Presence presence) {
  return presence == Presence::Required ? in.text(key) : in.optional_text(key).value_or("");
}

}  // namespace

void write_run_id(json& out, const RunId& id, const RunIdFields& fields) {
  if (fields.experiment != Presence::Absent) out["experiment"] = id.experiment;
  if (fields.profile != Presence::Absent) out["profile"] = id.profile;
  if (fields.run != Presence::Absent) {
    out["model_config"] = id.model_config;
    out["dataset"] = id.dataset;
    out["seed"] = id.seed;
  }
  if (fields.row != Presence::Absent) {
    out["row"] = id.row;
    out["sweep"] = sweep_json(id.sweep);
  }
}

json run_id_json(const RunId& id, const RunIdFields& fields) {
  json out = json::object();
  write_run_id(out, id, fields);
  return out;
}

void read_run_id(const JsonFields& in, RunId& id, const RunIdFields& fields) {
  if (fields.experiment != Presence::Absent) id.experiment = id_text_field(in, "experiment", fields.experiment);
  if (fields.profile != Presence::Absent) id.profile = id_text_field(in, "profile", fields.profile);
  if (fields.run != Presence::Absent) {
    id.model_config = id_text_field(in, "model_config", fields.run);
    id.dataset = id_text_field(in, "dataset", fields.run);
    id.seed = fields.run == Presence::Required ? in.integer("seed") : in.optional_integer("seed").value_or(0);
  }
  if (fields.row != Presence::Absent) {
    id.row = id_text_field(in, "row", fields.row);
    id.sweep = read_sweep_values(in, "sweep");
  }
}

std::string run_id_yaml_header(const RunId& id) {
  std::string out = "experiment: " + id.experiment + "\n";
  if (!id.profile.empty()) out += "profile: " + id.profile + "\n";
  out += "model_config: \"" + id.model_config + "\"\n";
  out += "dataset: " + id.dataset + "\n";
  out += "seed: " + std::to_string(id.seed) + "\n";
  return out;
}

bool is_run_id_field(const std::string& name) {
  return name == "experiment" || name == "profile" || name == "model_config" || name == "dataset" || name == "seed";
}

void read_run_id_line(RunId& id, const std::string& name, const std::string& value, const std::string& where) {
  const auto unquote = [](const std::string& text) {
    return text.size() >= 2 && text.front() == '"' && text.back() == '"' ? text.substr(1, text.size() - 2) : text;
  };
  if (name == "experiment") id.experiment = value;
  if (name == "profile") id.profile = value;
  if (name == "model_config") id.model_config = unquote(value);
  if (name == "dataset") id.dataset = value;
  if (name == "seed") {
    char* end = nullptr;
    id.seed = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') throw Error(where + ": seed: expected a whole number, got '" + value + "'");
  }
}

}  // namespace repro
