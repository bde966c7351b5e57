#include "record/eval_record.h"

#include <cmath>

#include "record/json_fields.h"
#include "record/run_id_fields.h"
#include "util/files.h"

namespace repro {

using nlohmann::json;

namespace {

// The evaluated run as far as it was known: its identity without row and sweep values, each field optional.
constexpr RunIdFields kEvalIdFields{Presence::Optional, Presence::Optional, Presence::Optional, Presence::Absent};

json settings_json(const SettingPairs& settings) {
  json out = json::object();
  for (const auto& [key, value] : settings) out[key] = value;
  return out;
}

SettingPairs read_settings(const JsonFields& fields, const std::string& key) {
  SettingPairs out;
  const auto object = fields.optional_object(key);
  if (!object) return out;
  for (const auto& [name, value] : object->raw().items()) out.emplace_back(name, object->text(name));
  return out;
}

EvalPoint read_point(const json& item, const std::filesystem::path& path, size_t index) {
  const JsonFields point(item, path, "points[" + std::to_string(index) + "].");
  EvalPoint p;
  p.label = point.text("label");
  p.overrides = read_settings(point, "overrides");
  p.loss = point.optional_number("loss");
  p.acc = point.optional_number("acc");
  p.examples = point.optional_integer("examples").value_or(0);
  p.partial = point.optional_flag("partial").value_or(false);
  p.notes = point.text_list("notes");
  return p;
}

void read_run(const JsonFields& e, EvalRecord& r) {
  if (const auto run = e.optional_object("run")) {
    read_run_id(*run, r, kEvalIdFields);
  }
  if (const auto file = e.optional_object("model_file")) {
    r.model_file = file->optional_text("file").value_or("");
    r.model_epoch = file->optional_integer("epoch").value_or(0);
    r.model_rule = file->optional_text("rule").value_or("");
  }
}

}  // namespace

std::optional<std::string> EvalPoint::setting(const std::string& key) const {
  for (const auto& [name, value] : overrides)
    if (name == key) return value;
  return std::nullopt;
}

EvalRecord read_eval_record(const std::filesystem::path& path) {
  const json parsed = read_json_object(path);
  const JsonFields e(parsed, path);
  EvalRecord r;
  r.version = record_version(e, kEvalRecordVersion);
  r.name = e.optional_text("name").value_or(path.stem().string());
  r.split = e.optional_text("split").value_or("test");
  read_run(e, r);
  r.overrides = read_settings(e, "overrides");
  if (const auto levels = e.optional_object("levels")) {
    r.levels_key = levels->text("key");
    r.levels_values = levels->text_list("values");
  }
  const json& points = e.required("points");
  if (!points.is_array()) e.wrong("points", points, "expected a list");
  for (size_t i = 0; i < points.size(); ++i) r.points.push_back(read_point(points[i], path, i));
  if (const auto recorded = e.optional_object("recorded")) {
    r.recorded_epoch = recorded->integer("epoch");
    r.recorded_loss = recorded->optional_number("loss");
    r.recorded_acc = recorded->optional_number("acc");
  }
  r.environment = e.has("environment") ? e.required("environment") : json();
  r.git_commit = e.optional_text("git_commit").value_or("");
  r.wall_seconds = e.optional_number("wall_seconds").value_or(0);
  r.evaluated_at = e.optional_text("evaluated_at").value_or("");
  return r;
}

json eval_record_json(const EvalRecord& r) {
  json points = json::array();
  for (const auto& p : r.points)
    points.push_back({{"label", p.label},
                      {"overrides", settings_json(p.overrides)},
                      {"loss", json_number(p.loss)},
                      {"acc", json_number(p.acc)},
                      {"examples", p.examples},
                      {"partial", p.partial},
                      {"notes", p.notes}});
  json out = {
      {"record_version", r.version},
      {"name", r.name},
      {"split", r.split},
      {"run", run_id_json(r, kEvalIdFields)},
      {"model_file", {{"file", r.model_file}, {"epoch", r.model_epoch}, {"rule", r.model_rule}}},
      {"overrides", settings_json(r.overrides)},
      {"levels", r.levels_key.empty() ? json() : json{{"key", r.levels_key}, {"values", r.levels_values}}},
      {"points", points},
      {"recorded", r.recorded_epoch ? json{{"epoch", *r.recorded_epoch},
                                           {"loss", json_number(r.recorded_loss)},
                                           {"acc", json_number(r.recorded_acc)}}
                                    : json()},
      {"environment", r.environment},
      {"git_commit", r.git_commit},
      {"wall_seconds", r.wall_seconds},
      {"evaluated_at", r.evaluated_at},
  };
  return out;
}

void write_eval_record(const std::filesystem::path& path, const EvalRecord& record) {
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, eval_record_json(record).dump(2) + "\n");
}

}  // namespace repro
