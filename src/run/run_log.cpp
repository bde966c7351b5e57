#include "run/run_log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <vector>

#include "util/files.h"

namespace repro {

struct RunLog::Target {
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> file;
  std::string label;  // "" or "[run 3] "
};

namespace {

thread_local RunLog::Target* current = nullptr;

// The console's sinks, each line of a labelled run with its label in front.
class LabelledConsole : public spdlog::sinks::sink {
 public:
  explicit LabelledConsole(std::vector<spdlog::sink_ptr> inner) : inner_(std::move(inner)) {}
  void log(const spdlog::details::log_msg& msg) override {
    if (!current || current->label.empty()) {
      for (auto& sink : inner_)
        if (sink->should_log(msg.level)) sink->log(msg);
      return;
    }
    const std::string text = current->label + std::string(msg.payload.data(), msg.payload.size());
    spdlog::details::log_msg labelled(msg);
    labelled.payload = spdlog::string_view_t(text.data(), text.size());
    for (auto& sink : inner_)
      if (sink->should_log(msg.level)) sink->log(labelled);
  }
  void flush() override {
    for (auto& sink : inner_) sink->flush();
  }
  void set_pattern(const std::string& pattern) override {
    for (auto& sink : inner_) sink->set_pattern(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    for (auto& sink : inner_) sink->set_formatter(formatter->clone());
  }

 private:
  std::vector<spdlog::sink_ptr> inner_;
};

// The log.txt of the run this thread trains, if any.
class RunFile : public spdlog::sinks::sink {
 public:
  void log(const spdlog::details::log_msg& msg) override {
    if (current && current->file) current->file->log(msg);
  }
  void flush() override {
    if (current && current->file) current->file->flush();
  }
  void set_pattern(const std::string&) override {}  // each run's file keeps its own pattern
  void set_formatter(std::unique_ptr<spdlog::formatter>) override {}
};

// The routed logger, made from the default one the first time a run logs (the console's sinks and level kept),
// and again if something replaced it since.
void route_default_logger() {
  static std::mutex mutex;
  static std::shared_ptr<spdlog::logger> routed;
  std::lock_guard<std::mutex> lock(mutex);
  const auto logger = spdlog::default_logger();
  if (routed && logger == routed) return;
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<LabelledConsole>(logger->sinks()), std::make_shared<RunFile>()};
  routed = std::make_shared<spdlog::logger>(logger->name(), sinks.begin(), sinks.end());
  routed->set_level(logger->level());
  routed->flush_on(spdlog::level::trace);  // every line reaches log.txt before a kill can lose it
  spdlog::set_default_logger(routed);
}

}  // namespace

RunLog::RunLog(const std::filesystem::path& path, std::string console_label)
    : target_(std::make_unique<Target>()), previous_(current) {
  refuse_link(path);  // spdlog appends through whatever the path names
  target_->file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path.string(), /*truncate=*/false);
  target_->file->set_pattern("[%Y-%m-%d %H:%M:%S] [%l] %v");
  target_->label = console_label.empty() ? "" : "[" + console_label + "] ";
  route_default_logger();
  current = target_.get();
}

RunLog::~RunLog() { current = previous_; }

void RunLog::warn_file_only(const std::string& text) {
  const spdlog::details::log_msg msg(spdlog::source_loc{}, "run", spdlog::level::warn, text);
  target_->file->log(msg);
  target_->file->flush();
}

}  // namespace repro
