#include "cli/cli.h"
#include "cli/common.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <filesystem>
#include <iostream>

#include "util/error.h"
#include "util/version.h"

namespace repro {

namespace {

void setup_logging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("repro");
  logger->set_pattern("[%H:%M:%S] [%^%l%$] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace

#if !REPRO_HAS_OPENCV
// Without OpenCV (REPRO_WITH_OPENCV=OFF, e.g. scripts/build-cuda) the rollout figures cannot be drawn:
// src/analysis/ and cmd_rollout.cpp are left out of the build and the command says so in one line.
void add_rollout_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("rollout", "Attention rollout of trained runs (not in this build: no OpenCV)");
  command->allow_extras();
  command->callback([&exit_code] {
    exit_code = 0;
    throw Error(
        "repro rollout draws with OpenCV, and this build has none (REPRO_WITH_OPENCV=OFF, e.g. "
        "scripts/build-cuda): use a build with it");
  });
}
#endif

void add_commands(CLI::App& app, int& exit_code, RunExtension* extension) {
  add_run_command(app, exit_code, extension);
  add_sweep_command(app, exit_code, extension);
  add_report_command(app, exit_code);
  add_list_command(app, exit_code);
  add_params_command(app, exit_code);
  add_data_command(app, exit_code);
  add_bench_command(app, exit_code);
  add_launch_command(app, exit_code);
  add_status_command(app, exit_code);
  add_collect_command(app, exit_code);
  add_eval_command(app, exit_code);
  add_rollout_command(app, exit_code);
}

int cli_main(int argc, char** argv, RunExtension* extension) {
  // A file-size limit (ulimit -f) then fails the write with EFBIG, reported like a full disk, instead of killing us.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"repro: reproduce attention-variant papers' tables from YAML specs"};
  app.require_subcommand(0, 1);
  bool show_version = false;
  std::string log_level = "info";
  app.add_flag("--version", show_version, "Print repro, LibTorch, CUDA, BLAS and git commit versions");
  hinted(app.add_option("--log-level", log_level, "trace | debug | info | warn | error"),
         CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  int exit_code = 0;
  add_commands(app, exit_code, extension);
  try {
    app.parse_complete_callback([&] { setup_logging(log_level); });
    app.parse(argc, argv);
    if (show_version) {
      configure_threads(0);
      std::cout << version_report() << "\n";
      return 0;
    }
    if (app.get_subcommands().empty()) {
      std::cout << app.help();
      return 2;
    }
    return exit_code;
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // a wrong option or value: one line, exit 2 like every usage error
    std::cerr << "repro: error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "repro: error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "repro: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "repro: error: " << error_text(e) << "\n";  // LibTorch's C++ stack trace left out
    return 1;
  }
}

}  // namespace repro
