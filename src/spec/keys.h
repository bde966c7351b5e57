#pragma once
// The one table of spec keys: name, type, default, range, doc and properties. The parser,
// `key=value` overrides, `repro list` and docs/spec.md all read this table. It is built from the keys'
// declarations, each with the member it fills (spec/key_binding.h): the run's own in spec/run_keys.cpp, each
// attention variant's beside its module; a default is its member's, never written twice.
#include <limits>
#include <string>
#include <vector>

namespace repro {

enum class ValueType { Int, Float, Bool, String, Enum, FloatPair };

struct KeyDef {
  std::string key;  // dotted path, e.g. "train.lr"
  ValueType type;
  std::string default_value;                              // canonical text
  std::string doc;                                        // one line
  double min = -std::numeric_limits<double>::infinity();  // inclusive bounds for numbers
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for Enum
  bool auto_ok = false;              // numbers: "auto" is also accepted (resolved per dataset)
  // What a run recorded before this key existed ran with, when that is not the default (the key came with
  // a new behaviour); empty: the default. A finished run without the key is the same run only if so.
  std::string when_absent;
  bool eval_may_override = false;  // `repro eval` may set it on a finished run (spec/run_spec.h: eval_override_keys)
  // Two trainings of one run may set it differently by design (spec/run_spec.h: setting_differences).
  bool differs_by_design = false;
  // Read only where another key holds one of these values (model.ffn.inh_p: where model.ffn.kind is gimlp);
  // elsewhere setting it is refused and spec.resolved.yaml leaves it out (spec/grid.h: unread_because). Empty:
  // read wherever its part of the model is.
  std::string read_only_when_key;
  std::vector<std::string> read_only_when_values;
  // model.kind=bow, which has no blocks and no positions, refuses it where a spec sets it (spec/grid.cpp).
  bool not_for_bow = false;
};

const std::vector<KeyDef>& spec_keys();
const KeyDef* find_key(const std::string& key);
std::vector<std::string> all_key_names();
std::string type_name(const KeyDef& def);  // "int in [1, inf)", "one of a|b", ...

// Validates `raw` for `def` and returns its canonical text; throws repro::Error
// naming `where` (file:line or the override), the key and what was expected.
std::string canonical_value(const KeyDef& def, const std::string& raw, const std::string& where);

// Error for a key that is not in the table, with a did-you-mean suggestion.
[[noreturn]] void throw_unknown_key(const std::string& key, const std::string& where);

}  // namespace repro
