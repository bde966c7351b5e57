// The values repro writes into submit.sbatch, checked and quoted (declared in run/slurm.h, "Values in
// submit.sbatch").
#include <cctype>
#include <climits>
#include <cstdio>

#include "run/slurm.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

// ---- values in submit.sbatch

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// "a newline", "a NUL byte", "control character 0x1b".
std::string control_name(char c) {
  switch (c) {
    case '\n':
      return "a newline";
    case '\r':
      return "a carriage return";
    case '\t':
      return "a tab";
    case '\0':
      return "a NUL byte";
    default:
      break;
  }
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
  return std::string("control character ") + hex;
}

// The first control character of `text` (tab allowed where `allow_tab`), or npos.
size_t find_control(const std::string& text, bool allow_tab) {
  for (size_t i = 0; i < text.size(); ++i)
    if (is_control(text[i]) && !(allow_tab && text[i] == '\t')) return i;
  return std::string::npos;
}

bool contains_word_ci(const std::string& text, const std::string& word) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(word) != std::string::npos;
}

bool all_of(const std::string& text, const std::string& allowed_punctuation) {
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && allowed_punctuation.find(c) == std::string::npos) return false;
  return true;
}

// A command line that ends in an odd number of backslashes continues on the next line of the script.
bool ends_in_continuation(const std::string& line) {
  const auto last = line.find_last_not_of('\\');
  const size_t backslashes = line.size() - (last == std::string::npos ? 0 : last + 1);
  return backslashes % 2 == 1;
}

const char* kTimeFormats =
    "expected minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or "
    "days-hours:minutes:seconds in whole numbers, or UNLIMITED";

// A field of --time: 1-9 digits (SLURM reads each with %d), or -1 when it is not.
int64_t time_field(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

// An option that repro writes itself, and the sbatch options that would set it again.
struct WrittenOption {
  std::vector<std::string> long_names;  // without "--"
  std::string letters;                  // short options
  std::string line;                     // what repro writes, for the message
  std::string source;                   // the repro option it comes from; "" where repro always writes it
  std::string hint;                     // where to set it instead
};

std::vector<WrittenOption> written_options(const LaunchOptions& o) {
  std::vector<WrittenOption> written = {
      {{"job-name"}, "J", "--job-name=repro-<experiment>", "", ""},
      {{"array"}, "a", "--array=0-<tasks-1>", "", "--array-parallelism M sets its %M"},
      {{"requeue", "no-requeue"}, "", "--requeue", "", "the tasks requeue themselves, up to --max-restarts times"},
      {{"open-mode"}, "", "--open-mode=append", "", "a requeued task appends to its log"},
      {{"signal"},
       "",
       "--signal=B:" + o.requeue_signal + "@" + std::to_string(o.signal_lead),
       "",
       "use --signal-lead and --requeue-signal"},
      {{"output"}, "o", "--output=<launch folder>/%A_%a.out", "", "the task logs stay beside tasks.json"},
  };
  if (!o.partition.empty()) written.push_back({{"partition"}, "p", "--partition=" + o.partition, "--partition", ""});
  if (!o.time.empty()) written.push_back({{"time"}, "t", "--time=" + o.time, "--time", ""});
  if (!o.account.empty()) written.push_back({{"account"}, "A", "--account=" + o.account, "--account", ""});
  // SLURM refuses --cpus-per-gpu beside --cpus-per-task; a second --gres or --gpus* line replaces or contradicts
  // the first.
  if (o.cpus_per_task > 0)
    written.push_back({{"cpus-per-task", "cpus-per-gpu"},
                       "c",
                       "--cpus-per-task=" + std::to_string(o.cpus_per_task),
                       "--cpus-per-task",
                       ""});
  if (o.gpus_per_task > 0)
    written.push_back({{"gres", "gpus", "gpus-per-task", "gpus-per-node", "gpus-per-socket"},
                       "G",
                       "--gres=gpu:" + std::to_string(o.gpus_per_task),
                       "--gpus-per-task",
                       ""});
  return written;
}

// What an option word after -- sets, read as sbatch's getopt_long reads it: the long name of "--gres=gpu:1"
// ("gres"; a unique prefix such as "--part" counts as the whole name), or the letters of a short cluster
// ("Hp" of "-Hp debug": options without a value go on, the first with one takes the rest).
struct OptionWord {
  std::string long_name, letters;
};

OptionWord read_option_word(const std::string& word) {
  if (starts_with(word, "--")) return {word.substr(2, word.find('=') - 2), ""};
  std::string letters;
  for (size_t i = 1; i < word.size(); ++i) {
    letters += word[i];
    if (std::string("hHOQsvVW").find(word[i]) == std::string::npos) break;
  }
  return {"", letters};
}

bool sets(const OptionWord& word, const WrittenOption& written) {
  for (const auto& name : written.long_names)
    if (!word.long_name.empty() && starts_with(name, word.long_name)) return true;
  return word.letters.find_first_of(written.letters) != std::string::npos;
}

void check_sbatch_option(const std::vector<std::string>& words, const std::vector<WrittenOption>& written) {
  const std::string subject = "sbatch option " + quoted_for_message(join(words, " ")) + " (after --)";
  for (const auto& word : words) {
    if (const auto at = find_control(word, false); at != std::string::npos)
      throw Error(subject + " contains " + control_name(word[at]) +
                  ": an #SBATCH line must be one line without control characters");
    if (word.empty()) throw Error(subject + " has an empty value, which an #SBATCH line cannot carry");
  }
  const OptionWord option = read_option_word(words.front());
  if (option.long_name.empty() && option.letters.empty())
    throw Error(subject + " is not an option: expected sbatch options such as --qos=low or --mem 4G");
  for (const auto& w : written) {
    if (!sets(option, w)) continue;
    throw Error(subject + " conflicts with '#SBATCH " + w.line + "', which repro writes " +
                (w.source.empty() ? std::string("itself") : "for " + w.source) +
                (w.hint.empty() ? std::string("") : " (" + w.hint + ")") + "; give it one way only");
  }
}

// bash's complaint about `arguments` given to `bash -n` (its first line from "line N:" on), "" when there is
// none or no bash to ask here (the script's #!/bin/bash judges on the node then).
std::string bash_complaint(const std::string& arguments) {
  const auto [status, output] = command_output("bash -n " + arguments);
  const std::string text = trim(output);
  if (status == 127 || (status == 0 && text.empty())) return "";
  if (text.empty()) return "exit " + std::to_string(status);
  const std::string first = split_lines(text).front();
  const auto line = first.find("line ");
  return line == std::string::npos ? first : first.substr(line);
}

}  // namespace

std::string shell_quote(const std::string& text) {
  if (!text.empty() &&
      text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
          std::string::npos)
    return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// sbatch (22.05, src/sbatch/opt.c) splits an #SBATCH line at whitespace, also where a backslash precedes it; an
// unquoted '#' ends the line; "..." or '...' group, with \x meaning x everywhere; a word "hetjob" or "packjob"
// separates the components of a heterogeneous job. Checked with sbatch: "a b", a"b, 'q', $(x), `x`, ;, #, \.
std::string sbatch_quote(const std::string& word) {
  if (word.empty()) throw Error("an empty word cannot be written on an #SBATCH line");
  if (const auto at = find_control(word, false); at != std::string::npos)
    throw Error(quoted_for_message(word) + " contains " + control_name(word[at]) +
                ", which an #SBATCH line cannot carry");
  if (word.find_first_of(" \"'\\#") == std::string::npos && !contains_word_ci(word, "hetjob") &&
      !contains_word_ci(word, "packjob"))
    return word;
  std::string quoted = "\"";
  for (char c : word) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

std::string quoted_for_message(const std::string& text) {
  std::string shown = "'";
  for (char c : text) {
    if (!is_control(c)) {
      shown += c;
      continue;
    }
    switch (c) {
      case '\n':
        shown += "\\n";
        break;
      case '\r':
        shown += "\\r";
        break;
      case '\t':
        shown += "\\t";
        break;
      case '\0':
        shown += "\\0";
        break;
      default:
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
        shown += hex;
    }
  }
  return shown + "'";
}

void check_one_line(const std::string& option, const std::string& value) {
  if (const auto at = find_control(value, false); at != std::string::npos)
    throw Error(option + " " + quoted_for_message(value) + " contains " + control_name(value[at]) +
                ": values written into submit.sbatch must be one line without control characters");
}

// SLURM itself adds an overflowing field to the next (25:99:99 is 1-02:41:00), but a 99 there is a typo.
void check_time_limit(const std::string& value) {
  check_one_line("--time", value);
  std::string upper = value;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "UNLIMITED" || upper == "INFINITE") return;
  const std::string subject = "--time " + quoted_for_message(value);
  const auto dash = value.find('-');
  const std::vector<std::string> fields = split(dash == std::string::npos ? value : value.substr(dash + 1), ':');
  // The names of the fields after the dash (or of all fields) and the ranges of those after the first.
  static const std::vector<std::vector<std::string>> kPlain = {
      {"minutes"}, {"minutes", "seconds"}, {"hours", "minutes", "seconds"}};
  static const std::vector<std::string> kAfterDays = {"hours", "minutes", "seconds"};
  const int64_t days = dash == std::string::npos ? 0 : time_field(value.substr(0, dash));
  if (days < 0 || fields.size() > 3) throw Error(subject + " is not a SLURM time limit: " + kTimeFormats);
  const auto& names = dash == std::string::npos ? kPlain[fields.size() - 1] : kAfterDays;
  int64_t seconds = days * 86400;
  for (size_t i = 0; i < fields.size(); ++i) {
    const int64_t field = time_field(fields[i]);
    if (field < 0) throw Error(subject + " is not a SLURM time limit: " + kTimeFormats);
    const int64_t limit = names[i] == "hours" ? 24 : 60;
    const bool leading = dash == std::string::npos && i == 0;  // "90" minutes, "36:00:00" hours: no upper bound
    if (!leading && field >= limit)
      throw Error(subject + ": the " + names[i] + " (" + fields[i] + ") must be below " + std::to_string(limit) + "; " +
                  kTimeFormats);
    seconds += field * (names[i] == "hours" ? 3600 : names[i] == "minutes" ? 60 : 1);
  }
  if (seconds >= INT_MAX)
    throw Error(subject + " is longer than SLURM can hold (" + std::to_string(INT_MAX / 86400) + " days); " +
                kTimeFormats);
}

void check_partition(const std::string& value) {
  check_one_line("--partition", value);
  const auto names = split(value, ',');
  for (const auto& name : names)
    if (name.empty() || !all_of(name, "_-."))
      throw Error("--partition " + quoted_for_message(value) +
                  " is not a SLURM partition name: expected letters, digits, '_', '-' and '.' (several partitions "
                  "separated by ',')");
}

void check_account(const std::string& value) {
  check_one_line("--account", value);
  if (value.empty() || !all_of(value, "_-."))
    throw Error("--account " + quoted_for_message(value) +
                " is not a SLURM account name: expected letters, digits, '_', '-' and '.'");
}

void check_output_folder(const std::string& absolute_out) {
  check_one_line("--out", absolute_out);
  if (absolute_out.find('\\') != std::string::npos)
    throw Error("--out " + quoted_for_message(absolute_out) +
                " contains a backslash, which turns off SLURM's %A_%a in the task logs' names (#SBATCH --output); "
                "choose a folder without '\\'");
}

void check_sbatch_options(const LaunchOptions& options) {
  const auto written = written_options(options);
  for (const auto& words : options.sbatch_options) check_sbatch_option(words, written);
}

void check_setup_line(const std::string& line) {
  const std::string subject = "--setup " + quoted_for_message(line);
  if (const auto at = find_control(line, true); at != std::string::npos)
    throw Error(subject + " contains " + control_name(line[at]) +
                ": a setup line must be exactly one line (give --setup once per line, or --setup-file)");
  if (ends_in_continuation(line))
    throw Error(subject + " ends in a backslash, which would join the script's next line to it");
  if (const std::string complaint = bash_complaint("-c " + shell_quote(line)); !complaint.empty())
    throw Error(subject + " is not a complete shell command (bash -n: " + complaint +
                "); a setup line must stand alone");
}

std::vector<std::string> read_setup_file(const std::filesystem::path& path) {
  const std::string subject = "--setup-file " + quoted_for_message(path.string());
  if (!std::filesystem::is_regular_file(path)) throw Error(subject + ": no such file");
  std::string text = read_regular_file(path, kRecordBytes, "a setup file");
  if (!text.empty() && text.back() == '\n') text.pop_back();
  const std::vector<std::string> lines = text.empty() ? std::vector<std::string>{} : split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i)
    if (const auto at = find_control(lines[i], true); at != std::string::npos)
      throw Error(path.string() + ":" + std::to_string(i + 1) + ": contains " + control_name(lines[i][at]) +
                  (lines[i][at] == '\r' ? " (a Windows line ending?)" : "") +
                  "; --setup-file lines are copied into submit.sbatch as they are");
  if (!lines.empty() && ends_in_continuation(lines.back()))
    throw Error(subject + " ends in a backslash, which would join the script's next line to its last");
  if (const std::string complaint = bash_complaint(shell_quote(path.string())); !complaint.empty())
    throw Error(subject + " is not complete shell code (bash -n: " + complaint + ")");
  return lines;
}

void check_launch_options(const LaunchOptions& o) {
  check_one_line("the repro binary's path", o.repro_binary);
  for (const auto& argument : o.run_args) check_one_line("repro run argument", argument);
  check_one_line("job name", o.job_name);
  if (!o.partition.empty()) check_partition(o.partition);
  if (!o.time.empty()) check_time_limit(o.time);
  if (!o.account.empty()) check_account(o.account);
  if (o.requeue_signal != "USR1" && o.requeue_signal != "USR2")
    throw Error("--requeue-signal " + quoted_for_message(o.requeue_signal) + ": expected USR1 or USR2");
  check_sbatch_options(o);
  for (const auto& line : o.setup)
    if (const auto at = find_control(line, true); at != std::string::npos)
      throw Error("--setup " + quoted_for_message(line) + " contains " + control_name(line[at]) +
                  ": a setup line must be exactly one line");
  if (!o.setup.empty() && ends_in_continuation(o.setup.back()))
    throw Error("--setup " + quoted_for_message(o.setup.back()) +
                " ends in a backslash, which would join the script's next line to it");
}

}  // namespace repro
