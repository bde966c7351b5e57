#pragma once
// Tokenizers: text -> ids, with 0 = <pad>, 1 = <unk>, 2 = <cls> in every vocabulary.
// Every encoded sequence is <cls> followed by the text's tokens, truncated to
// the maximum length and padded with 0.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "spec/options.h"

namespace repro {

constexpr int64_t kPadId = 0, kUnkId = 1, kClsId = 2;

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::vector<int64_t> encode(const std::string& text) const = 0;  // without <cls>, not truncated
  virtual int64_t vocab_size() const = 0;
  // The token of an id (encode's inverse, token by token); throws repro::Error for an id outside
  // the vocabulary or a tokenizer that cannot decode.
  virtual std::string token(int64_t id) const;
  // (N, max_len) int64: <cls>, tokens, then padding.
  virtual torch::Tensor encode_all(const std::vector<std::string>& texts, int64_t max_len) const;
};

// Token lists -> (N, max_len) int64: <cls>, tokens (truncated), then padding.
torch::Tensor pack(const std::vector<std::vector<int64_t>>& token_lists, int64_t max_len);

// Trains the tokenizer `options` names (text.tokenizer) on the training texts; `seed` (data.split_seed)
// seeds SentencePiece's sampling.
std::unique_ptr<Tokenizer> train_tokenizer(const std::vector<std::string>& texts, const TextOptions& options,
                                           int64_t seed);

}  // namespace repro
