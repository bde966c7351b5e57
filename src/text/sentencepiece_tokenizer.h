#pragma once
// SentencePiece (unigram or BPE) trained on the training texts with a fixed
// seed; ids 0/1/2 are <pad>/<unk>/<cls> as in every repro vocabulary. The work
// runs in the repro-spm helper process (src/tools/repro_spm.cpp explains why);
// texts and ids pass through temporary files.
#include <filesystem>
#include <string>
#include <vector>

#include "text/tokenizer.h"

namespace repro {

class SentencePieceTokenizer : public Tokenizer {
 public:
  SentencePieceTokenizer(const std::vector<std::string>& texts, const std::string& model_type, int64_t vocab_size,
                         bool lowercase, uint32_t seed);
  ~SentencePieceTokenizer() override;
  std::vector<int64_t> encode(const std::string& text) const override;
  torch::Tensor encode_all(const std::vector<std::string>& texts, int64_t max_len) const override;
  int64_t vocab_size() const override { return vocab_size_; }

 private:
  struct Encoded {
    int64_t vocab_size;
    std::vector<std::vector<int64_t>> ids;
  };
  Encoded encode_many(const std::vector<std::string>& texts) const;

  bool lowercase_;
  std::filesystem::path work_dir_;  // holds the model while the tokenizer lives
  int64_t vocab_size_ = 0;
};

// The helper: $REPRO_SPM, else repro-spm next to (or one folder above) this executable.
std::filesystem::path spm_helper();

}  // namespace repro
