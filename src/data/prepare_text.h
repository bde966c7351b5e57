#pragma once
// From texts to the id tensors one run uses:
//   1. splits and limits by the planner of both modalities (split_plan.h);
//   2. the tokenizer trained on the training part only (or the dataset's own word
//      list, text.vocab_source=file), every split encoded.
// Results are cached on disk (see token_cache.h) keyed by everything above.
#include "data/dataset.h"
#include "data/text.h"
#include "spec/options.h"

namespace repro {

RunData prepare_text_run_data(const DatasetInfo& info, const RawText& raw, const DataOptions& data,
                              const TextOptions& text);

// In how many rows of `ids` (N, L) int64 each id below `vocab_size` occurs: (vocab_size,) int64.
torch::Tensor document_frequency(const torch::Tensor& ids, int64_t vocab_size);

// The texts behind a run's splits (step 1), in the order of its id tensors; the tokenizer of step 2
// is run_tokenizer(info, raw, train.texts, text, split.seed) (data/word_list.h).
struct TextSplits : DataNotes {
  TextSplit train, val, test;
};
TextSplits split_texts(const DatasetInfo& info, const RawText& raw, const SplitOptions& split);

}  // namespace repro
