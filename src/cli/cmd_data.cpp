// repro data verify|info|fetch|preview: the datasets as repro sees them.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "cli/cli.h"
#include "data/fetch.h"
#include "data/hash_cache.h"
#include "data/inspect.h"
#include "data/registry.h"
#include "data/verify.h"
#include "spec/experiment.h"
#include "spec/presets.h"

namespace repro {

namespace {

struct DataArguments {
  std::vector<std::string> names;
  std::string data_root;
  std::vector<std::string> overrides;  // data.*/text.* settings, KEY=VALUE
  std::string name;                    // info, fetch, preview
  bool bench = false;
  std::string output = "preview.png";
  std::string mirror;
};

Config settings_for(const std::string& dataset, const std::vector<std::string>& overrides) {
  Config config = Config::defaults();
  for (const auto& text : overrides) {
    const Setting s = parse_override(text);
    config.set(s.key, s.raw, s.where);
  }
  resolve_settings(config, find_dataset(dataset).info().traits());  // model.kind auto: text for a text dataset
  return config;
}

void add_common(CLI::App* command, DataArguments& args, bool many) {
  if (many)
    command->add_option("names", args.names, "Datasets (default: all)");
  else
    command->add_option("name", args.name, "Dataset")
        ->required();  // one string: the settings positional takes the rest
  command->add_option("--data-root", args.data_root, "Dataset folder (default $REPRO_DATA, else ./datasets)");
}

}  // namespace

void add_data_command(CLI::App& app, int& exit_code) {
  auto* data = app.add_subcommand("data", "Verify, describe, download and preview datasets");
  data->require_subcommand(1);
  auto args = std::make_shared<DataArguments>();

  auto* verify = data->add_subcommand("verify", "Presence, sizes and sha256 of dataset files against the manifests");
  add_common(verify, *args, true);
  verify->callback([args, &exit_code] {
    const auto names = args->names.empty() ? dataset_names() : args->names;
    bool all_ok = true;
    for (const auto& name : names) {
      find_dataset(name);
      const auto checks = verify_dataset(name, resolve_data_root(args->data_root));
      std::cout << format_checks(checks);
      for (const auto& c : checks) all_ok &= c.status == "ok";
    }
    const HashCounts hashes = hash_counts();
    spdlog::info("sha256: {} computed, {} from the checksum cache", hashes.computed, hashes.cached);
    exit_code = all_ok ? 0 : 1;
  });

  auto* info = data->add_subcommand("info", "Splits, examples per class, shapes or token lengths");
  add_common(info, *args, false);
  info->add_option("settings", args->overrides, "data.*/text.* settings KEY=VALUE");
  info->add_flag("--bench", args->bench, "Also time loading and batching");
  info->callback([args, &exit_code] {
    const std::string& name = args->name;
    std::cout << dataset_info(name, resolve_data_root(args->data_root),
                              run_options(settings_for(name, args->overrides)), args->bench);
    exit_code = 0;
  });

  auto* fetch = data->add_subcommand("fetch", "Download a dataset's files (resumable, checksum checked)");
  add_common(fetch, *args, false);
  fetch->add_option("--mirror", args->mirror, "Take files from MIRROR/<file> instead of the official addresses");
  fetch->callback([args, &exit_code] {
    fetch_dataset(args->name, resolve_data_root(args->data_root), args->mirror, ::isatty(2));
    exit_code = 0;
  });

  auto* preview = data->add_subcommand("preview", "Clean versus noisy examples (data.noise.* settings)");
  add_common(preview, *args, false);
  preview->add_option("settings", args->overrides, "data.noise.* settings KEY=VALUE");
  preview->add_option("-o,--output", args->output, "PNG grid for image datasets (default preview.png)");
  preview->callback([args, &exit_code] {
    const std::string& name = args->name;
    std::cout << preview_dataset(name, resolve_data_root(args->data_root),
                                 run_options(settings_for(name, args->overrides)), args->output);
    exit_code = 0;
  });
}

}  // namespace repro
