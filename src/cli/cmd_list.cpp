// repro list: attention variants, feed-forward kinds, datasets and every spec key.
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "cli/listing.h"

namespace repro {

void add_list_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("list", "List attention variants, datasets and every spec key");
  auto format = std::make_shared<std::string>("text");
  hinted(command->add_option("--format", *format, "text | md (md is docs/spec.md)"), CLI::IsMember({"text", "md"}));
  command->callback([format, &exit_code] {
    std::cout << (*format == "md" ? spec_markdown() : listing_text());
    exit_code = 0;
  });
}

}  // namespace repro
