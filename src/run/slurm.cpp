#include "run/slurm.h"

#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

const char* kColumns = "index\trun_folder\tmodel_config\tdataset\tseed";

// A command's stdout and stderr, and its exit status (127 when it cannot run).
std::pair<int, std::string> capture(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {127, "cannot start: " + command};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

int64_t parse_count(const std::string& text, const std::string& where, const std::string& what) {
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw Error(where + ": " + what + " '" + text + "' is not a whole number >= 0");
}

// "# key: value" header lines.
void read_header_line(const std::string& line, const std::string& where, RunManifest& manifest) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return;  // a comment
  const std::string key = trim(line.substr(1, colon - 1)), value = trim(line.substr(colon + 1));
  if (key == "spec") manifest.spec_file = value;
  if (key == "profile") manifest.profile = value;
  if (key == "runs_per_task") {
    manifest.runs_per_task = parse_count(value, where, "runs_per_task");
    if (manifest.runs_per_task < 1) throw Error(where + ": runs_per_task must be at least 1");
  }
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

std::string manifest_tsv(const RunManifest& manifest) {
  std::ostringstream text;
  text << "# repro launch slurm manifest: array task i runs rows i*runs_per_task .. i*runs_per_task+runs_per_task-1\n"
       << "# spec: " << manifest.spec_file << "\n"
       << "# profile: " << manifest.profile << "\n"
       << "# runs_per_task: " << manifest.runs_per_task << "\n"
       << kColumns << "\n";
  for (const auto& row : manifest.rows)
    text << row.index << "\t" << row.run_folder << "\t" << row.model_config << "\t" << row.dataset << "\t" << row.seed
         << "\n";
  return text.str();
}

RunManifest read_manifest(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw Error(path.string() + ": no such manifest");
  RunManifest manifest;
  bool columns_seen = false;
  int line_number = 0;
  for (const auto& line : split_lines(read_file(path))) {
    const std::string where = path.string() + ":" + std::to_string(++line_number);
    if (line.empty()) continue;
    if (line[0] == '#') {
      read_header_line(line, where, manifest);
      continue;
    }
    if (!columns_seen) {
      if (line != kColumns) throw Error(where + ": expected the header '" + std::string(kColumns) + "'");
      columns_seen = true;
      continue;
    }
    const auto fields = split(line, '\t');
    if (fields.size() != 5)
      throw Error(where + ": expected 5 tab-separated fields, found " + std::to_string(fields.size()));
    ManifestRow row{parse_count(fields[0], where, "index"), fields[1], fields[2], fields[3],
                    parse_count(fields[4], where, "seed")};
    if (row.index != static_cast<int64_t>(manifest.rows.size()))
      throw Error(where + ": index " + fields[0] + " where " + std::to_string(manifest.rows.size()) + " was expected");
    manifest.rows.push_back(row);
  }
  if (!columns_seen) throw Error(path.string() + ": not a manifest (no header '" + std::string(kColumns) + "')");
  return manifest;
}

std::vector<int64_t> manifest_positions(const std::filesystem::path& path, int64_t task,
                                        const std::vector<PlannedRun>& runs) {
  const RunManifest manifest = read_manifest(path);
  if (task < 0 || task >= manifest.tasks())
    throw Error(path.string() + ": --index " + std::to_string(task) + " is past its " +
                std::to_string(manifest.tasks()) + " task(s) (" + std::to_string(manifest.rows.size()) + " runs, " +
                std::to_string(manifest.runs_per_task) + " per task)");
  std::map<std::string, int64_t> position_of;
  for (size_t i = 0; i < runs.size(); ++i) position_of[runs[i].relative_dir()] = static_cast<int64_t>(i);
  std::vector<int64_t> positions;
  const auto begin = static_cast<size_t>(task * manifest.runs_per_task);
  for (size_t r = begin; r < manifest.rows.size() && r < begin + manifest.runs_per_task; ++r) {
    const auto found = position_of.find(manifest.rows[r].run_folder);
    if (found == position_of.end())
      throw Error(path.string() + ": row " + std::to_string(r) + " (" + manifest.rows[r].run_folder +
                  ") is not a run of the spec's plan any more (the spec or its arguments changed since the "
                  "launch); launch again to freeze the new plan");
    positions.push_back(found->second);
  }
  return positions;
}

std::vector<ArrayPart> array_parts(int64_t tasks, int64_t max_array_size, const std::filesystem::path& dir) {
  std::vector<ArrayPart> parts;
  const int64_t size = std::max<int64_t>(1, max_array_size);
  for (int64_t first = 0; first < tasks; first += size) {
    const auto k = parts.size();
    parts.push_back({first, std::min(size, tasks - first),
                     dir / (k == 0 ? std::string("submit.sbatch") : "submit." + std::to_string(k) + ".sbatch")});
  }
  return parts;
}

std::string sbatch_script(const LaunchOptions& o, const std::filesystem::path& manifest, const ArrayPart& part,
                          const std::filesystem::path& dir) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by repro launch slurm; edit and resubmit with: sbatch " << part.script.string() << "\n"
    << "# Array task i runs the manifest's task i + " << part.first << " (" << manifest.string() << ").\n"
    << "#SBATCH --job-name=" << o.job_name << "\n"
    << "#SBATCH --array=0-" << part.count - 1;
  if (o.array_parallelism > 0) s << "%" << o.array_parallelism;
  s << "\n#SBATCH --requeue\n"
    << "#SBATCH --open-mode=append\n"
    << "#SBATCH --signal=B:" << o.requeue_signal << "@" << o.signal_lead << "\n"
    << "#SBATCH --output=" << (dir / "%A_%a.out").string() << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
  if (o.cpus_per_task > 0) s << "#SBATCH --cpus-per-task=" << o.cpus_per_task << "\n";
  if (o.gpus_per_task > 0) s << "#SBATCH --gres=gpu:" << o.gpus_per_task << "\n";
  for (const auto& arg : o.sbatch_args) s << "#SBATCH " << arg << "\n";
  s << "\necho \"repro task $SLURM_ARRAY_TASK_ID of job ${SLURM_ARRAY_JOB_ID}, restart ${SLURM_RESTART_COUNT:-0}, on "
       "$(hostname): CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}\"\n";
  s << "# exec: the signal reaches repro, which checkpoints and requeues this task\nexec";
  s << " " << shell_quote(o.repro_binary) << " run";
  for (const auto& arg : o.run_args) s << " " << shell_quote(arg);
  s << " --manifest " << shell_quote(manifest.string()) << " --index "
    << (part.first == 0 ? std::string("$SLURM_ARRAY_TASK_ID")
                        : "$((SLURM_ARRAY_TASK_ID + " + std::to_string(part.first) + "))")
    << " --requeue-signal " << o.requeue_signal << "\n";
  return s.str();
}

int64_t cluster_max_array_size() {
  const auto [status, output] = capture("scontrol show config");
  if (status != 0) return 1001;
  for (const auto& line : split_lines(output)) {
    if (line.rfind("MaxArraySize", 0) != 0) continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos) break;
    try {
      return std::stoll(trim(line.substr(equals + 1)));
    } catch (const std::exception&) {
      break;
    }
  }
  return 1001;
}

std::string submit_sbatch(const std::filesystem::path& script) {
  const auto [status, output] = capture("sbatch --parsable " + shell_quote(script.string()));
  const std::string text = trim(output);
  if (status != 0 || text.empty())
    throw Error("sbatch " + script.string() + " failed (exit " + std::to_string(status) + "): " + text);
  const auto last_line = split_lines(text).back();
  return last_line.substr(0, last_line.find(';'));  // "jobid;cluster" on multi-cluster setups
}

}  // namespace repro
