#pragma once
// What every dataset provides: static facts (shape, classes, normalization) and
// its official splits, held in memory as tensors.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace repro {

struct DatasetInfo {
  std::string name;
  std::string modality;                         // "image" or "text"
  int64_t channels = 0, height = 0, width = 0;  // images
  int64_t vocab_size = 0, max_length = 0;       // text: token ids < vocab_size, 0 = padding
  int64_t num_classes = 0;
  std::vector<std::string> class_names;
  std::vector<double> mean, std;                  // per channel, in [0, 1] pixel units
  std::string default_augment;                    // what data.augment=auto means here
  int64_t official_train = 0, official_test = 0;  // counts of the official splits
};

struct Split {
  torch::Tensor inputs;   // images: (N, C, H, W) uint8; text: (N, L) int64 ids, 0 = padding
  torch::Tensor labels;   // (N,) int64
  torch::Tensor lengths;  // text on a GPU: (N,) int64 real lengths kept on the CPU (batch trimming without a
                          // device read); undefined otherwise
  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

// One batch as the model takes it.
struct Batch {
  torch::Tensor inputs;        // images (B, C, H, W) float, or token ids (B, L) int64
  torch::Tensor padding_mask;  // (B, L) bool, true at padding; undefined for images
};

// The official splits as read from disk.
struct RawData {
  Split train, test;
  std::vector<std::string> notes;  // e.g. "partial: test split has 1000 of 10000 records"
};

// The splits one run uses, after limits and the validation hold-out.
struct RunData {
  DatasetInfo info;
  Split train, val, test;
  std::vector<std::string> notes;  // provenance: partial splits, subsets, how splits were drawn
  // True when a note says the data is incomplete ("partial data: ...") or a subset ("subset: ...").
  bool partial() const {
    for (const auto& note : notes)
      if (note.rfind("partial data", 0) == 0 || note.rfind("subset", 0) == 0) return true;
    return false;
  }
};

}  // namespace repro
