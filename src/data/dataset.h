#pragma once
// What every dataset provides: static facts (shape, classes, normalization) and
// its official splits, held in memory as tensors.
#include <torch/torch.h>

#include <chrono>
#include <string>
#include <vector>

#include "spec/options.h"
#include "spec/presets.h"

namespace repro {

enum class Modality { Image, Text };
const EnumNames<Modality>& enum_names(Modality);  // "image", "text"

struct DatasetInfo {
  std::string name;
  Modality modality = Modality::Image;
  int64_t channels = 0, height = 0, width = 0;  // images
  int64_t vocab_size = 0, max_length = 0;       // text: token ids < vocab_size, 0 = padding
  int64_t first_word = 0;                       // text: ids below it are specials (padding, <unk>, <cls>)
  // text: in how many training texts each id occurs, (vocab_size,) int64, over train_texts texts (the
  // bag-of-words model's IDF); undefined and 0 where no data was read (plan checks, parameter counts).
  torch::Tensor document_frequency;
  int64_t train_texts = 0;
  int64_t num_classes = 0;
  std::vector<std::string> class_names;
  std::vector<double> mean, std;                  // per channel, in [0, 1] pixel units
  std::string default_augment;                    // what data.augment=auto means here
  int64_t official_train = 0, official_test = 0;  // counts of the official splits

  // What the spec layer resolves "auto" settings from.
  DatasetTraits traits() const { return {modality == Modality::Text, default_augment}; }
};

// "class 3 (Dress)", or "class 3" when the dataset has no class names.
std::string class_label(const DatasetInfo& info, int64_t label);

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

// Why a run's data is not the complete, verified official dataset. Typed, so
// nothing depends on the wording of a note; each flag comes with a note.
enum class NoteKind {
  Info,        // provenance only (how splits were drawn, a known copy verified, noise)
  Incomplete,  // a split or file is missing or smaller than the official one ("partial data: ...")
  Subset,      // data.*_limit chose a subset ("subset: ...")
  Unverified,  // a checksum did not match (data.verify=warn) or could not be checked ("unverified: ...")
};

// Notes in the order they were added, and the flags their kinds set.
struct DataNotes {
  std::vector<std::string> notes;
  bool incomplete = false, subset = false, unverified = false;

  void note(NoteKind kind, const std::string& text);
  void add_notes(const DataNotes& other);  // appends other's notes and ORs its flags
  // True when results from this data differ from the paper's protocol: marked † in tables.
  bool partial() const { return incomplete || subset || unverified; }
};

// The official splits as read from disk.
struct RawData : DataNotes {
  Split train, test;
  std::vector<std::string> file_checks;  // one line per file: where it was found and what was checked
};

// The splits one run uses, after the validation hold-out and limits.
struct RunData : DataNotes {
  DatasetInfo info;
  Split train, val, test;
};

// Log lines through a long step of reading or preparing data, so that a command that prints its result at the end
// (repro data info) is not silent for minutes on a busy machine: at most one line every `every_seconds`, the share
// done and the time left at the pace so far (progress_text).
class ProgressLine {
 public:
  explicit ProgressLine(std::string what, double every_seconds = 15);
  void update(double done, double total);

 private:
  std::string what_;
  double every_;
  std::chrono::steady_clock::time_point start_, last_;
};
// "reading 20news-bydate.tar.xz: 40% (about 30 s left)"; the time left is left out until something is done.
std::string progress_text(const std::string& what, double done, double total, double seconds_so_far);

}  // namespace repro
