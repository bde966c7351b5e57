#include "text/tokenizer.h"

#include <algorithm>

#include "text/sentencepiece_tokenizer.h"
#include "text/word_tokenizer.h"
#include "util/error.h"

namespace repro {

torch::Tensor pack(const std::vector<std::vector<int64_t>>& token_lists, int64_t max_len) {
  auto ids = torch::zeros({static_cast<int64_t>(token_lists.size()), max_len}, torch::kInt64);  // (N, L), 0 = <pad>
  auto* out = ids.data_ptr<int64_t>();
  for (size_t i = 0; i < token_lists.size(); ++i) {
    int64_t* row = out + static_cast<int64_t>(i) * max_len;
    row[0] = kClsId;
    const auto& tokens = token_lists[i];
    const auto kept = std::min<int64_t>(static_cast<int64_t>(tokens.size()), max_len - 1);
    std::copy(tokens.begin(), tokens.begin() + kept, row + 1);
  }
  return ids;
}

std::string Tokenizer::token(int64_t id) const {
  throw Error("token " + std::to_string(id) +
              ": this tokenizer cannot turn ids back into text (text.tokenizer=word can)");
}

torch::Tensor Tokenizer::encode_all(const std::vector<std::string>& texts, int64_t max_len) const {
  std::vector<std::vector<int64_t>> token_lists;
  token_lists.reserve(texts.size());
  for (const auto& text : texts) token_lists.push_back(encode(text));
  return pack(token_lists, max_len);
}

std::unique_ptr<Tokenizer> train_tokenizer(const std::vector<std::string>& texts, const TextOptions& options,
                                           int64_t seed) {
  const bool lowercase = options.vocab.lowercase;
  if (options.tokenizer == TokenizerKind::SentencePiece)
    return std::make_unique<SentencePieceTokenizer>(texts, name_of(options.sp_model), options.sp_vocab, lowercase,
                                                    static_cast<uint32_t>(seed));
  return std::make_unique<WordTokenizer>(texts, options.vocab.min_freq, options.vocab.max_vocab, lowercase);
}

}  // namespace repro
