#include "models/bow.h"

#include "models/attention/common.h"
#include "util/error.h"

namespace repro {

torch::Tensor inverse_document_frequency(const torch::Tensor& document_frequency, int64_t texts, int64_t first_word) {
  const auto df = document_frequency.to(torch::kFloat64);  // (V,)
  auto idf = torch::log((1.0 + static_cast<double>(texts)) / (1.0 + df)) + 1.0;
  idf.slice(0, 0, std::min(first_word, idf.size(0))).zero_();
  return idf.to(torch::kFloat32);
}

torch::Tensor tfidf_features(const torch::Tensor& ids, const torch::Tensor& idf) {
  auto counts = torch::zeros({ids.size(0), idf.size(0)}, idf.options());  // (B, V)
  counts.scatter_add_(1, ids, torch::ones(ids.sizes(), idf.options()));   // tf: padding lands on id 0
  const auto weighted = counts * idf;                                     // (B, V); specials -> 0
  return weighted / weighted.norm(2, 1, /*keepdim=*/true).clamp_min(1e-12);
}

BagOfWordsImpl::BagOfWordsImpl(const ModelOptions& o, const DatasetInfo& info) {
  const int64_t words = info.vocab_size;
  const bool counted = info.document_frequency.defined();
  if (counted && info.document_frequency.numel() != words)
    throw Error("internal: " + std::to_string(info.document_frequency.numel()) +
                " document frequencies for a vocabulary of " + std::to_string(words));
  idf_ = register_buffer(
      "idf", counted ? inverse_document_frequency(info.document_frequency, info.train_texts, info.first_word)
                     : torch::ones({words}));
  head_ = register_module("head", torch::nn::Linear(words, info.num_classes));
  init_linear(head_, o.init_std);
}

torch::Tensor BagOfWordsImpl::forward(const ModelInput& input) {
  return head_(tfidf_features(input.inputs, idf_));  // (B, V) -> (B, classes)
}

}  // namespace repro
