#pragma once
// A child process whose stdout and stderr come back through one pipe, line by line.
// Used by run/parallel.cpp for `repro run --jobs N`.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace repro {

struct ChildExit {
  bool signaled = false;
  int code = 0;  // exit code, or the signal number when signaled
  // "exit code 1", "killed by signal 9 (Killed)"
  std::string describe() const;
};

class ChildProcess {
 public:
  // fork + exec of `executable` with `arguments` (argv[1..]) and this process's environment with
  // `environment` (NAME=VALUE) set on top. The child gets its own process group (the parent forwards
  // Ctrl-C) and SIGTERM when the parent dies. Throws repro::Error when the pipe or fork fails.
  static ChildProcess spawn(const std::string& executable, const std::vector<std::string>& arguments,
                            const std::vector<std::string>& environment);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  int output_fd() const { return fd_; }
  // The complete lines written since the last call (without newlines); never blocks.
  std::vector<std::string> read_lines();
  // The exit once the child has ended; never blocks. Its remaining output is read then and
  // returned by the next read_lines().
  std::optional<ChildExit> poll_exit();
  void send_signal(int signal) const;

 private:
  ChildProcess(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string partial_;             // text after the last newline read so far
  std::vector<std::string> lines_;  // complete lines not yet returned
};

}  // namespace repro
