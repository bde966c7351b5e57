#pragma once
// Reading a record's JSON fields by their names, for the readers of src/record/ only: each problem throws
// RecordError naming the file and the field ("PATH: lacks 'seed'", "PATH: 'seed' is \"zero\", expected a whole
// number"), never json's own exception.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"
#include "util/files.h"

namespace repro {

// A record file that cannot be read: its message names the file and the field.
struct RecordError : Error {
  using Error::Error;
};

class JsonFields {
 public:
  // `where` prefixes a nested object's field names in messages ("selected." for summary.json's "selected").
  JsonFields(const nlohmann::json& object, std::filesystem::path file, std::string where = "");

  bool has(const std::string& key) const;
  const nlohmann::json& required(const std::string& key) const;
  std::string text(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  // Absent or null -> nullopt; any other type than the expected one throws.
  std::optional<std::string> optional_text(const std::string& key) const;
  std::optional<int64_t> optional_integer(const std::string& key) const;
  std::optional<double> optional_number(const std::string& key) const;
  std::optional<bool> optional_flag(const std::string& key) const;
  std::vector<std::string> text_list(const std::string& key) const;  // absent -> empty
  // The object under `key`, read with its own fields ("key." prefixed in messages); nullopt when absent or null.
  std::optional<JsonFields> optional_object(const std::string& key) const;
  JsonFields object(const std::string& key) const;
  const nlohmann::json& raw() const { return object_; }
  [[noreturn]] void fail(const std::string& what) const;
  // "PATH: 'where.key' is VALUE, <what>" (what: "expected a number", "outside 0-100").
  [[noreturn]] void wrong(const std::string& key, const nlohmann::json& value, const std::string& what) const;

 private:
  const nlohmann::json& object_;
  std::filesystem::path file_;
  std::string where_;
};

// A number, or null when absent or not finite (JSON has no NaN).
nlohmann::json json_number(std::optional<double> value);

// The file's JSON object; throws RecordError "PATH: not valid JSON (...)", "PATH: is array, expected a JSON
// object", or naming why it cannot be read (a folder, a FIFO, a device, beyond `max_bytes`, permissions).
nlohmann::json read_json_object(const std::filesystem::path& file, uint64_t max_bytes = kRecordBytes);
// A record's "record_version" (0 when absent: written before records were versioned); throws when it is newer
// than `known`, the newest this repro reads.
int64_t record_version(const JsonFields& fields, int64_t known);

}  // namespace repro
