#pragma once
// Runs the repro binary as a user does, for the end-to-end tests.
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "paths.h"

namespace repro::test {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr
};

// A shell command (through /bin/sh) with its stdout and stderr.
inline Result run_command(const std::string& shell_command) {
  const std::string command = shell_command + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

// `arguments` go through /bin/sh: quote what needs quoting.
inline Result run_repro(const std::string& arguments) { return run_command(std::string(REPRO_BINARY) + " " + arguments); }
// The same with repro-faults, which also takes the hidden fault options (tests/fault_injector.h).
inline Result run_repro_faults(const std::string& arguments) {
  return run_command(std::string(REPRO_FAULTS_BINARY) + " " + arguments);
}

}  // namespace repro::test
