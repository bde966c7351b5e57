#pragma once
// A run's log lines: to the console and to its log.txt. One process may train several runs at once (the lanes
// executor: run/executor.h, one thread per run), so the default logger is routed once per process: a line logged on
// a thread that trains a run goes to that run's log.txt, and on the console it carries the run's label (lanes only:
// "[run 3] epoch 2/10: ..."); a line of any other thread goes to the console alone.
#include <filesystem>
#include <memory>
#include <string>

namespace repro {

class RunLog {
 public:
  // While alive, this thread's log lines also go to `path` (appended; never through a link). `console_label`:
  // what the console shows in front of them ("" = nothing, as a run alone in its process).
  RunLog(const std::filesystem::path& path, std::string console_label);
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  // A warning the console has shown already in this command: log.txt still gets it.
  void warn_file_only(const std::string& text);

  struct Target;  // run_log.cpp

 private:
  std::unique_ptr<Target> target_;
  Target* previous_;
};

}  // namespace repro
