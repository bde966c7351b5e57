#include "data/partial.h"

#include "data/integrity.h"
#include "util/error.h"

namespace repro {

namespace {

void check_split(const DatasetInfo& info, const DatasetFiles& files, const std::string& split,
                 const SplitSource& source, const std::vector<int64_t>& counts, DataNotes& notes) {
  int64_t have = 0;
  for (const auto c : counts) have += c;
  const int64_t official = split == "train" ? info.official_train : info.official_test;
  if (source.missing || (official == 0 && have == 0)) return;  // noted where it went missing; or no such split
  if (have == 0)
    throw Error(info.name + ": " + source.files + " holds no examples; expected the " + split + " split (" +
                std::to_string(official) + " examples officially)");
  if (official > 0 && have != official)
    notes.note(NoteKind::Incomplete, "partial data: " + info.name + " " + split + " split has " + std::to_string(have) +
                                         " of the official " + std::to_string(official) + " examples");
  check_split_classes(info, files.manifest(), split, counts, source.files, files.options().verify, notes);
}

// Raw: RawData or RawText, alike in their notes, file checks and labelled train and test splits.
template <class Raw>
void finish(const DatasetInfo& info, const DatasetFiles& files, const SplitSource& train, const SplitSource& test,
            Raw& data) {
  data.add_notes(files.notes());
  data.file_checks = files.report();
  check_split(info, files, "train", train, count_classes(data.train.labels, info.num_classes), data);
  check_split(info, files, "test", test, count_classes(data.test.labels, info.num_classes), data);
}

}  // namespace

void finish_loading(const DatasetInfo& info, const DatasetFiles& files, const SplitSource& train,
                    const SplitSource& test, RawData& data) {
  finish(info, files, train, test, data);
}

void finish_loading(const DatasetInfo& info, const DatasetFiles& files, const SplitSource& train,
                    const SplitSource& test, RawText& data) {
  finish(info, files, train, test, data);
}

}  // namespace repro
