#include "run/parallel_plan.h"

#include <torch/torch.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "run/threads.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// --devices, or every visible CUDA device unless --device cpu; none on the CPU.
std::vector<int> chosen_devices(const ParallelRequest& request) {
  if (!request.devices.empty()) {
    if (request.device == DeviceChoice::Cpu) throw Error("--devices " + request.devices + ": not with --device cpu");
    if (!torch::cuda::is_available())
      throw Error("--devices " + request.devices + ": no CUDA device is available to this build (see repro --version)");
    return parse_devices(request.devices, "--devices");
  }
  std::vector<int> all;
  if (request.device != DeviceChoice::Cpu && torch::cuda::is_available())
    for (int id = 0; id < static_cast<int>(torch::cuda::device_count()); ++id) all.push_back(id);
  return all;
}

// --devices with --lanes: checked as without (refused on the CPU alike); the lanes train on the first visible device,
// so only that one may be named.
void check_lanes_devices(const ParallelRequest& request) {
  const std::vector<int> devices = chosen_devices(request);
  if (devices == std::vector<int>{0}) return;
  throw Error("--devices " + request.devices + " with --lanes " + std::to_string(request.lanes) +
              ": lanes train on one device, the first visible one (0); for another, run repro under "
              "CUDA_VISIBLE_DEVICES=N");
}

}  // namespace

ParallelOptions plan_parallel(const ParallelRequest& request) {
  ParallelOptions parallel;
  const bool lanes = request.lanes > 1;  // runs at once in this process: no children
  if (lanes && (request.jobs > 1 || request.runs_per_device > 1))
    throw Error("--lanes " + std::to_string(request.lanes) + " with " +
                (request.jobs > 1 ? "--jobs " + std::to_string(request.jobs)
                                  : "--runs-per-device " + std::to_string(request.runs_per_device)) +
                ": lanes train runs on threads of this process, jobs in child processes; give one (--lanes K trains K "
                "runs at once on one device, sharing its data)");
  if (!request.in_process && !lanes) parallel.devices = chosen_devices(request);
  if (lanes && !request.devices.empty()) check_lanes_devices(request);
  parallel.runs_per_device = request.runs_per_device;
  parallel.lanes = std::max(1, request.lanes);
  const int device_slots = static_cast<int>(parallel.devices.size()) * request.runs_per_device;
  parallel.jobs = request.in_process || lanes ? 1 : request.jobs > 0 ? request.jobs : std::max(1, device_slots);
  if (request.threads > 0 && request.threads_per_job > 0 && request.threads != request.threads_per_job)
    throw Error("--threads " + std::to_string(request.threads) + " and --threads-per-job " +
                std::to_string(request.threads_per_job) +
                ": both set the LibTorch threads of each run (which change its results bit for bit); give one");
  const int threads_given = request.threads_per_job > 0 ? request.threads_per_job : request.threads;
  const ThreadPlan plan = plan_threads(read_cpu_limits(), std::max(parallel.jobs, parallel.lanes), threads_given);
  ThreadPlan processes = plan;
  processes.jobs = parallel.jobs;  // lanes are threads, not processes: more lanes than CPUs share them (below)
  check_cpu_request(processes, threads_given, request.threads_per_job > 0 ? "--threads-per-job" : "--threads",
                    device_slots);
  parallel.threads_per_job = plan.threads_per_job;
  configure_threads(plan.threads_per_job);
  if (parallel.jobs > 1 && request.log_plan) spdlog::info("{}", plan.describe());
  const bool on_cpu = request.device == DeviceChoice::Cpu || !torch::cuda::is_available();
  if (lanes && request.log_plan && on_cpu && parallel.lanes > plan.usable)
    spdlog::warn("--lanes {} on {} usable CPUs: the lanes share them (each run slower, its numbers the same)",
                 parallel.lanes, plan.usable);
  return parallel;
}

std::vector<int> parse_devices(const std::string& text, const std::string& where) {
  std::vector<int> devices;
  for (const auto& part : split(text, ',')) {
    const std::string t = trim(part);
    const bool digits =
        !t.empty() && t.size() <= 4 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
      throw Error(where + ": expected CUDA device numbers separated by commas (e.g. 0,1), got '" + text + "'");
    const int id = std::stoi(t);
    if (std::find(devices.begin(), devices.end(), id) != devices.end())
      throw Error(where + ": device " + t + " is given twice in '" + text + "'");
    devices.push_back(id);
  }
  return devices;
}

std::string child_visible_device(const char* parent_visible, int id) {
  if (!parent_visible || trim(parent_visible).empty()) return std::to_string(id);
  const auto visible = split(parent_visible, ',');
  if (id < 0 || static_cast<size_t>(id) >= visible.size())
    throw Error("--devices: device " + std::to_string(id) + " is not among the " + std::to_string(visible.size()) +
                " visible devices of $CUDA_VISIBLE_DEVICES='" + std::string(parent_visible) + "'");
  return trim(visible[static_cast<size_t>(id)]);
}

}  // namespace repro
