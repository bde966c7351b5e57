#include "spec/spec_yaml.h"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "util/error.h"
#include "util/files.h"

namespace repro::spec_yaml {

std::string line_of(const YAML::Mark& mark) { return std::to_string(mark.line + 1); }

std::string at(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().is_null()) return file;
  return file + ":" + line_of(node.Mark());
}

std::string kind_of(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  if (node.IsNull()) return "no value";
  return "'" + node.Scalar() + "'";
}

std::string key_text(const std::string& file, const YAML::Node& key) {
  if (!key.IsScalar()) throw Error(at(file, key) + ": a key must be a plain name, got " + kind_of(key));
  return key.Scalar();
}

std::string value_text(const std::string& file, const YAML::Node& key_node, const YAML::Node& value,
                       const std::string& key, const std::string& expected) {
  if (value.IsScalar()) return value.Scalar();
  throw Error(at(file, key_node) + ": '" + key + "': got " + kind_of(value) + ", expected " + expected);
}

std::optional<std::pair<YAML::Node, YAML::Node>> entry_of(const std::string& file, const YAML::Node& map,
                                                          const std::string& key) {
  for (const auto& entry : map)
    if (key_text(file, entry.first) == key) return std::make_pair(entry.first, entry.second);
  return std::nullopt;
}

void check_duplicate_keys(const std::string& file, const YAML::Node& node, const std::string& path,
                          std::set<int>& checked) {
  if ((node.IsSequence() || node.IsMap()) && !checked.insert(node.Mark().pos).second) return;
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      check_duplicate_keys(file, node[i], path + "[" + std::to_string(i) + "]", checked);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, YAML::Mark> seen;
  for (const auto& entry : node) {
    const std::string key = key_text(file, entry.first);
    const std::string full = path.empty() ? key : path + "." + key;
    const auto [first, fresh] = seen.emplace(key, entry.first.Mark());
    if (!fresh)
      throw Error(at(file, entry.first) + ": duplicate key '" + full + "' (first at " + file + ":" +
                  line_of(first->second) + "); give each key once");
    check_duplicate_keys(file, entry.second, full, checked);
  }
}

YAML::Node read_yaml(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw Error(path + ": spec file not found");
  if (std::filesystem::is_directory(status)) throw Error(path + ": is a directory; expected a spec file (YAML)");
  // A FIFO, a device (/dev/zero, /dev/urandom) or a huge file is refused before a byte is read.
  const std::string text = read_regular_file(path, kSpecBytes, "a spec file (YAML)");
  if (const auto nul = text.find('\0'); nul != std::string::npos) {  // yaml-cpp would read past it into nonsense
    const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n') + 1;
    const auto line_start = text.rfind('\n', nul);
    const auto column = nul - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    throw Error(path + ":" + std::to_string(line) + ": a NUL byte (\\0) at column " + std::to_string(column) +
                "; a spec is YAML text (a binary file, or a file cut while written?)");
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's mark may lie past the last line (its scanner reads ahead): the line is clamped to the file's last.
    const auto lines = std::count(text.begin(), text.end(), '\n') + (text.empty() || text.back() == '\n' ? 0 : 1);
    const auto line = std::min<std::ptrdiff_t>(e.mark.line + 1, std::max<std::ptrdiff_t>(lines, 1));
    throw Error(path + ":" + std::to_string(line) + ": nested too deeply (more than " + std::to_string(e.depth()) +
                " levels of mappings or lists, at or before this line); a spec needs a few");
  } catch (const YAML::Exception& e) {
    throw Error(path + ":" + line_of(e.mark) + ": invalid YAML: " + e.msg);
  }
}

}  // namespace repro::spec_yaml
