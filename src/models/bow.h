#pragma once
// Bag of words: a reference floor for the text tables, not a model of the papers (model.kind: bow).
// The TF-IDF vector of each text over the word vocabulary, as scikit-learn's TfidfVectorizer computes it by
// default (raw counts, smooth IDF, rows L2-normalised), then one linear layer:
//   tf(t, d) = how often id t occurs in text d's ids (after truncation to text.max_len)
//   idf(t)   = ln((1 + n) / (1 + df(t))) + 1, n training texts, df(t) of them containing t
//   x(d)     = tf(·, d) ⊙ idf / ‖tf(·, d) ⊙ idf‖₂   (a text of specials only: x = 0)
//   logits   = W x(d) + b,  W: (classes, V)
// The specials (padding, <unk>, <cls>: ids below DatasetInfo::first_word) get idf 0: they are not words.
// IDF comes from the training split only (DatasetInfo::document_frequency); without it (plan checks,
// parameter counts) every idf is 1. It is a buffer: saved with the weights, never trained.
#include "models/model.h"

namespace repro {

// idf (V,) float32 from the training split's document frequencies (V,) int64 over n texts; ids below
// first_word get 0.
torch::Tensor inverse_document_frequency(const torch::Tensor& document_frequency, int64_t texts, int64_t first_word);

// ids (B, L) int64, 0 = padding -> the L2-normalised TF-IDF rows (B, V) float32.
torch::Tensor tfidf_features(const torch::Tensor& ids, const torch::Tensor& idf);

class BagOfWordsImpl : public ClassifierImpl {
 public:
  BagOfWordsImpl(const ModelOptions& options, const DatasetInfo& info);
  torch::Tensor forward(const ModelInput& input) override;  // ids (B, L) -> logits (B, classes)

 private:
  torch::Tensor idf_;  // (V,) buffer "idf"
  torch::nn::Linear head_{nullptr};
};

}  // namespace repro
