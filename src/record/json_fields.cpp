#include "record/json_fields.h"

#include <cmath>

#include "util/files.h"

namespace repro {

using nlohmann::json;

JsonFields::JsonFields(const json& object, std::filesystem::path file, std::string where)
    : object_(object), file_(std::move(file)), where_(std::move(where)) {
  if (!object_.is_object())
    fail(where_.empty()
             ? "is " + std::string(object_.type_name()) + ", expected a JSON object"
             : "'" + where_.substr(0, where_.size() - 1) + "' is " + object_.dump() + ", expected an object");
}

void JsonFields::fail(const std::string& what) const { throw RecordError(file_.string() + ": " + what); }

void JsonFields::wrong(const std::string& key, const json& value, const std::string& what) const {
  fail("'" + where_ + key + "' is " + value.dump() + ", " + what);
}

bool JsonFields::has(const std::string& key) const { return object_.contains(key); }

const json& JsonFields::required(const std::string& key) const {
  const auto it = object_.find(key);
  if (it == object_.end()) fail("lacks '" + key + "'");
  return *it;
}

std::string JsonFields::text(const std::string& key) const {
  const json& value = required(key);
  if (!value.is_string()) wrong(key, value, "expected a string");
  return value.get<std::string>();
}

int64_t JsonFields::integer(const std::string& key) const {
  const json& value = required(key);
  if (!value.is_number_integer()) wrong(key, value, "expected a whole number");
  if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX))
    wrong(key, value, "beyond the largest whole number a record holds (2^63 - 1)");
  return value.get<int64_t>();
}

double JsonFields::number(const std::string& key) const {
  const json& value = required(key);
  if (!value.is_number()) wrong(key, value, "expected a number");
  return value.get<double>();
}

std::optional<std::string> JsonFields::optional_text(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return text(key);
}

std::optional<int64_t> JsonFields::optional_integer(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return integer(key);
}

std::optional<double> JsonFields::optional_number(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return number(key);
}

std::optional<bool> JsonFields::optional_flag(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  const json& value = object_.at(key);
  if (!value.is_boolean()) wrong(key, value, "expected true or false");
  return value.get<bool>();
}

std::vector<std::string> JsonFields::text_list(const std::string& key) const {
  std::vector<std::string> out;
  if (!has(key) || object_.at(key).is_null()) return out;
  const json& value = object_.at(key);
  if (!value.is_array()) wrong(key, value, "expected a list of strings");
  for (const auto& item : value) {
    if (!item.is_string()) wrong(key, value, "expected a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::optional<JsonFields> JsonFields::optional_object(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return object(key);
}

JsonFields JsonFields::object(const std::string& key) const {
  return JsonFields(required(key), file_, where_ + key + ".");
}

json json_number(std::optional<double> value) { return value && std::isfinite(*value) ? json(*value) : json(); }

json read_json_object(const std::filesystem::path& file, uint64_t max_bytes) {
  std::string text;
  try {  // a folder, a FIFO or a device of the record's name is refused before a byte is read
    text = read_regular_file(file, max_bytes, "a JSON record written by repro");
  } catch (const Error& e) {
    throw RecordError(e.what());
  }
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::exception& e) {
    throw RecordError(file.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!parsed.is_object())
    throw RecordError(file.string() + ": is " + std::string(parsed.type_name()) + ", expected a JSON object");
  return parsed;
}

int64_t record_version(const JsonFields& fields, int64_t known) {
  const auto newer = [&](const std::string& version) {
    fields.fail("record_version " + version + " is newer than this repro reads (" + std::to_string(known) +
                "): read it with the repro that wrote it, or a newer one");
  };
  if (fields.has("record_version")) {  // beyond int64 (e.g. 2^64 - 1): newer still, not "negative"
    const json& raw = fields.required("record_version");
    if (raw.is_number_unsigned() && raw.get<uint64_t>() > uint64_t(INT64_MAX)) newer(raw.dump());
  }
  const int64_t version = fields.optional_integer("record_version").value_or(0);
  if (version > known) newer(std::to_string(version));
  if (version < 0) fields.fail("record_version " + std::to_string(version) + " is negative");
  return version;
}

}  // namespace repro
