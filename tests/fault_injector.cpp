#include "fault_injector.h"

#include <chrono>
#include <csignal>
#include <thread>

namespace repro::test {

void FaultInjector::after_step(int64_t position, int64_t step) const {
  if (step == kill_step && (kill_position < 0 || kill_position == position)) std::raise(SIGKILL);
  if (step == interrupt_step) std::raise(requeue_signal);
  if (step_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(step_delay_ms));
}

bool FaultInjector::stop_after_epoch(int64_t epoch) const { return epoch == stop_epoch; }

void FaultInjector::add_options(CLI::App& command) {
  command.add_option("--stop-after-epoch", stop_epoch, "Stop each run after this epoch (testing resume)")->group("");
  command.add_option("--kill-at-step", kill_step, "SIGKILL repro after this optimizer step (testing resume)")
      ->group("");
  command
      .add_option("--interrupt-at-step", interrupt_step,
                  "Raise the requeue signal after this optimizer step (testing interruption)")
      ->group("");
  command.add_option("--kill-run", kill_position, "--kill-at-step only in the run at this plan position")
      ->check(whole_number_at_least(0))
      ->group("");
  command.add_option("--step-delay-ms", step_delay_ms, "Sleep this long after every optimizer step (a slow run)")
      ->check(whole_number_at_least(0))
      ->group("");
}

std::vector<std::string> FaultInjector::child_arguments() const {
  std::vector<std::string> out;
  const auto given = [&out](const char* name, int64_t value, int64_t unset) {
    if (value != unset) out.insert(out.end(), {name, std::to_string(value)});
  };
  given("--stop-after-epoch", stop_epoch, 0);
  given("--kill-at-step", kill_step, 0);
  given("--interrupt-at-step", interrupt_step, 0);
  given("--kill-run", kill_position, -1);
  given("--step-delay-ms", step_delay_ms, 0);
  return out;
}

const RunObserver* FaultInjector::observer(const RunnerOptions& options) {
  requeue_signal = options.interrupt.requeue_signal;
  return this;
}

FaultInjector stop_after(int64_t epoch) {
  FaultInjector faults;
  faults.stop_epoch = epoch;
  return faults;
}

FaultInjector interrupt_at(int64_t step) {
  FaultInjector faults;
  faults.interrupt_step = step;
  return faults;
}

}  // namespace repro::test
