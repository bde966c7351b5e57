#pragma once
// The last step of every loader: what reading the files found (missing files,
// known copies, unverified files) goes into the data's notes, splits whose size
// differs from the official count are noted as partial, and the classes of each
// split read are checked (integrity.h: check_split_classes).
#include <string>

#include "data/dataset.h"
#include "data/sources.h"
#include "data/text.h"

namespace repro {

// Where a split came from, for messages and checks.
struct SplitSource {
  std::string files;     // the file(s) holding its labels, e.g. "t10k-labels-idx1-ubyte.gz"
  bool missing = false;  // its files are missing (options.allow_missing, or AG News' train.csv): not checked
};

void finish_loading(const DatasetInfo& info, const DatasetFiles& files, const SplitSource& train,
                    const SplitSource& test, RawData& data);
void finish_loading(const DatasetInfo& info, const DatasetFiles& files, const SplitSource& train,
                    const SplitSource& test, RawText& data);

}  // namespace repro
