// repro-faults: repro with the tests' hidden fault options on `run` and `sweep` (tests/fault_injector.h). Built
// with the tests, never installed: the end-to-end tests that kill, signal or stop a run start this binary.
#include "cli/cli.h"
#include "fault_injector.h"

int main(int argc, char** argv) {
  repro::test::FaultInjector faults;
  return repro::repro_main(argc, argv, &faults);
}
