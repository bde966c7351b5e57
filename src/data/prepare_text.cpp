#include "data/prepare_text.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "data/noise.h"
#include "data/prepare.h"
#include "data/token_cache.h"
#include "text/tokenizer.h"
#include "util/error.h"

namespace repro {

namespace {

TextSplit take(const TextSplit& split, const std::vector<int64_t>& indices) {
  TextSplit out;
  for (const auto i : indices) out.add(split.texts[i], split.labels[i]);
  return out;
}

std::vector<int64_t> complement(int64_t n, const std::vector<int64_t>& taken) {
  std::vector<bool> used(n, false);
  for (const auto i : taken) used[i] = true;
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < n; ++i)
    if (!used[i]) rest.push_back(i);
  return rest;
}

struct TextSplits {
  TextSplit train, val, test;
  std::vector<std::string> notes;
};

// 80/10/10 of `pool`: test = a stratified 10%, val = 1/9 of the rest (10% of all).
TextSplits three_way(const TextSplit& pool, int64_t classes, int64_t seed) {
  TextSplits out;
  const auto test = stratified_indices(pool.labels, classes, 0.1, seed);
  const TextSplit rest = take(pool, complement(pool.size(), test));
  const auto val = stratified_indices(rest.labels, classes, 1.0 / 9.0, seed + 1);
  out.test = take(pool, test);
  out.val = take(rest, val);
  out.train = take(rest, complement(rest.size(), val));
  return out;
}

TextSplits split_texts(const DatasetInfo& info, const RawText& raw, const Config& config) {
  const int64_t seed = config.integer("data.split_seed");
  TextSplits out;
  if (raw.test.size() == 0) {  // no official test split (Rotten Tomatoes)
    out = three_way(raw.train, info.num_classes, seed);
    out.notes.push_back(info.name + ": no official split; seeded stratified 80/10/10 train/val/test (data.split_seed)");
  } else if (raw.train.size() == 0) {
    if (config.text("data.missing_train") != "split_test")
      throw Error(info.name + ": the official training split is missing (" + (raw.notes.empty() ? "" : raw.notes[0]) +
                  "). Get it, or set data.missing_train=split_test to train on 80% of the test split (partial).");
    out = three_way(raw.test, info.num_classes, seed);
    out.notes.push_back("partial data: " + info.name + " train/val/test drawn 80/10/10 from the official test split");
  } else {
    const auto val = stratified_indices(raw.train.labels, info.num_classes, config.real("data.val_fraction"), seed);
    out.val = take(raw.train, val);
    out.train = take(raw.train, complement(raw.train.size(), val));
    out.test = raw.test;
  }
  out.notes.insert(out.notes.end(), raw.notes.begin(), raw.notes.end());
  const int64_t train_limit = config.integer("data.train_limit"), test_limit = config.integer("data.test_limit");
  if (train_limit > 0 && train_limit < out.train.size()) {
    out.train = take(out.train, subset_indices(out.train.size(), train_limit, seed));
    out.notes.push_back("subset: " + std::to_string(train_limit) + " training examples (data.train_limit)");
  }
  const int64_t val_limit = config.integer("data.val_limit");
  if (val_limit > 0 && val_limit < out.val.size()) {
    out.val = take(out.val, subset_indices(out.val.size(), val_limit, seed + 2));
    out.notes.push_back("subset: " + std::to_string(val_limit) + " validation examples (data.val_limit)");
  }
  if (test_limit > 0 && test_limit < out.test.size()) {
    out.test = take(out.test, subset_indices(out.test.size(), test_limit, seed + 1));
    out.notes.push_back("subset: " + std::to_string(test_limit) + " test examples (data.test_limit)");
  }
  return out;
}

Split encode(const Tokenizer& tokenizer, const TextSplit& split, int64_t max_len) {
  return {tokenizer.encode_all(split.texts, max_len), torch::tensor(split.labels, torch::kInt64)};
}

// Everything the tokenized splits depend on.
// The tokenizer is trained on clean training texts; the chosen splits are then
// encoded from typo'd texts (char_typo) or get token noise on their ids.
TokenizedSplits encode_with_noise(const Tokenizer& tokenizer, const TextSplits& texts, const NoiseSpec& noise,
                                  int64_t max_len) {
  auto encode_split = [&](const TextSplit& split, const std::string& name, uint64_t salt) {
    if (!noise.applies_to(name)) return encode(tokenizer, split, max_len);
    if (noise.kind == "char_typo") {
      TextSplit noisy = split;
      noisy.texts = add_text_noise(split.texts, noise, salt);
      return encode(tokenizer, noisy, max_len);
    }
    Split clean = encode(tokenizer, split, max_len);
    clean.inputs = add_token_noise(clean.inputs, noise, tokenizer.vocab_size(), salt);
    return clean;
  };
  return {encode_split(texts.train, "train", 1), encode(tokenizer, texts.val, max_len),
          encode_split(texts.test, "test", 3), tokenizer.vocab_size()};
}

std::string cache_key(const DatasetInfo& info, const RawText& raw, const Config& config) {
  return "dataset=" + info.name + ";train=" + std::to_string(raw.train.size()) +
         ";test=" + std::to_string(raw.test.size()) + ";" + config.section_text({"data.", "text."});
}

}  // namespace

RunData prepare_text_run_data(const DatasetInfo& info, const RawText& raw, const Config& config) {
  RunData data;
  data.info = info;
  const TextSplits texts = split_texts(info, raw, config);
  data.notes = texts.notes;
  const int64_t max_len = config.integer("text.max_len");
  const std::string key = cache_key(info, raw, config);
  const NoiseSpec noise = NoiseSpec::from_config(config);
  if (noise.split != "none") {
    if (noise.is_image_kind())
      throw Error("data.noise.kind=" + noise.kind + " is an image noise; " + info.name +
                  " is a text dataset (token_drop, token_swap, token_insert, char_typo)");
    data.notes.push_back("noise: " + noise.kind + " level " + config.text("data.noise.level") + " on " + noise.split +
                         " (seed " + std::to_string(noise.seed) + ")");
  }
  auto cached = read_token_cache(key);
  if (!cached) {
    spdlog::info("tokenizing {} ({} tokenizer, {} training texts)", info.name, config.text("text.tokenizer"),
                 texts.train.size());
    const auto tokenizer = train_tokenizer(texts.train.texts, config);
    cached = encode_with_noise(*tokenizer, texts, noise, max_len);
    write_token_cache(key, *cached);
  }
  data.train = cached->train;
  data.val = cached->val;
  data.test = cached->test;
  data.info.vocab_size = cached->vocab_size;
  data.info.max_length = max_len;
  return data;
}

}  // namespace repro
