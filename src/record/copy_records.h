#pragma once
// `repro collect FROM TO`: the records of every finished run under an --out folder copied into a results folder,
// for committing. Per run the record files of record/folder.h (spec.resolved.yaml, metrics.csv, steps.csv,
// events.out.tfevents.repro, log.txt, eval/*.json, summary.json last), never checkpoint.pt, model.pt or lock; per
// experiment its plan.json, merged with the one TO already holds (records gathered from several --out folders
// keep every plan's runs). Nothing in TO is overwritten with a different record, and nothing is written through
// a symbolic link.
#include <filesystem>
#include <string>
#include <vector>

namespace repro {

struct CollectTally {
  int copied = 0;      // finished runs written into TO (new, or files added to the same record)
  int unchanged = 0;   // finished runs TO already holds, file for file
  int unfinished = 0;  // run folders without a finished summary.json (running, resumable, failed): not copied
  int plans = 0;       // plan.json files written (merged where TO had one)
  std::vector<std::string> refused;  // one line each: what was not copied and why
};

// Throws repro::Error when FROM is not a folder or one of FROM and TO holds the other.
CollectTally collect_records(const std::filesystem::path& from, const std::filesystem::path& to);

// "12 finished runs copied, 3 already there, 2 unfinished not copied, 1 plan.json written"
std::string describe_tally(const CollectTally& tally);

}  // namespace repro
