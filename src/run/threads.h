#pragma once
// How many CPUs this process may really use, and how `--jobs` runs share them.
// The plan is a pure function of the limits (tested with made-up values); only
// read_cpu_limits() looks at the machine.
#include <optional>
#include <string>

namespace repro {

// What bounds the CPUs of this process.
struct CpuLimits {
  int affinity = 1;                  // CPUs in sched_getaffinity's mask
  std::optional<double> quota_cpus;  // cgroup CPU quota / period (v2 cpu.max, v1 cfs_quota_us), none if unlimited
  std::string quota_source;          // e.g. "cgroup v2 /sys/fs/cgroup/cpu.max"
  std::optional<int> slurm_cpus;     // $SLURM_CPUS_PER_TASK when set to a positive number
};

struct ThreadPlan {
  int usable = 1;           // min(affinity, floor(quota) (at least 1), SLURM_CPUS_PER_TASK)
  int jobs = 1;             // runs at once
  int threads_per_job = 1;  // LibTorch intra-op threads of each run
  std::string limits;       // what bounds `usable`: "affinity 2, no cgroup quota"
  std::string reason;       // limits, plus ", threads per job given" when they were
  // "2 jobs x 1 thread on 2 usable CPUs (affinity 2, no cgroup quota)"
  std::string describe() const;
};

// threads_per_job = `threads_override` when > 0, else max(1, usable / jobs).
ThreadPlan plan_threads(const CpuLimits& limits, int jobs, int threads_override);

// Refuses a request the machine cannot give, with one line naming the option, the value and the usable CPUs:
// `threads_given` (`threads_option`, 0 = default) above plan.usable, or plan.jobs (--jobs) above plan.usable
// on the CPU (device_slots == 0) or above max(usable, device_slots) with CUDA devices (extra jobs would only
// wait for a device). Thousands of threads or processes would otherwise swamp the machine before any output.
void check_cpu_request(const ThreadPlan& plan, int threads_given, const std::string& threads_option,
                       int device_slots = 0);

// cgroup v2 `cpu.max` text ("max 100000" or "150000 100000"): quota / period in CPUs, none if unlimited.
// Throws repro::Error naming `where` when the text is not of that form.
std::optional<double> parse_cgroup2_cpu_max(const std::string& text, const std::string& where);
// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us texts: quota / period, none when the quota is -1.
std::optional<double> parse_cgroup1_quota(const std::string& quota, const std::string& period,
                                          const std::string& where);
// $SLURM_CPUS_PER_TASK's text: a positive whole number, else none (unset or empty).
// Throws repro::Error for anything else (e.g. "2x").
std::optional<int> parse_slurm_cpus(const char* text);

// The limits of this process: sched_getaffinity, the cgroup of /proc/self/cgroup
// (v2: the smallest cpu.max from its folder up to the root; v1: cpu.cfs_quota_us)
// and $SLURM_CPUS_PER_TASK.
CpuLimits read_cpu_limits();

}  // namespace repro
