#include "run/children.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "util/error.h"

extern char** environ;

namespace repro {

namespace {

std::string name_of(const std::string& assignment) { return assignment.substr(0, assignment.find('=')); }

// This process's environment with `overrides` (NAME=VALUE) replacing or adding entries.
std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> merged;
  for (char** entry = environ; *entry; ++entry) {
    const std::string text = *entry;
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || name_of(o) == name_of(text);
    if (!replaced) merged.push_back(text);
  }
  merged.insert(merged.end(), overrides.begin(), overrides.end());
  return merged;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
  std::vector<char*> result;
  for (auto& text : texts) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

// In the forked child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(pid_t parent, int write_fd, char** argv, char** envp) {
  ::setpgid(0, 0);                          // Ctrl-C reaches the parent only; it forwards the signal once
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);       // a killed parent does not leave its runs training unseen
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  ::dup2(write_fd, STDOUT_FILENO);
  ::dup2(write_fd, STDERR_FILENO);
  ::execve(argv[0], argv, envp);
  static const char message[] = "repro: error: cannot start the child process\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, message, sizeof message - 1);
  ::_exit(127);
}

}  // namespace

std::string ChildExit::describe() const {
  if (!signaled) return "exit code " + std::to_string(code);
  const char* name = ::strsignal(code);
  return "killed by signal " + std::to_string(code) + (name ? std::string(" (") + name + ")" : "");
}

ChildProcess ChildProcess::spawn(const std::string& executable, const std::vector<std::string>& arguments,
                                 const std::vector<std::string>& environment) {
  std::vector<std::string> argv_texts{executable};
  argv_texts.insert(argv_texts.end(), arguments.begin(), arguments.end());
  std::vector<std::string> env_texts = merged_environment(environment);
  std::vector<char*> argv = pointers(argv_texts), envp = pointers(env_texts);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error("cannot create a pipe for a child process: " + std::string(std::strerror(errno)));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error_number = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error("cannot fork a child process for " + executable + ": " + std::strerror(error_number));
  }
  if (pid == 0) exec_child(parent, fds[1], argv.data(), envp.data());
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return ChildProcess(pid, fds[0]);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), fd_(other.fd_), partial_(std::move(other.partial_)), lines_(std::move(other.lines_)) {
  other.pid_ = -1;
  other.fd_ = -1;
}

ChildProcess::~ChildProcess() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<std::string> ChildProcess::read_lines() {
  char buffer[4096];
  while (fd_ >= 0) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EAGAIN: nothing more now; 0: the child closed its end
    partial_.append(buffer, static_cast<size_t>(n));
    for (auto end = partial_.find('\n'); end != std::string::npos; end = partial_.find('\n')) {
      lines_.push_back(partial_.substr(0, end));
      partial_.erase(0, end + 1);
    }
  }
  std::vector<std::string> result;
  result.swap(lines_);
  return result;
}

std::optional<ChildExit> ChildProcess::poll_exit() {
  if (pid_ < 0) return std::nullopt;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done != pid_) return std::nullopt;
  pid_ = -1;
  std::vector<std::string> rest = read_lines();  // the child has ended: everything it wrote is in the pipe
  if (!partial_.empty()) rest.push_back(partial_);
  partial_.clear();
  lines_ = std::move(rest);
  if (WIFSIGNALED(status)) return ChildExit{true, WTERMSIG(status)};
  return ChildExit{false, WIFEXITED(status) ? WEXITSTATUS(status) : 1};
}

void ChildProcess::send_signal(int signal) const {
  if (pid_ > 0) ::kill(pid_, signal);
}

}  // namespace repro
