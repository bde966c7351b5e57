#pragma once
// `repro data fetch`: downloads a dataset's files from their official address
// (or a mirror) with libcurl into <data root>/<folder>/: a progress bar,
// resumption of a partial download (<file>.part), size and sha256 checked
// before the file takes its final name.
#include <filesystem>
#include <string>

namespace repro {

// `mirror`: when not empty, files come from <mirror>/<file name> instead.
// Files already present with the right size and checksum are skipped.
void fetch_dataset(const std::string& dataset, const std::filesystem::path& data_root, const std::string& mirror,
                   bool progress);

}  // namespace repro
