#include "data/partial.h"

namespace repro {

namespace {

void note_split(const std::string& dataset, const std::string& split, int64_t have, int64_t official,
                std::vector<std::string>& notes) {
  if (official <= 0 || have == official) return;
  notes.push_back("partial data: " + dataset + " " + split + " split has " + std::to_string(have) +
                  " of the official " + std::to_string(official) + " examples");
}

}  // namespace

void note_partial_splits(const DatasetInfo& info, RawData& data) {
  note_split(info.name, "train", data.train.size(), info.official_train, data.notes);
  note_split(info.name, "test", data.test.size(), info.official_test, data.notes);
}

}  // namespace repro
