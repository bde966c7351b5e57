#pragma once
// The text path of `repro rollout` (Figure 3 of the DGSA paper): the relevance of each
// token of a test example (the pooled row of the rollout: the <cls> row, or the mean of
// the real tokens' rows under mean pooling) for each run, as a token strip PNG and an
// HTML page per example, and an index JSON.
#include <torch/torch.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analysis/rollout.h"
#include "analysis/token_strip.h"
#include "cli/rollout_run.h"
#include "text/tokenizer.h"

namespace repro {

// The test texts of a text run and what decodes the ids its model saw.
struct TestTexts {
  std::vector<std::string> texts;        // the test split's texts (after cleaning), in its order
  std::unique_ptr<Tokenizer> tokenizer;  // the run's, made again as for training (run_tokenizer)
  bool word_level = false, lowercase = true;
  std::vector<std::string> class_names;  // the dataset's, else 20 Newsgroups' groups when all 20 are present
};
TestTexts test_texts(DataLoader& loader, const std::string& dataset, const RunOptions& options);

// Position of the first text containing `needle`; throws repro::Error naming it when none does.
int64_t find_text(const std::vector<std::string>& texts, const std::string& needle);

// The tokens of one encoded row (ids (L,) int64: <cls>, tokens, 0 = padding) without <cls> and
// padding. An <unk> of the word tokenizer shows the raw text's word (flagged unknown) when the
// text lines up with the ids; else "<unk>".
std::vector<StripToken> decode_row(const TestTexts& texts, int64_t position, const torch::Tensor& ids);

struct TextRolloutRequest {
  std::vector<int64_t> positions;  // test examples
  RolloutMethod method = RolloutMethod::Rollout;
  std::string method_name = "rollout";
  std::filesystem::path out;
};

// Writes <out>/<dataset>_<method>_<position>.png and .html per example and
// <out>/<dataset>_<method>.json; returns the paths written.
std::vector<std::filesystem::path> render_text_rollout(std::vector<RolloutRun>& runs, const TestTexts& texts,
                                                       const TextRolloutRequest& request, torch::Device device);

}  // namespace repro
