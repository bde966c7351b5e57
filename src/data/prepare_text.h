#pragma once
// From texts to the id tensors one run uses:
//   1. splits: validation = a stratified data.val_fraction of the official
//      training split; Rotten Tomatoes (no official split) and, with
//      data.missing_train=split_test, a dataset without its training split get a
//      seeded stratified 80/10/10 train/val/test split; all drawn with
//      data.split_seed, so every model and seed sees the same split;
//   2. seeded limits (data.train_limit, data.test_limit);
//   3. the tokenizer trained on the training part only, every split encoded.
// Results are cached on disk (see token_cache.h) keyed by everything above.
#include "data/dataset.h"
#include "data/text.h"
#include "spec/config.h"

namespace repro {

RunData prepare_text_run_data(const DatasetInfo& info, const RawText& raw, const Config& config);

}  // namespace repro
