#pragma once
// `repro collect FROM TO`: the records of every finished run under an --out folder copied into a results folder,
// for committing. Per run the record files of record/folder.h (spec.resolved.yaml, metrics.csv, steps.csv,
// events.out.tfevents.repro, log.txt, eval/*.json, summary.json last), never checkpoint.pt, model.pt or lock; per
// experiment its plan.json, merged with the one TO already holds (records gathered from several --out folders
// keep every plan's runs) and listing only what TO then holds: the plan's finished runs, never one still training
// or not started, and TO's records of the same experiment and profile that no plan listed. No plan.json is written
// for a plan none of whose runs has finished.
//
// Every finished record is checked as `repro report` checks it (the caller's RecordCheck: a summary.json that cannot
// be read, a metrics.csv missing, short or disagreeing, a record of another cell than its plan says), and against
// what TO holds: a different record of the same run, or a run of the same row and dataset trained under other
// settings (one table, two learning rates). A symbolic link anywhere below FROM, or on the way into TO, and a folder
// that cannot be listed are refused too. Temporary folders below FROM (`*.tmp-<pid>`: a collect's staging) are skipped
// and named; TO's own stale ones, left by a collect that was killed, are removed (never a live collect's). An
// experiment is copied whole or not at all: one refusal in it copies none of its runs and leaves its plan.json alone.
// Nothing in TO is overwritten with a different record, nothing is written through a link, and collecting again changes
// no byte (a file, plan.json included, is written only when its bytes differ).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace repro {

struct CollectTally {
  int copied = 0;               // finished runs written into TO (new, or files added to the same record)
  int unchanged = 0;            // finished runs TO already holds, file for file
  int unfinished = 0;           // run folders without a finished summary.json (running, resumable, failed): not copied
  int plans = 0;                // plan.json files written (merged where TO had one); an unchanged one is not rewritten
  int experiments_refused = 0;  // experiments of which nothing was copied (one line each in `refused`)
  std::vector<std::string> refused;  // one line each: what was not copied and why
  std::vector<std::string> skipped;  // one line each: a temporary folder below FROM (a collect's staging), not read
};

// What is wrong with a finished run's record in the folder `run_dir`, as `repro report` would mark it (corrupt,
// inconsistent); "" when nothing is. The report layer provides it (report/records/read_record.h record_problem).
using RecordCheck = std::function<std::string(const std::filesystem::path& run_dir)>;

// Throws repro::Error when FROM is not a folder or one of FROM and TO holds the other.
CollectTally collect_records(const std::filesystem::path& from, const std::filesystem::path& to,
                             const RecordCheck& check);

// "12 finished runs copied, 3 already there, 2 unfinished not copied, 1 plan.json written"
std::string describe_tally(const CollectTally& tally);

}  // namespace repro
