// The board's notes on records that name no GPU (repro before 0.7.0): what a lease's side files say of them.
#include <algorithm>

#include "record/folder.h"
#include "record/run_record.h"
#include "report/board/board.h"
#include "spec/run_spec.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

std::string short_device(const std::string& device) {
  if (starts_with(device, "cpu")) return "CPU";
  const size_t open = device.find('(');
  if (open == std::string::npos) return starts_with(device, "cuda") ? "GPU" : device.substr(0, device.find(','));
  const size_t close = device.find_first_of(",)", open);
  return device.substr(open + 1, close - open - 1);
}

namespace {

// A GPU as a side file below the root names it: scripts/device-check's env.txt ("commit: SHA (…)" and the line
// nvidia-smi printed, "NAME, DRIVER, MEMORY MiB, CLOCK MHz").
struct SideGpu {
  std::string file, commit, gpu;
};

std::vector<SideGpu> side_gpus(const fs::path& root) {
  std::vector<SideGpu> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() != "env.txt" || !it->is_regular_file()) continue;
    std::string text;
    try {
      text = read_regular_file(it->path(), kSpecBytes, "a lease's env.txt");
    } catch (const std::exception&) {  // a side file only: an unreadable one says nothing
      continue;
    }
    SideGpu side;
    side.file = it->path().lexically_relative(root).generic_string();
    for (const auto& line : split_lines(text)) {
      if (starts_with(line, "commit: ")) side.commit = split(line.substr(8), ' ').front();
      const auto fields = split(line, ',');
      if (fields.size() == 4 && ends_with(fields[2], " MiB") && ends_with(fields[3], " MHz"))
        side.gpu = trim(fields[0]);
    }
    if (!side.commit.empty() && !side.gpu.empty()) found.push_back(side);
  }
  std::sort(found.begin(), found.end(), [](const SideGpu& a, const SideGpu& b) { return a.file < b.file; });
  return found;
}

// The counted records of judged folders that name no GPU (`cuda:0` only: repro before 0.7.0), grouped by folder and
// commit, with what the side files of that commit say.
}  // namespace

std::vector<LeaseNote> lease_notes(const Board& board) {
  const auto sides = side_gpus(board.root);
  std::vector<LeaseNote> notes;
  for (const auto& folder : board.folders) {
    if (!is_judged_folder(board, folder)) continue;
    for (const auto& run : folder.selected.runs) {
      if (!is_counted(run) || short_device(run.device) != "GPU" || run.path.empty()) continue;
      const RunRecord record = read_run_record(RunFolder(run.path).summary_path());
      std::string precision = "?";
      try {
        precision = name_of(run_options(read_run_spec(RunFolder(run.path).spec_path()).config).train.precision);
      } catch (const std::exception&) {
      }
      const std::string commit = record.git_commit.substr(0, 7);
      auto note = std::find_if(notes.begin(), notes.end(),
                               [&](const LeaseNote& n) { return n.folder == folder.name && n.commit == commit; });
      if (note == notes.end()) {
        LeaseNote fresh{folder.name, "", commit, "", 0, "", precision};
        std::vector<std::string> files, gpus;
        for (const auto& side : sides)
          if (!commit.empty() && starts_with(side.commit, commit))
            add_unique(files, "`" + side.file + "`"), add_unique(gpus, side.gpu);
        fresh.file = join(files, ", "), fresh.gpu = join(gpus, " or ");
        notes.push_back(fresh);
        note = notes.end() - 1;
      }
      ++note->runs;
      std::vector<std::string> versions =
          note->versions.empty() ? std::vector<std::string>{} : split(note->versions, '/');
      add_unique(versions, record.environment.value("repro_version", std::string("?")));
      note->versions = join(versions, "/");
      if (note->precision != precision) note->precision = "mixed";
    }
  }
  return notes;
}

}  // namespace repro
