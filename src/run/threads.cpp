#include "run/threads.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

std::string plural(int n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// A whole number > 0 of the full text, or none.
std::optional<long long> positive_integer(const std::string& text) {
  const std::string t = trim(text);
  if (t.empty() || t.size() > 18 || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const long long value = std::stoll(t);
  return value > 0 ? std::optional<long long>(value) : std::nullopt;
}

std::optional<std::string> read_small_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The cgroup folder of this process for a v2 line "0::/path" or a v1 controller line "N:cpu,cpuacct:/path".
std::optional<std::string> cgroup_path(const std::string& proc_self_cgroup, bool v2) {
  for (const auto& line : split_lines(proc_self_cgroup)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const auto names = split(controllers, ',');
    const bool match = v2 ? controllers.empty() : std::find(names.begin(), names.end(), "cpu") != names.end();
    if (match) return line.substr(second + 1);
  }
  return std::nullopt;
}

// The smallest cpu.max quota from the process's cgroup folder up to the v2 root.
void read_cgroup2(const std::string& relative, CpuLimits& limits) {
  const fs::path root = "/sys/fs/cgroup";
  for (fs::path dir = root / fs::path(relative).relative_path();; dir = dir.parent_path()) {
    const fs::path file = dir / "cpu.max";
    if (const auto text = read_small_file(file)) {
      const auto cpus = parse_cgroup2_cpu_max(*text, file.string());
      if (cpus && (!limits.quota_cpus || *cpus < *limits.quota_cpus)) {
        limits.quota_cpus = cpus;
        limits.quota_source = "cgroup v2 " + file.string();
      }
    }
    if (dir == root || !dir.has_relative_path() || dir.string().size() <= root.string().size()) break;
  }
}

void read_cgroup1(const std::string& relative, CpuLimits& limits) {
  for (const char* mount : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
    for (const fs::path& dir : {fs::path(mount) / fs::path(relative).relative_path(), fs::path(mount)}) {
      const auto quota = read_small_file(dir / "cpu.cfs_quota_us");
      const auto period = read_small_file(dir / "cpu.cfs_period_us");
      if (!quota || !period) continue;
      limits.quota_cpus = parse_cgroup1_quota(*quota, *period, (dir / "cpu.cfs_quota_us").string());
      if (limits.quota_cpus) limits.quota_source = "cgroup v1 " + (dir / "cpu.cfs_quota_us").string();
      return;
    }
  }
}

}  // namespace

std::string ThreadPlan::describe() const {
  return plural(jobs, "job") + " x " + plural(threads_per_job, "thread") + " on " + plural(usable, "usable CPU") +
         " (" + reason + ")";
}

ThreadPlan plan_threads(const CpuLimits& limits, int jobs, int threads_override) {
  ThreadPlan plan;
  plan.jobs = std::max(1, jobs);
  plan.usable = std::max(1, limits.affinity);
  plan.reason = "affinity " + std::to_string(limits.affinity);
  if (limits.quota_cpus) {
    plan.usable = std::min(plan.usable, std::max(1, static_cast<int>(std::floor(*limits.quota_cpus + 1e-9))));
    plan.reason += ", cgroup quota " + format_number(*limits.quota_cpus) + " CPUs";
  } else {
    plan.reason += ", no cgroup quota";
  }
  if (limits.slurm_cpus) {
    plan.usable = std::min(plan.usable, *limits.slurm_cpus);
    plan.reason += ", SLURM_CPUS_PER_TASK " + std::to_string(*limits.slurm_cpus);
  }
  plan.threads_per_job = threads_override > 0 ? threads_override : std::max(1, plan.usable / plan.jobs);
  plan.limits = plan.reason;
  if (threads_override > 0) plan.reason += ", threads per job given";
  return plan;
}

void check_cpu_request(const ThreadPlan& plan, int threads_given, const std::string& threads_option,
                       int device_slots) {
  const std::string usable = plural(plan.usable, "usable CPU") + " (" + plan.limits + ")";
  if (threads_given > plan.usable)
    throw Error(threads_option + " " + std::to_string(threads_given) + ": more than the " + usable +
                "; give at most " + std::to_string(plan.usable) + ", or leave it out for the default");
  const int most_jobs = device_slots > 0 ? std::max(plan.usable, device_slots) : plan.usable;
  if (plan.jobs > most_jobs)
    throw Error("--jobs " + std::to_string(plan.jobs) + ": more than the " +
                (device_slots > 0 ? plural(device_slots, "device slot") + " and the " : std::string()) + usable +
                "; each job is a process that needs " + (device_slots > 0 ? "a device or " : "") +
                "a CPU: give at most " + std::to_string(most_jobs));
}

std::optional<double> parse_cgroup2_cpu_max(const std::string& text, const std::string& where) {
  const auto fields = split(trim(text), ' ');
  const auto period = fields.size() == 2 ? positive_integer(fields[1]) : std::nullopt;
  if (!period || (fields[0] != "max" && !positive_integer(fields[0])))
    throw Error(where + ": expected '<quota|max> <period>' (cgroup v2 cpu.max), got '" + trim(text) + "'");
  if (fields[0] == "max") return std::nullopt;
  return static_cast<double>(*positive_integer(fields[0])) / static_cast<double>(*period);
}

std::optional<double> parse_cgroup1_quota(const std::string& quota, const std::string& period,
                                          const std::string& where) {
  const auto period_us = positive_integer(period);
  if (!period_us) throw Error(where + ": expected a positive cpu.cfs_period_us, got '" + trim(period) + "'");
  if (trim(quota) == "-1") return std::nullopt;
  const auto quota_us = positive_integer(quota);
  if (!quota_us) throw Error(where + ": expected -1 or a positive quota in microseconds, got '" + trim(quota) + "'");
  return static_cast<double>(*quota_us) / static_cast<double>(*period_us);
}

std::optional<int> parse_slurm_cpus(const char* text) {
  if (!text || trim(text).empty()) return std::nullopt;
  const auto value = positive_integer(text);
  if (!value || *value > 1000000)
    throw Error("$SLURM_CPUS_PER_TASK: expected a positive whole number, got '" + std::string(text) + "'");
  return static_cast<int>(*value);
}

CpuLimits read_cpu_limits() {
  CpuLimits limits;
  cpu_set_t set;
  CPU_ZERO(&set);
  limits.affinity = ::sched_getaffinity(0, sizeof set, &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
  if (const auto self = read_small_file("/proc/self/cgroup")) {
    if (const auto v2 = cgroup_path(*self, /*v2=*/true); v2 && fs::exists("/sys/fs/cgroup/cgroup.controllers"))
      read_cgroup2(*v2, limits);
    else if (const auto v1 = cgroup_path(*self, /*v2=*/false))
      read_cgroup1(*v1, limits);
  }
  limits.slurm_cpus = parse_slurm_cpus(std::getenv("SLURM_CPUS_PER_TASK"));
  return limits;
}

}  // namespace repro
