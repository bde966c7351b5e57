#pragma once
// steps.csv read back (train/step.h writes it: steps_csv): `repro status` shows a running run's last row, and an
// event file is rewritten from it (run/tensorboard_log.h); the tests read it too.
#include <filesystem>
#include <string>
#include <vector>

#include "train/step.h"

namespace repro {

// The exact header, eight fields a row (empty = NaN), steps increasing. Throws repro::Error "PATH:LINE: what".
std::vector<StepRow> parse_steps_csv(const std::string& text, const std::filesystem::path& path);

}  // namespace repro
