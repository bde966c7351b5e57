#include "run/slurm.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

std::pair<int, std::string> command_output(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {127, "cannot start: " + command};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
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

namespace {

// "#SBATCH --name=VALUE" with VALUE as sbatch reads it back.
std::string sbatch_line(const std::string& name, const std::string& value) {
  return "#SBATCH --" + name + "=" + sbatch_quote(value) + "\n";
}

// An option word after --: "--comment=a b" as --comment="a b" (readable), else the whole word quoted.
std::string sbatch_option_word(const std::string& word) {
  const auto equals = word.find('=');
  if (starts_with(word, "--") && equals != std::string::npos && equals + 1 < word.size() &&
      sbatch_quote(word.substr(0, equals + 1)) == word.substr(0, equals + 1))
    return word.substr(0, equals + 1) + sbatch_quote(word.substr(equals + 1));
  return sbatch_quote(word);
}

// --output: a '%' of the folder written %% (SLURM's replacement symbols, %A and %a, are the file's only ones).
std::string output_pattern(const std::filesystem::path& dir) {
  std::string pattern;
  for (char c : dir.string()) pattern += c == '%' ? std::string("%%") : std::string(1, c);
  return pattern + "/%A_%a.out";
}

}  // namespace

std::string sbatch_script(const LaunchOptions& o, const std::filesystem::path& tasks, const ArrayPart& part,
                          const std::filesystem::path& dir) {
  check_launch_options(o);
  check_output_folder(dir.string());
  check_one_line("tasks path", tasks.string());
  check_one_line("script path", part.script.string());
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by repro launch slurm; edit and resubmit with: sbatch " << shell_quote(part.script.string()) << "\n"
    << "# Array task i runs task i + " << part.first << " of " << tasks.string() << ".\n"
    << (o.job_name.empty() ? "" : sbatch_line("job-name", o.job_name)) << "#SBATCH --array=0-" << part.count - 1;
  if (o.array_parallelism > 0) s << "%" << o.array_parallelism;
  s << "\n#SBATCH --requeue\n"
    << "#SBATCH --open-mode=append\n"
    << "#SBATCH --signal=B:" << o.requeue_signal << "@" << o.signal_lead << "\n"
    << sbatch_line("output", output_pattern(dir));
  if (!o.partition.empty()) s << sbatch_line("partition", o.partition);
  if (!o.time.empty()) s << sbatch_line("time", o.time);
  if (!o.account.empty()) s << sbatch_line("account", o.account);
  if (o.cpus_per_task > 0) s << "#SBATCH --cpus-per-task=" << o.cpus_per_task << "\n";
  if (o.gpus_per_task > 0) s << "#SBATCH --gres=gpu:" << o.gpus_per_task << "\n";
  for (const auto& words : o.sbatch_options) {
    s << "#SBATCH";
    for (const auto& word : words) s << " " << sbatch_option_word(word);
    s << "\n";
  }
  // sbatch reads #SBATCH lines up to the first command (the echo, not the blank line: checked with 22.05); the
  // setup lines come after it, so that an "#SBATCH" among them stays a comment.
  s << "\necho \"repro task $SLURM_ARRAY_TASK_ID of job ${SLURM_ARRAY_JOB_ID}, restart ${SLURM_RESTART_COUNT:-0}, on "
       "$(hostname): CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}\"\n";
  if (!o.setup.empty()) s << "# setup (--setup-file, --setup), run as written:\n";
  for (const auto& line : o.setup) s << line << "\n";
  s << "# exec: the signal reaches repro, which checkpoints and requeues this task\nexec";
  s << " " << shell_quote(o.repro_binary) << " run";
  for (const auto& arg : o.run_args) s << " " << shell_quote(arg);
  s << " --tasks " << shell_quote(tasks.string()) << " --index "
    << (part.first == 0 ? std::string("$SLURM_ARRAY_TASK_ID")
                        : "$((SLURM_ARRAY_TASK_ID + " + std::to_string(part.first) + "))")
    << " --requeue-signal " << o.requeue_signal << "\n";
  return s.str();
}

int64_t cluster_max_array_size() {
  const auto [status, output] = command_output("scontrol show config");
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
  const auto [status, output] = command_output("sbatch --parsable " + shell_quote(script.string()));
  const std::string text = trim(output);
  if (status != 0 || text.empty())
    throw Error("sbatch " + script.string() + " failed (exit " + std::to_string(status) + "): " + text);
  const auto last_line = split_lines(text).back();
  return last_line.substr(0, last_line.find(';'));  // "jobid;cluster" on multi-cluster setups
}

}  // namespace repro
