#include "spec/run_keys.h"

#include <algorithm>

#include "spec/attention_variant.h"
#include "spec/presets.h"

namespace repro {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::string> preset_names() {
  std::vector<std::string> names = {"none"};
  for (const Preset& preset : preset_table()) names.push_back(preset.name);
  return names;
}

std::vector<std::string> attention_variant_names() {
  std::vector<std::string> names;
  for (const AttentionVariant* variant : attention_variants()) names.push_back(variant->name);
  return names;
}

// The settings of another variant that the chosen one refuses (ValueClaim): one line naming the key and value.
void check_claims(const Config& c, const AttentionVariant& chosen) {
  for (const AttentionVariant* other : attention_variants()) {
    if (other == &chosen) continue;
    for (const ValueClaim& claim : other->claims) {
      const std::string& value = c.text(claim.key);
      const bool claimed = claim.values.empty()
                               ? value != find_key(claim.key)->default_value
                               : std::find(claim.values.begin(), claim.values.end(), value) != claim.values.end();
      if (!claimed) continue;
      std::string note;
      for (const auto& [variant, hint] : claim.note_for)
        if (variant == chosen.name) note = "; " + hint;
      throw Error(claim.key + "=" + value + " applies to model.attention.kind=" + other->name + " only (got " +
                  chosen.name + note + ")");
    }
  }
}

// model.attention.kind: the variant, and its settings struct filled from its own keys (spec/attention_variant.h).
Key<AttentionOptions> attention_kind_key() {
  Key<AttentionOptions> k;
  k.def =
      KeyDef{"model.attention.kind",   ValueType::Enum, "vanilla", "Attention variant (see `repro list`).", -kInf, kInf,
             attention_variant_names()};
  k.read = [](const Config& c, AttentionOptions& o) {
    const std::string& kind = c.text("model.attention.kind");
    o.variant = find_attention_variant(kind);
    if (!o.variant) throw Error("internal: spec key 'model.attention.kind' names no installed variant: " + kind);
    o.settings = o.variant->read(c);
    check_claims(c, *o.variant);
  };
  return k;
}

// ---- model

std::vector<Key<ModelOptions>> model_keys() {
  using M = ModelOptions;
  return {
      applied_before_conversion<M>(
          "model.preset", "none", preset_names(),
          "Named paper model; sets kind, attention and feed-forward defaults for keys not set explicitly (see "
          "docs/models.md)."),
      auto_by_dataset(
          "model.kind", &M::kind,
          "Model family: vit = pre-norm Vision Transformer on image patches; text = pre-norm Transformer encoder on "
          "token ids; bow = bag of words: TF-IDF of the token ids (IDF from the training split) and one linear "
          "layer, a reference floor for text tables (no attention; the model.* keys but init_std do not apply); "
          "auto = vit or text by the dataset.",
          [](const AutoContext& a) { return a.dataset.text ? "text" : "vit"; }),
      key("model.dim", &M::dim, 8, 16384, "Embedding width D."),
      key("model.depth", &M::depth, 1, 256, "Number of encoder blocks."),
      key("model.heads", &M::heads, 1, 256, "Attention heads (D must divide by it)."),
      key("model.patch", &M::patch, 1, 1024, "Patch size in pixels (image side must divide by it)."),
      key("model.max_len", &M::max_len, 0, 1e6,
          "Size of the learned position table; 0 = exactly the tokens needed (patches + class token, or the "
          "dataset's maximum length)."),
      key("model.dropout", &M::dropout, 0, 0.99,
          "Dropout in the feed-forward block and after the attention output projection."),
      key("model.attn_dropout", &M::attn_dropout, 0, 0.99, "Dropout on attention maps."),
      key("model.emb_dropout", &M::emb_dropout, 0, 0.99, "Dropout after adding position embeddings."),
      key("model.norm", &M::norm, "Normalization in blocks and before the head."),
      not_for_bow(
          key("model.norm_placement", &M::norm_placement,
              "Where each block normalizes: pre = x + f(norm(x)) (pre-norm, the default); post = norm(x + f(x)) (the "
              "original Transformer's post-norm, PyTorch's nn.TransformerEncoderLayer default); the final norm before "
              "the head stays in both.")),
      not_for_bow(key("model.positions", &M::positions,
                      "Text models' positions: learned = a trained table (model.init_std); sinusoidal = the fixed "
                      "sine/cosine table of Vaswani et al. (2017), with the token embeddings scaled by "
                      "sqrt(model.dim) as there (ViT: learned only).")),
      key("model.norm_eps", &M::norm_eps, 0, 1, "Epsilon of the normalization layers."),
      key("model.init_std", &M::init_std, 0, 10,
          "Std of the normal init of linear weights, class token, positions and token embeddings; the ViT patch "
          "embedding convolution keeps LibTorch's default init (Kaiming-uniform)."),
      auto_by_dataset(
          "model.pool", &M::pool,
          "Head input: the class token (position 0), or the mean over real tokens; auto = cls for vit, mean for text.",
          [](const AutoContext& a) { return a.vision() ? "cls" : "mean"; }),
  };
}

std::vector<Key<AttentionOptions>> attention_keys() {
  return {attention_kind_key(),
          key("model.attention.qkv_bias", &AttentionOptions::qkv_bias,
              "Bias on the query/key/value projections.")};
}

std::vector<Key<FfnOptions>> ffn_keys() {
  using F = FfnOptions;
  return {
      key("model.ffn.kind", &F::kind, "Feed-forward kind."),
      key("model.ffn.ratio", &F::ratio, 0.0625, 64,
          "Feed-forward expansion e (fractions like 16/3 accepted): mlp hidden = e*D; swiglu first projection e*D "
          "split into value and gate halves; gimlp hidden = e*D."),
      key("model.ffn.dropouts", &F::dropouts, 1, 2,
          "1: dropout after the activation; 2: also after the output projection (Table 1's drop x1 / x2)."),
      read_only_when("model.ffn.kind", {"gimlp"},
                     key("model.ffn.inh_p", &F::inh_p, 0, 0.99, "Inhibition level of the feed-forward gate.")),
  };
}

// ---- data

std::vector<Key<DataOptions>> data_keys_before_split() {
  using D = DataOptions;
  return {
      differs_by_design(key(
          "data.files", &D::files,
          "Rename a dataset's files by role, e.g. test=test_batch.first1000.bin (comma-separated ROLE=FILE; roles in "
          "datasets/<name>.yaml).")),
      differs_by_design(eval_may_override(
          key("data.verify", &D::verify,
              "Check each dataset file's size and sha256 against its manifest (and examples per class) at load: "
              "strict = a mismatch is an error; warn = train anyway, with a note in summary.json and † in tables; "
              "off = no check (docs/data.md)."))),
      key("data.newsgroups_remove", &D::newsgroups_remove,
          "20 Newsgroups: keep posts whole (none), drop their headers (headers), drop headers, the signature "
          "after the last '-- ' line and quoted lines (all), or scikit-learn's fetch_20newsgroups(remove=("
          "'headers', 'footers', 'quotes')) rule by rule (sklearn: its footer rule cuts at the last blank or "
          "dashes-only line, so it also drops a post's closing paragraph)."),
  };
}

std::vector<Key<SplitOptions>> split_keys() {
  using S = SplitOptions;
  return {
      key("data.train_limit", &S::train_limit, 0, 1e12,
          "Use only this many training examples (a seeded random subset; 0 = all)."),
      eval_may_override(key("data.test_limit", &S::test_limit, 0, 1e12,
                            "Use only this many test examples (a seeded random subset; 0 = all).")),
      eval_may_override(
          key("data.val_limit", &S::val_limit, 0, 1e12,
              "Use only this many validation examples (a seeded random subset of the validation split; 0 = all).")),
      auto_by_dataset(
          "data.val_fraction", &S::val_fraction, 0, 0.9,
          "Stratified share of the training split held out for validation; auto = 0 for images (paper A.2), "
          "0.2 for text (paper A.2).",
          [](const AutoContext& a) { return a.dataset.text ? "0.2" : "0"; }),
      key("data.missing_train", &S::missing_train,
          "When the official training split is absent (AG News here): error, or hold out a stratified 10% of the "
          "test split as test and train on the rest (data.val_fraction of it for validation; data.split_seed), "
          "marked partial."),
      key("data.rotten_tomatoes_split", &S::unsplit,
          "Rotten Tomatoes has no official split. standard (paper A.2's reading): test = the last 10% of each "
          "class in file order, as TensorFlow Datasets and Hugging Face `datasets` split it (1,066); the first "
          "80% is the training fold, data.val_fraction of it validation (0.2: 6,824 / 1,706); the 10% between "
          "is unused. standard_with_val: the training fold is the first 90% (0.2: 7,676 / 1,920). random: a "
          "seeded stratified 10% test, data.val_fraction of the rest (1/9 = the 80/10/10 split before 2026-11-23)."),
      key("data.split_seed", &S::seed, 0, 1e12,
          "Seed of the validation split and of limits: separate from the model seed."),
  };
}

std::vector<Key<DataOptions>> data_keys_after_split() {
  using D = DataOptions;
  return {
      // An "auto" a dataset without a default augmentation (text) leaves is none.
      auto_by_dataset(
          "data.augment", &D::augment, "Training augmentation; auto = the dataset's documented default.",
          [](const AutoContext& a) { return a.dataset.default_augment; }, std::optional<Augment>(Augment::None)),
      key("data.crop_padding", &D::crop_padding, 0, 64, "Zero padding before random crops."),
      key("data.normalize", &D::normalize, "Normalize images with the dataset's per-channel mean and std."),
  };
}

std::vector<Key<NoiseOptions>> noise_keys() {
  using N = NoiseOptions;
  return {
      eval_may_override(
          key("data.noise.split", &N::split,
              "Inject noise into the training split, the test split, or both (validation stays clean); none = off.")),
      eval_may_override(
          key("data.noise.kind", &N::kind,
              "Noise kind; image kinds for image datasets, token_* and char_typo for text (levels: docs/data.md).")),
      eval_may_override(
          key("data.noise.level", &N::level, 0, 100,
              "Noise level: std (gaussian, speckle), fraction (salt_pepper), sigma px (gaussian_blur), length px "
              "(motion_blur), 100 - JPEG quality (jpeg), probability (text kinds).")),
      eval_may_override(key("data.noise.seed", &N::seed, 0, 1e12,
                            "Seed of the noise: example i always gets the same noise for a seed.")),
  };
}

std::vector<Key<DataOptions>> data_keys() {
  std::vector<Key<DataOptions>> keys = data_keys_before_split();
  keys = concat(std::move(keys), keys_of_part(&DataOptions::split, split_keys()));
  keys = concat(std::move(keys), data_keys_after_split());
  keys = concat(std::move(keys), keys_of_part(&DataOptions::noise, noise_keys()));
  return keys;
}

// ---- text

std::vector<Key<VocabOptions>> vocab_keys() {
  using V = VocabOptions;
  return {
      key("text.min_freq", &V::min_freq, 1, 1e9, "word: keep tokens seen at least this often in the training split."),
      key("text.max_vocab", &V::max_vocab, 4, 1e8,
          "word: at most this many vocabulary entries (specials included), most frequent first."),
      key("text.vocab_source", &V::source,
          "word: vocabulary from the training split (text.min_freq, text.max_vocab), or the dataset's own word "
          "list text.vocab_file in file order (text.max_vocab caps it; text.min_freq does not apply)."),
      key("text.vocab_file", &V::file,
          "word, vocab_source=file: a word list shipped with the dataset, one word per line (IMDB: "
          "aclImdb/imdb.vocab; the other datasets have none)."),
      key("text.lowercase", &V::lowercase, "Lower-case ASCII letters before tokenizing."),
  };
}

std::vector<Key<TextOptions>> text_keys() {
  using T = TextOptions;
  std::vector<Key<TextOptions>> keys = {
      key("text.tokenizer", &T::tokenizer,
          "word: lower-cased words and punctuation, vocabulary from the training split (the paper); sentencepiece: "
          "trained in memory."),
      key("text.max_len", &T::max_len, 2, 100000,
          "Tokens per example including the leading <cls>: longer texts are truncated, shorter padded."),
  };
  keys = concat(std::move(keys), keys_of_part(&TextOptions::vocab, vocab_keys()));
  keys = concat(std::move(keys), std::vector<Key<TextOptions>>{
                                     key("text.sp_model", &T::sp_model, "sentencepiece: model type."),
                                     key("text.sp_vocab", &T::sp_vocab, 16, 1e7, "sentencepiece: vocabulary size."),
                                 });
  return keys;
}

// ---- train

std::vector<Key<OptimizerOptions>> optimizer_keys() {
  using O = OptimizerOptions;
  return {
      key("train.weight_decay", &O::weight_decay, 0, 10,
          "AdamW weight decay on every parameter but those train.no_decay exempts."),
      ran_before_as(
          "vectors_embeddings",
          key("train.no_decay", &O::no_decay,
              "Parameters without weight decay. paper: biases and LayerNorm/RMSNorm weights (the DGSA paper's Table "
              "4); everything else decays, token embeddings, class token, positions and per-head lambdas included. "
              "vectors_embeddings: repro's reading before 0.3: every parameter of fewer than 2 dimensions, the "
              "token embeddings, the class token and positions (only weight matrices and the patch convolution "
              "decay); records written before this key ran so.")),
      pair_key("train.betas", &O::beta1, &O::beta2, 0, 0.999999, "AdamW betas [beta1, beta2]."),
      key("train.eps", &O::eps, 0, 1, "AdamW epsilon."),
  };
}

std::vector<Key<ScheduleOptions>> schedule_keys() {
  using S = ScheduleOptions;
  return {
      key("train.lr", &S::lr, 0, 10, "Peak learning rate."),
      key("train.min_lr", &S::min_lr, 0, 10, "Final learning rate of the cosine and linear schedules."),
      key("train.schedule", &S::kind,
          "Learning-rate schedule after warmup: cosine annealing, linear decay, or constant."),
      key("train.schedule_unit", &S::unit, "Advance the schedule every step or every epoch."),
      key("train.warmup_steps", &S::warmup_steps, 0, 1e9,
          "Linear warmup over W steps: 0-based step s < W runs at train.lr * (s + 1) / W, so the first step "
          "runs at train.lr / W (not 0) and step W - 1 at train.lr."),
  };
}

std::vector<Key<TrainOptions>> train_keys() {
  using T = TrainOptions;
  std::vector<Key<TrainOptions>> keys = {
      key("train.epochs", &T::epochs, 1, 100000, "Training epochs."),
      key("train.batch_size", &T::batch_size, 1, 1e7, "Training batch size."),
      differs_by_design(key("train.eval_batch_size", &T::eval_batch_size, 1, 1e7,
                            "Evaluation batch size: the most examples a batch holds.")),
      differs_by_design(
          key("train.eval_tokens", &T::eval_tokens, 0, 1e9,
              "Text evaluation: the most tokens a batch holds, padded to its longest (0 = no limit). Examples are "
              "evaluated in order of length, so that batches are padded little and stay within a memory and cache "
              "budget; the metrics are those of any order but for float rounding.")),
  };
  keys = concat(std::move(keys), keys_of_part(&TrainOptions::schedule, schedule_keys()));
  keys = concat(std::move(keys), keys_of_part(&TrainOptions::optimizer, optimizer_keys()));
  keys = concat(
      std::move(keys),
      std::vector<Key<TrainOptions>>{
          key("train.clip_norm", &T::clip_norm, 0, 1e9, "Clip gradients to this global norm (0 = off)."),
          key("train.label_smoothing", &T::label_smoothing, 0, 0.99, "Label smoothing of the cross-entropy loss."),
          differs_by_design(
              key("train.log_every", &T::log_every, 0, 1e9,
                  "Every N optimizer steps a row of steps.csv: the training loss over those steps, the learning rate, "
                  "the gradient norm before clipping, examples/s and CUDA memory (0 = no steps.csv).")),
          differs_by_design(
              key("train.tensorboard", &T::tensorboard,
                  "Write a TensorBoard event file (events.out.tfevents.repro) in the run folder: the steps.csv "
                  "scalars, each epoch's validation and test metrics, the resolved spec as text "
                  "(`tensorboard --logdir OUT`).")),
          differs_by_design(
              key("train.precision", &T::precision,
                  "Arithmetic of forward and backward: bf16 autocast with float32 master weights, or fp32. "
                  "auto = bf16 on CUDA (with TF32 for the remaining float32 matrix products), fp32 on CPU.")),
          key("train.cuda_graphs", &T::cuda_graphs,
              "CUDA graphs: on CUDA with LibTorch >= 2.4, the training step (forward, loss, backward, clipping, the "
              "fused AdamW) and the evaluation forward are captured once per input shape and replayed; text batches "
              "are then padded (masked) to a quarter, half, three quarters or all of text.max_len. auto = where "
              "available (summary.json's environment.cuda_graphs says whether they ran), off = the eager step. The "
              "same mathematics either way; rounding and dropout draws differ (docs/performance.md)."),
          key("train.select", &T::select,
              "Reported epoch: best validation accuracy, or the last; auto = best_val when a validation split exists."),
          differs_by_design(
              key("train.save_model", &T::save_model,
                  "Weights a run keeps as model.pt (for repro eval and rollout): those of the reported epoch "
                  "(train.select), of the last epoch, or none.")),
      });
  return keys;
}

std::vector<Key<RunOptions>> build_before_attention() {
  std::vector<Key<RunOptions>> keys = keys_of_part(&RunOptions::model, model_keys());
  keys = concat(std::move(keys),
                keys_of_part(&RunOptions::model, keys_of_part(&ModelOptions::attention, attention_keys())));
  return keys;
}

std::vector<Key<RunOptions>> build_after_attention() {
  std::vector<Key<RunOptions>> keys = keys_of_part(&RunOptions::model, keys_of_part(&ModelOptions::ffn, ffn_keys()));
  keys = concat(std::move(keys), keys_of_part(&RunOptions::data, data_keys()));
  keys = concat(std::move(keys), keys_of_part(&RunOptions::text, text_keys()));
  keys = concat(std::move(keys), keys_of_part(&RunOptions::train, train_keys()));
  return keys;
}

}  // namespace

const std::vector<Key<RunOptions>>& run_keys_before_attention() {
  static const std::vector<Key<RunOptions>> keys = build_before_attention();
  return keys;
}

const std::vector<Key<RunOptions>>& run_keys_after_attention() {
  static const std::vector<Key<RunOptions>> keys = build_after_attention();
  return keys;
}

std::vector<KeyDef> run_key_defs(const std::vector<Key<RunOptions>>& keys) {
  const RunOptions defaults{};
  std::vector<KeyDef> defs;
  for (const Key<RunOptions>& k : keys) defs.push_back(key_def(k, defaults));
  return defs;
}

}  // namespace repro
