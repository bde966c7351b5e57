// repro list: attention variants, feed-forward kinds, datasets and every spec key.
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "cli/listing.h"

namespace repro {

void add_list_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("list", "List attention variants, datasets and every spec key");
  auto format = std::make_shared<std::string>("text");
  hinted(command->add_option("--format", *format,
                             "text | md (docs/spec.md) | params (docs/models.md's parameter names) | kinds (the "
                             "README's line)"),
         CLI::IsMember({"text", "md", "params", "kinds"}));
  command->callback([format, &exit_code] {
    if (*format == "md")
      std::cout << spec_markdown();
    else if (*format == "params")
      std::cout << parameter_names_markdown();
    else if (*format == "kinds")
      std::cout << kinds_markdown();
    else
      std::cout << listing_text();
    exit_code = 0;
  });
}

}  // namespace repro
