#pragma once
// The command line: one function per subcommand file, wired in cli.cpp.
#include <CLI/CLI.hpp>

namespace repro {

class RunExtension;  // cli/common.h: what a test build adds to run and sweep

// The program: what main() runs (src/main.cpp: repro, with no extension; tests/faults_main.cpp: repro-faults).
int repro_main(int argc, char** argv, RunExtension* extension = nullptr);
// The command line alone (repro_main without its process set-up).
int cli_main(int argc, char** argv, RunExtension* extension = nullptr);

// Every subcommand, in the order `repro --help` lists them (cli_main's; tests walk the same set).
void add_commands(CLI::App& app, int& exit_code, RunExtension* extension = nullptr);
// Each adds its subcommand to `app`; the callback stores the exit code in `exit_code`.
void add_run_command(CLI::App& app, int& exit_code, RunExtension* extension);
void add_sweep_command(CLI::App& app, int& exit_code, RunExtension* extension);
void add_report_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_params_command(CLI::App& app, int& exit_code);
void add_data_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_eval_command(CLI::App& app, int& exit_code);
void add_rollout_command(CLI::App& app, int& exit_code);
void add_launch_command(CLI::App& app, int& exit_code);
void add_status_command(CLI::App& app, int& exit_code);
void add_collect_command(CLI::App& app, int& exit_code);

}  // namespace repro
