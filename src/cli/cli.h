#pragma once
// The command line: one function per subcommand file, wired in cli.cpp.
#include <CLI/CLI.hpp>

namespace repro {

int cli_main(int argc, char** argv);

// Each adds its subcommand to `app`; the callback stores the exit code in `exit_code`.
void add_run_command(CLI::App& app, int& exit_code);
void add_sweep_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_params_command(CLI::App& app, int& exit_code);
void add_data_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_eval_command(CLI::App& app, int& exit_code);
void add_rollout_command(CLI::App& app, int& exit_code);
void add_launch_command(CLI::App& app, int& exit_code);
void add_status_command(CLI::App& app, int& exit_code);

}  // namespace repro
