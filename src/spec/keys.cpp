#include "spec/keys.h"

#include <cmath>
#include <cstdlib>

#include "spec/attention_variant.h"
#include "spec/options.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

KeyDef integer(std::string key, long long def, double lo, double hi, std::string doc) {
  return {std::move(key), ValueType::Int, std::to_string(def), std::move(doc), lo, hi, {}};
}
KeyDef real(std::string key, std::string def, double lo, double hi, std::string doc) {
  return {std::move(key), ValueType::Float, std::move(def), std::move(doc), lo, hi, {}};
}
KeyDef real_or_auto(std::string key, double lo, double hi, std::string doc) {
  KeyDef def{std::move(key), ValueType::Float, "auto", std::move(doc), lo, hi, {}};
  def.auto_ok = true;
  return def;
}
KeyDef boolean(std::string key, bool def, std::string doc) {
  return {std::move(key), ValueType::Bool, def ? "true" : "false", std::move(doc), -kInf, kInf, {}};
}
// A key added with a new behaviour: records without it ran as `value`.
KeyDef ran_before_as(std::string value, KeyDef def) {
  def.when_absent = std::move(value);
  return def;
}

KeyDef choice(std::string key, std::string def, std::vector<std::string> choices, std::string doc) {
  return {std::move(key), ValueType::Enum, std::move(def), std::move(doc), -kInf, kInf, std::move(choices)};
}
KeyDef text(std::string key, std::string def, std::string doc) {
  return {std::move(key), ValueType::String, std::move(def), std::move(doc), -kInf, kInf, {}};
}
KeyDef pair(std::string key, std::string def, double lo, double hi, std::string doc) {
  return {std::move(key), ValueType::FloatPair, std::move(def), std::move(doc), lo, hi, {}};
}
// "auto" followed by the names of E (spec/options.h).
template <typename E>
std::vector<std::string> auto_or() {
  std::vector<std::string> names = {"auto"};
  for (const auto& name : names_of<E>()) names.push_back(name);
  return names;
}

std::vector<std::string> attention_variant_names() {
  std::vector<std::string> names;
  for (const AttentionVariant* variant : attention_variants()) names.push_back(variant->name);
  return names;
}

// The keys up to the attention variants' (model.attention.kind and its qkv_bias).
std::vector<KeyDef> keys_before_attention() {
  return {
      // ---- model
      choice("model.preset", "none", {"none", "vit", "dgvit", "transformer", "diff_transformer", "dgt"},
             "Named paper model; sets kind, attention and feed-forward defaults for keys not set explicitly (see "
             "docs/models.md)."),
      choice("model.kind", "auto", auto_or<ModelKind>(),
             "Model family: vit = pre-norm Vision Transformer on image patches; text = pre-norm Transformer encoder on "
             "token ids; bow = bag of words: TF-IDF of the token ids (IDF from the training split) and one linear "
             "layer, a reference floor for text tables (no attention; the model.* keys but init_std do not apply); "
             "auto = vit or text by the dataset."),
      integer("model.dim", 256, 8, 16384, "Embedding width D."),
      integer("model.depth", 8, 1, 256, "Number of encoder blocks."),
      integer("model.heads", 8, 1, 256, "Attention heads (D must divide by it)."),
      integer("model.patch", 4, 1, 1024, "Patch size in pixels (image side must divide by it)."),
      integer("model.max_len", 0, 0, 1e6,
              "Size of the learned position table; 0 = exactly the tokens needed (patches + class token, or the "
              "dataset's maximum length)."),
      real("model.dropout", "0.05", 0, 0.99,
           "Dropout in the feed-forward block and after the attention output projection."),
      real("model.attn_dropout", "0", 0, 0.99, "Dropout on attention maps."),
      real("model.emb_dropout", "0", 0, 0.99, "Dropout after adding position embeddings."),
      choice("model.norm", "layernorm", names_of<NormKind>(), "Normalization in blocks and before the head."),
      choice("model.norm_placement", "pre", names_of<NormPlacement>(),
             "Where each block normalizes: pre = x + f(norm(x)) (pre-norm, the default); post = norm(x + f(x)) (the "
             "original Transformer's post-norm, PyTorch's nn.TransformerEncoderLayer default); the final norm before "
             "the head stays in both."),
      choice("model.positions", "learned", names_of<Positions>(),
             "Text models' positions: learned = a trained table (model.init_std); sinusoidal = the fixed sine/cosine "
             "table of Vaswani et al. (2017), with the token embeddings scaled by sqrt(model.dim) as there (ViT: "
             "learned only)."),
      real("model.norm_eps", "1e-5", 0, 1, "Epsilon of the normalization layers."),
      real("model.init_std", "0.02", 0, 10,
           "Std of the normal init of linear weights, class token, positions and token embeddings; the ViT patch "
           "embedding convolution keeps LibTorch's default init (Kaiming-uniform)."),
      choice(
          "model.pool", "auto", auto_or<Pool>(),
          "Head input: the class token (position 0), or the mean over real tokens; auto = cls for vit, mean for text."),
      choice("model.attention.kind", "vanilla", attention_variant_names(), "Attention variant (see `repro list`)."),
      boolean("model.attention.qkv_bias", true,
              "Bias on the query/key/value projections (vanilla, plug, gi; diff and dgsa follow the official DIFF "
              "code: no biases)."),
  };
}

// The keys after the attention variants' own (each variant declares its keys in its file under
// src/models/attention/; spec/attention_variant.h).
std::vector<KeyDef> keys_after_attention() {
  return {
      choice("model.ffn.kind", "mlp", names_of<FfnKind>(), "Feed-forward kind."),
      real("model.ffn.ratio", "4", 0.0625, 64,
           "Feed-forward expansion e (fractions like 16/3 accepted): mlp hidden = e*D; swiglu first projection e*D "
           "split into value and gate halves; gimlp hidden = e*D."),
      integer("model.ffn.dropouts", 2, 1, 2,
              "1: dropout after the activation; 2: also after the output projection (Table 1's drop x1 / x2)."),
      real("model.ffn.inh_p", "0.1", 0, 0.99, "gimlp: inhibition level of the feed-forward gate."),
      // ---- data
      text("data.files", "",
           "Rename a dataset's files by role, e.g. test=test_batch.first1000.bin (comma-separated ROLE=FILE; roles in "
           "datasets/<name>.yaml)."),
      choice("data.verify", "strict", {"strict", "warn", "off"},
             "Check each dataset file's size and sha256 against its manifest (and examples per class) at load: "
             "strict = a mismatch is an error; warn = train anyway, with a note in summary.json and † in tables; "
             "off = no check (docs/data.md)."),
      integer("data.train_limit", 0, 0, 1e12,
              "Use only this many training examples (a seeded random subset; 0 = all)."),
      integer("data.test_limit", 0, 0, 1e12, "Use only this many test examples (a seeded random subset; 0 = all)."),
      integer("data.val_limit", 0, 0, 1e12,
              "Use only this many validation examples (a seeded random subset of the validation split; 0 = all)."),
      real_or_auto("data.val_fraction", 0, 0.9,
                   "Stratified share of the training split held out for validation; auto = 0 for images (paper A.2), "
                   "0.2 for text (paper A.2)."),
      choice("data.missing_train", "error", {"error", "split_test"},
             "When the official training split is absent (AG News here): error, or hold out a stratified 10% of the "
             "test split as test and train on the rest (data.val_fraction of it for validation; data.split_seed), "
             "marked partial."),
      choice("data.rotten_tomatoes_split", "standard", names_of<UnsplitRule>(),
             "Rotten Tomatoes has no official split. standard (paper A.2's reading): test = the last 10% of each "
             "class in file order, as TensorFlow Datasets and Hugging Face `datasets` split it (1,066); the first "
             "80% is the training fold, data.val_fraction of it validation (0.2: 6,824 / 1,706); the 10% between "
             "is unused. standard_with_val: the training fold is the first 90% (0.2: 7,676 / 1,920). random: a "
             "seeded stratified 10% test, data.val_fraction of the rest (1/9 = the 80/10/10 split before 2026-11-23)."),
      choice("data.newsgroups_remove", "all", names_of<NewsgroupsRemove>(),
             "20 Newsgroups: keep posts whole (none), drop their headers (headers), drop headers, the signature "
             "after the last '-- ' line and quoted lines (all), or scikit-learn's fetch_20newsgroups(remove=("
             "'headers', 'footers', 'quotes')) rule by rule (sklearn: its footer rule cuts at the last blank or "
             "dashes-only line, so it also drops a post's closing paragraph)."),
      integer("data.split_seed", 0, 0, 1e12,
              "Seed of the validation split and of limits: separate from the model seed."),
      choice("data.augment", "auto", auto_or<Augment>(),
             "Training augmentation; auto = the dataset's documented default."),
      integer("data.crop_padding", 4, 0, 64, "Zero padding before random crops."),
      boolean("data.normalize", true, "Normalize images with the dataset's per-channel mean and std."),
      choice("data.noise.split", "none", names_of<NoiseSplit>(),
             "Inject noise into the training split, the test split, or both (validation stays clean); none = off."),
      choice("data.noise.kind", "gaussian", names_of<NoiseKind>(),
             "Noise kind; image kinds for image datasets, token_* and char_typo for text (levels: docs/data.md)."),
      real("data.noise.level", "0.1", 0, 100,
           "Noise level: std (gaussian, speckle), fraction (salt_pepper), sigma px (gaussian_blur), length px "
           "(motion_blur), 100 - JPEG quality (jpeg), probability (text kinds)."),
      integer("data.noise.seed", 0, 0, 1e12, "Seed of the noise: example i always gets the same noise for a seed."),
      // ---- text
      choice("text.tokenizer", "word", {"word", "sentencepiece"},
             "word: lower-cased words and punctuation, vocabulary from the training split (the paper); sentencepiece: "
             "trained in memory."),
      integer("text.max_len", 256, 2, 100000,
              "Tokens per example including the leading <cls>: longer texts are truncated, shorter padded."),
      integer("text.min_freq", 2, 1, 1e9, "word: keep tokens seen at least this often in the training split."),
      integer("text.max_vocab", 60000, 4, 1e8,
              "word: at most this many vocabulary entries (specials included), most frequent first."),
      choice("text.vocab_source", "train", names_of<VocabSource>(),
             "word: vocabulary from the training split (text.min_freq, text.max_vocab), or the dataset's own word "
             "list text.vocab_file in file order (text.max_vocab caps it; text.min_freq does not apply)."),
      text("text.vocab_file", "imdb.vocab",
           "word, vocab_source=file: a word list shipped with the dataset, one word per line (IMDB: "
           "aclImdb/imdb.vocab; the other datasets have none)."),
      boolean("text.lowercase", true, "Lower-case ASCII letters before tokenizing."),
      choice("text.sp_model", "unigram", {"unigram", "bpe"}, "sentencepiece: model type."),
      integer("text.sp_vocab", 8000, 16, 1e7, "sentencepiece: vocabulary size."),
      // ---- train
      integer("train.epochs", 100, 1, 100000, "Training epochs."),
      integer("train.batch_size", 128, 1, 1e7, "Training batch size."),
      integer("train.eval_batch_size", 512, 1, 1e7, "Evaluation batch size: the most examples a batch holds."),
      integer("train.eval_tokens", 8192, 0, 1e9,
              "Text evaluation: the most tokens a batch holds, padded to its longest (0 = no limit). Examples are "
              "evaluated in order of length, so that batches are padded little and stay within a memory and cache "
              "budget; the metrics are those of any order but for float rounding."),
      real("train.lr", "3e-4", 0, 10, "Peak learning rate."),
      real("train.min_lr", "0", 0, 10, "Final learning rate of the cosine and linear schedules."),
      real("train.weight_decay", "0.01", 0, 10,
           "AdamW weight decay on every parameter but those train.no_decay exempts."),
      ran_before_as("vectors_embeddings", choice("train.no_decay", "paper", names_of<NoDecay>(),
             "Parameters without weight decay. paper: biases and LayerNorm/RMSNorm weights (the DGSA paper's Table "
             "4); everything else decays, token embeddings, class token, positions and per-head lambdas included. "
             "vectors_embeddings: repro's reading before 0.3: every parameter of fewer than 2 dimensions, the "
             "token embeddings, the class token and positions (only weight matrices and the patch convolution "
             "decay); records written before this key ran so.")),
      pair("train.betas", "[0.9, 0.999]", 0, 0.999999, "AdamW betas [beta1, beta2]."),
      real("train.eps", "1e-8", 0, 1, "AdamW epsilon."),
      choice("train.schedule", "cosine", names_of<ScheduleKind>(),
             "Learning-rate schedule after warmup: cosine annealing, linear decay, or constant."),
      choice("train.schedule_unit", "step", names_of<ScheduleUnit>(),
             "Advance the schedule every step or every epoch."),
      integer("train.warmup_steps", 0, 0, 1e9,
              "Linear warmup over W steps: 0-based step s < W runs at train.lr * (s + 1) / W, so the first step "
              "runs at train.lr / W (not 0) and step W - 1 at train.lr."),
      real("train.clip_norm", "0", 0, 1e9, "Clip gradients to this global norm (0 = off)."),
      real("train.label_smoothing", "0", 0, 0.99, "Label smoothing of the cross-entropy loss."),
      integer("train.log_every", 50, 0, 1e9,
              "Every N optimizer steps a row of steps.csv: the training loss over those steps, the learning rate, "
              "the gradient norm before clipping, examples/s and CUDA memory (0 = no steps.csv)."),
      boolean("train.tensorboard", true,
              "Write a TensorBoard event file (events.out.tfevents.repro) in the run folder: the steps.csv "
              "scalars, each epoch's validation and test metrics, the resolved spec as text "
              "(`tensorboard --logdir OUT`)."),
      choice("train.precision", "auto", names_of<PrecisionChoice>(),
             "Arithmetic of forward and backward: bf16 autocast with float32 master weights, or fp32. "
             "auto = bf16 on CUDA (with TF32 for the remaining float32 matrix products), fp32 on CPU."),
      choice("train.cuda_graphs", "auto", names_of<CudaGraphsChoice>(),
             "CUDA graphs: on CUDA with LibTorch >= 2.4, the training step (forward, loss, backward, clipping, the "
             "fused AdamW) and the evaluation forward are captured once per input shape and replayed; text batches "
             "are then padded (masked) to a quarter, half, three quarters or all of text.max_len. auto = where "
             "available (summary.json's environment.cuda_graphs says whether they ran), off = the eager step. The "
             "same mathematics either way; rounding and dropout draws differ (docs/performance.md)."),
      choice("train.select", "auto", names_of<SelectRule>(),
             "Reported epoch: best validation accuracy, or the last; auto = best_val when a validation split exists."),
      choice("train.save_model", "selected", names_of<SaveModel>(),
             "Weights a run keeps as model.pt (for repro eval and rollout): those of the reported epoch "
             "(train.select), of the last epoch, or none."),
  };
}

std::vector<KeyDef> build_table() {
  std::vector<KeyDef> table = keys_before_attention();
  for (auto part : {attention_variant_keys(), keys_after_attention()}) table.insert(table.end(), part.begin(), part.end());
  return table;
}

double parse_number(const std::string& text, bool* ok) {
  // Accepts plain numbers and fractions like "16/3".
  const auto slash = text.find('/');
  char* end = nullptr;
  if (slash != std::string::npos) {
    bool ok_num = false, ok_den = false;
    const double num = parse_number(text.substr(0, slash), &ok_num);
    const double den = parse_number(text.substr(slash + 1), &ok_den);
    *ok = ok_num && ok_den && den != 0;
    return *ok ? num / den : 0;
  }
  const std::string clean = trim(text);
  const double value = std::strtod(clean.c_str(), &end);
  *ok = !clean.empty() && end == clean.c_str() + clean.size() && std::isfinite(value);
  return value;
}

std::string bounds_text(const KeyDef& def) {
  const auto show = [](double v) { return std::isinf(v) ? std::string(v < 0 ? "-inf" : "inf") : format_number(v); };
  return "[" + show(def.min) + ", " + show(def.max) + "]";
}

[[noreturn]] void bad_value(const KeyDef& def, const std::string& raw, const std::string& where) {
  throw Error(where + ": key '" + def.key + "': got '" + raw + "', expected " + type_name(def));
}

std::string checked_number(const KeyDef& def, const std::string& raw, const std::string& where) {
  bool ok = false;
  const double value = parse_number(raw, &ok);
  if (!ok) bad_value(def, raw, where);
  if (def.type == ValueType::Int && value != std::floor(value)) bad_value(def, raw, where);
  if (value < def.min || value > def.max) bad_value(def, raw, where);
  return format_number(value);
}

}  // namespace

const std::vector<KeyDef>& spec_keys() {
  static const std::vector<KeyDef> table = build_table();
  return table;
}

const KeyDef* find_key(const std::string& key) {
  for (const auto& def : spec_keys())
    if (def.key == key) return &def;
  return nullptr;
}

std::vector<std::string> all_key_names() {
  std::vector<std::string> names;
  for (const auto& def : spec_keys()) names.push_back(def.key);
  return names;
}

std::string type_name(const KeyDef& def) {
  switch (def.type) {
    case ValueType::Int:
      return "an integer in " + bounds_text(def);
    case ValueType::Float:
      return "a number in " + bounds_text(def) + (def.auto_ok ? " or auto" : "");
    case ValueType::Bool:
      return "true or false";
    case ValueType::String:
      return "a string";
    case ValueType::Enum:
      return "one of " + join(def.choices, " | ");
    case ValueType::FloatPair:
      return "a list of two numbers in " + bounds_text(def);
  }
  return "?";
}

std::string canonical_value(const KeyDef& def, const std::string& raw_in, const std::string& where) {
  const std::string raw = trim(raw_in);
  switch (def.type) {
    case ValueType::Int:
    case ValueType::Float:
      if (def.auto_ok && raw == "auto") return raw;
      return checked_number(def, raw, where);
    case ValueType::Bool:
      if (raw == "true" || raw == "True" || raw == "yes" || raw == "on" || raw == "1") return "true";
      if (raw == "false" || raw == "False" || raw == "no" || raw == "off" || raw == "0") return "false";
      bad_value(def, raw, where);
    case ValueType::String:
      return raw;
    case ValueType::Enum: {
      for (const auto& option : def.choices)
        if (option == raw) return raw;
      const std::string guess = closest_match(raw, def.choices);
      throw Error(where + ": key '" + def.key + "': got '" + raw + "', expected " + type_name(def) +
                  (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
    case ValueType::FloatPair: {
      std::string inner = raw;
      if (inner.size() >= 2 && inner.front() == '[' && inner.back() == ']') inner = inner.substr(1, inner.size() - 2);
      const auto parts = split(inner, ',');
      if (parts.size() != 2) bad_value(def, raw, where);
      KeyDef element = def;
      element.type = ValueType::Float;
      return "[" + checked_number(element, parts[0], where) + ", " + checked_number(element, parts[1], where) + "]";
    }
  }
  bad_value(def, raw, where);
}

void throw_unknown_key(const std::string& key, const std::string& where) {
  const std::string guess = closest_match(key, all_key_names());
  throw Error(where + ": unknown key '" + key + "'" +
              (guess.empty() ? " (see `repro list` for every key)" : "; did you mean '" + guess + "'?"));
}

}  // namespace repro
