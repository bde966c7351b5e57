#include "data/prepare_text.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "data/noise.h"
#include "data/prepare.h"
#include "data/split_plan.h"
#include "data/token_cache.h"
#include "data/word_list.h"
#include "text/tokenizer.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

TextSplit take(const TextSplit& split, const std::vector<int64_t>& indices) {
  TextSplit out;
  for (const auto i : indices) out.add(split.texts[i], split.labels[i]);
  return out;
}

Split encode(const Tokenizer& tokenizer, const TextSplit& split, int64_t max_len) {
  return {tokenizer.encode_all(split.texts, max_len), torch::tensor(split.labels, torch::kInt64)};
}

// Everything the tokenized splits depend on.
// The tokenizer is trained on clean training texts; the chosen splits are then
// encoded from typo'd texts (char_typo) or get token noise on their ids.
TokenizedSplits encode_with_noise(const Tokenizer& tokenizer, const TextSplits& texts, const NoiseOptions& noise,
                                  int64_t max_len) {
  auto encode_split = [&](const TextSplit& split, NoiseSplit which, uint64_t salt) {
    if (!noise_applies_to(noise, which)) return encode(tokenizer, split, max_len);
    if (noise.kind == NoiseKind::CharTypo) {
      TextSplit noisy = split;
      noisy.texts = add_text_noise(split.texts, noise, salt);
      return encode(tokenizer, noisy, max_len);
    }
    Split clean = encode(tokenizer, split, max_len);
    clean.inputs = add_token_noise(clean.inputs, noise, tokenizer.vocab_size(), salt);
    return clean;
  };
  const double total = static_cast<double>(texts.train.size() + texts.val.size() + texts.test.size());
  ProgressLine progress("encoding " + std::to_string(static_cast<int64_t>(total)) + " texts");
  Split train = encode_split(texts.train, NoiseSplit::Train, 1);
  progress.update(static_cast<double>(texts.train.size()), total);
  Split val = encode(tokenizer, texts.val, max_len);
  progress.update(static_cast<double>(texts.train.size() + texts.val.size()), total);
  return {std::move(train), std::move(val), encode_split(texts.test, NoiseSplit::Test, 3), tokenizer.vocab_size()};
}

// Everything the tokenized splits depend on: the data.* and text.* keys, the splits'
// sizes and, for a file vocabulary, the word list's size and hash (an edited list is not reused).
std::string cache_key(const DatasetInfo& info, const RawText& raw, const DataOptions& data, const TextOptions& text) {
  std::string key = "dataset=" + info.name + ";train=" + std::to_string(raw.train.size()) +
                    ";test=" + std::to_string(raw.test.size()) + ";split_rules=" + std::to_string(kSplitRulesVersion) +
                    ";" + data.settings_text;
  return key + word_list_key(info, raw, text.vocab);
}

}  // namespace

torch::Tensor document_frequency(const torch::Tensor& ids, int64_t vocab_size) {
  if (ids.numel() == 0) return torch::zeros({vocab_size}, torch::kInt64);
  const auto sorted = std::get<0>(ids.sort(1));  // (N, L): equal ids side by side in each row
  auto first = torch::ones_like(sorted, torch::kBool);
  first.slice(1, 1).copy_(sorted.slice(1, 1) != sorted.slice(1, 0, -1));  // an id's first place in its row
  return torch::bincount(sorted.masked_select(first), {}, vocab_size);
}

TextSplits split_texts(const DatasetInfo& info, const RawText& raw, const SplitOptions& split) {
  const SplitPlan plan = plan_splits(info, raw.train.labels, raw.test.labels, split, raw.notes);
  TextSplits out;
  out.add_notes(raw);
  out.add_notes(plan);
  const auto pool = [&](const PlannedSplit& s) -> const TextSplit& {
    return s.pool == SourceSplit::Train ? raw.train : raw.test;
  };
  out.train = take(pool(plan.train), plan.train.indices);
  out.val = take(pool(plan.val), plan.val.indices);
  out.test = take(pool(plan.test), plan.test.indices);
  return out;
}

RunData prepare_text_run_data(const DatasetInfo& info, const RawText& raw, const DataOptions& options,
                              const TextOptions& text) {
  RunData data;
  data.info = info;
  const TextSplits texts = split_texts(info, raw, options.split);
  data.add_notes(texts);
  const int64_t max_len = text.max_len;
  const std::string key = cache_key(info, raw, options, text);
  const NoiseOptions& noise = options.noise;
  if (noise.split != NoiseSplit::None) {
    if (is_image_noise(noise.kind))
      throw Error("data.noise.kind=" + name_of(noise.kind) + " is an image noise; " + info.name +
                  " is a text dataset (" + noise_kinds_text(false) + ")");
    data.note(NoteKind::Info, "noise: " + name_of(noise.kind) + " level " + format_number(noise.level) + " on " +
                                  name_of(noise.split) + " (seed " + std::to_string(noise.seed) + ")");
  }
  auto cached = read_token_cache(key);
  if (!cached) {
    spdlog::info("tokenizing {} ({} tokenizer, {} training texts)", info.name, name_of(text.tokenizer),
                 texts.train.size());
    const auto tokenizer = run_tokenizer(info, raw, texts.train.texts, text, options.split.seed);
    cached = encode_with_noise(*tokenizer, texts, noise, max_len);
    write_token_cache(key, *cached);
  }
  data.train = cached->train;
  data.val = cached->val;
  data.test = cached->test;
  data.info.vocab_size = cached->vocab_size;
  data.info.first_word = kClsId + 1;
  data.info.document_frequency = document_frequency(data.train.inputs, cached->vocab_size);
  data.info.train_texts = data.train.size();
  if (const std::string note = word_list_note(info, text.vocab, cached->vocab_size); !note.empty())
    data.note(NoteKind::Info, note);
  data.info.max_length = max_len;
  return data;
}

}  // namespace repro
