#pragma once
// Typed options, built once per run from the validated, resolved Config
// (options.cpp: run_options, when the grid is expanded; nothing below src/spec/
// reads a key by name) and passed down: a module's inputs are in its signature.
// Plain structs and enums, no torch. A member's default IS its key's default: the
// key table takes its default text from RunOptions{} (spec/run_keys.cpp binds each
// key to its member); where a key's default is "auto", the member holds what a ViT
// resolves it to (noted at the member).
#include <any>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/enum_names.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

class Config;

// ---- enums; each has one table of spec names (enum_names below)

enum class ModelKind { Vit, Text, Bow };  // bow: TF-IDF features and one linear layer (models/bow.h)
enum class Pool { Cls, Mean };
enum class NormKind { LayerNorm, RmsNorm };
enum class NormPlacement { Pre, Post };        // model.norm_placement: x + f(norm(x)), or norm(x + f(x))
enum class Positions { Learned, Sinusoidal };  // model.positions (text): a learned table, or fixed sines
enum class FfnKind { Mlp, Swiglu, Gimlp };
enum class ScheduleKind { Cosine, Linear, Constant };
enum class ScheduleUnit { Step, Epoch };
enum class NoDecay { Paper, VectorsEmbeddings };  // train.no_decay: which parameters get no weight decay
enum class PrecisionChoice { Auto, Fp32, Bf16 };  // auto: resolved per device (train/precision.h)
enum class CudaGraphsChoice { Auto, Off };        // train.cuda_graphs: auto = where the build and device have them
enum class SelectRule { Auto, BestVal, Last };    // auto: resolved by whether a validation split exists
enum class SaveModel { Selected, Last, None };    // which epoch's weights a run keeps as model.pt
enum class VocabSource { Train, File };           // word vocabulary: training texts, or a word-list file
enum class UnsplitRule { Standard, StandardWithVal, Random };  // test split of a dataset distributed unsplit
enum class VerifyMode { Strict, Warn, Off };                   // data.verify: what a size/sha256 mismatch does
enum class MissingTrain { Error, SplitTest };                  // data.missing_train
enum class NewsgroupsRemove { None, Headers, All, Sklearn };   // data.newsgroups_remove
enum class TokenizerKind { Word, SentencePiece };              // text.tokenizer
enum class SentencePieceModel { Unigram, Bpe };                // text.sp_model
enum class NoiseSplit { None, Train, Test, Both };             // data.noise.split (validation stays clean)
enum class NoiseKind {                                         // data.noise.kind (levels: data/noise.h)
  Gaussian,
  SaltPepper,
  Speckle,
  GaussianBlur,
  MotionBlur,
  Jpeg,  // images
  TokenDrop,
  TokenSwap,
  TokenInsert,
  CharTypo  // texts
};
enum class Augment { None, Crop, Flip, CropFlip };  // data.augment (auto: the dataset's default)

const EnumNames<ModelKind>& enum_names(ModelKind);
const EnumNames<Pool>& enum_names(Pool);
const EnumNames<NormKind>& enum_names(NormKind);
const EnumNames<NormPlacement>& enum_names(NormPlacement);
const EnumNames<Positions>& enum_names(Positions);
const EnumNames<FfnKind>& enum_names(FfnKind);
const EnumNames<ScheduleKind>& enum_names(ScheduleKind);
const EnumNames<ScheduleUnit>& enum_names(ScheduleUnit);
const EnumNames<NoDecay>& enum_names(NoDecay);
const EnumNames<PrecisionChoice>& enum_names(PrecisionChoice);
const EnumNames<CudaGraphsChoice>& enum_names(CudaGraphsChoice);
const EnumNames<SelectRule>& enum_names(SelectRule);
const EnumNames<SaveModel>& enum_names(SaveModel);
const EnumNames<VocabSource>& enum_names(VocabSource);
const EnumNames<UnsplitRule>& enum_names(UnsplitRule);
const EnumNames<VerifyMode>& enum_names(VerifyMode);
const EnumNames<MissingTrain>& enum_names(MissingTrain);
const EnumNames<NewsgroupsRemove>& enum_names(NewsgroupsRemove);
const EnumNames<TokenizerKind>& enum_names(TokenizerKind);
const EnumNames<SentencePieceModel>& enum_names(SentencePieceModel);
const EnumNames<NoiseSplit>& enum_names(NoiseSplit);
const EnumNames<NoiseKind>& enum_names(NoiseKind);
const EnumNames<Augment>& enum_names(Augment);

// ---- attention

// An attention variant's own settings, a plain struct (e.g. PlugOptions in models/attention/plug.h), behind
// one value type: copies are deep, and as<S>() checks the type by std::any's own tag (no dynamic_cast, no base
// class). Filled from the variant's keys (spec/attention_variant.h).
struct AttentionVariant;

class SettingsBox {
 public:
  SettingsBox() = default;
  explicit SettingsBox(std::any settings) : settings_(std::move(settings)) {}

  // The settings as the variant's struct S; an internal error when they are another variant's.
  template <class S>
  const S& as() const {
    const S* settings = std::any_cast<S>(&settings_);
    if (!settings) wrong_type();
    return *settings;
  }
  template <class S>
  S& as() {
    S* settings = std::any_cast<S>(&settings_);
    if (!settings) wrong_type();
    return *settings;
  }

 private:
  [[noreturn]] void wrong_type() const;
  std::any settings_;
};

// The attention's own options. Its width, heads, dropouts (on the maps: model.attn_dropout; after the output
// projection: model.dropout) and init are the model's: a variant is built from the whole ModelOptions
// (models/attention/attention.h), so each number has one place.
struct AttentionOptions {
  // model.attention.kind: one of the installed variants (spec/attention_variant.h); null until
  // chosen (attention_defaults() gives a variant's defaults).
  const AttentionVariant* variant = nullptr;
  bool qkv_bias = true;  // model.attention.qkv_bias
  SettingsBox settings;  // the variant's own settings struct, e.g. PlugOptions: settings.as<PlugOptions>()
  // The fused scaled dot-product kernel where LibTorch has one (2.0+) and no maps are probed; false: the
  // explicit path always (tests compare the two on the same weights). No key: it changes no number a run reports.
  bool fused = true;

  const std::string& kind_name() const;  // the variant's name ("vanilla", "dgsa", ...)
};

// ---- feed-forward

// The feed-forward block's own options; its width, dropout and init are the model's (models/ffn/ffn.h builds it
// from the whole ModelOptions).
struct FfnOptions {
  FfnKind kind = FfnKind::Mlp;
  double ratio = 4;      // expansion e
  int64_t dropouts = 2;  // 1: after the activation; 2: also after the output projection
  double inh_p = 0.1;    // gimlp
};

// ---- model

struct ModelOptions {
  ModelKind kind = ModelKind::Vit;  // auto resolves by the dataset's modality
  int64_t dim = 256, depth = 8, heads = 8;
  int64_t patch = 4;
  int64_t max_len = 0;      // 0 = exactly the positions needed
  double dropout = 0.05;    // feed-forward and after the attention output projection
  double attn_dropout = 0;  // on attention maps
  double emb_dropout = 0;
  NormKind norm = NormKind::LayerNorm;
  NormPlacement norm_placement = NormPlacement::Pre;
  Positions positions = Positions::Learned;  // text models only
  double norm_eps = 1e-5;
  double init_std = 0.02;
  Pool pool = Pool::Cls;       // auto resolves to cls (vit), mean (text)
  AttentionOptions attention;  // the variant and its settings; dim, heads, dropouts and init_std are above
  FfnOptions ffn;              // the kind and its settings; dim, dropout and init_std are above
};

// ---- training

struct OptimizerOptions {  // AdamW
  double weight_decay = 0.01;
  NoDecay no_decay = NoDecay::Paper;  // the parameters exempt from weight_decay (models/model.h)
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
};

struct ScheduleOptions {  // the one owner of train.lr
  ScheduleKind kind = ScheduleKind::Cosine;
  ScheduleUnit unit = ScheduleUnit::Step;
  double lr = 3e-4;  // peak
  double min_lr = 0;
  int64_t warmup_steps = 0;
};

struct TrainOptions {
  int64_t epochs = 100, batch_size = 128, eval_batch_size = 512;
  int64_t eval_tokens = 8192;  // text evaluation batches: tokens, padded (0 = no limit)
  OptimizerOptions optimizer;
  ScheduleOptions schedule;
  double clip_norm = 0;  // 0 = off
  double label_smoothing = 0;
  PrecisionChoice precision = PrecisionChoice::Auto;
  CudaGraphsChoice cuda_graphs = CudaGraphsChoice::Auto;  // train/step.h
  SelectRule select = SelectRule::Auto;
  SaveModel save_model = SaveModel::Selected;
  int64_t log_every = 50;   // a steps.csv row every N optimizer steps; 0 = none
  bool tensorboard = true;  // events.out.tfevents.repro in the run folder
};

// ---- text

// The word tokenizer's vocabulary (text.*): from the training texts (min_freq, then the
// max_vocab most frequent) or, with source = file, the words of the dataset's word list
// `file` in file order (max_vocab caps it; min_freq does not apply). Specials 0-2 first.
struct VocabOptions {
  VocabSource source = VocabSource::Train;
  std::string file = "imdb.vocab";  // text.vocab_file, a file shipped with the dataset
  int64_t min_freq = 2;
  int64_t max_vocab = 60000;  // specials included
  bool lowercase = true;
};

struct TextOptions {
  TokenizerKind tokenizer = TokenizerKind::Word;
  int64_t max_len = 256;                                      // tokens per example (truncated beyond)
  SentencePieceModel sp_model = SentencePieceModel::Unigram;  // the SentencePiece model type
  int64_t sp_vocab = 8000;
  VocabOptions vocab;  // the word tokenizer's; vocab.lowercase is text.lowercase for both tokenizers
};

// ---- data

// The one split/limit planner's settings (data/split_plan.h).
struct SplitOptions {
  int64_t seed = 0;                                        // data.split_seed
  double val_fraction = 0;                                 // data.val_fraction (resolved)
  int64_t train_limit = 0, val_limit = 0, test_limit = 0;  // 0 = all
  MissingTrain missing_train = MissingTrain::Error;        // without an official training split: error or split_test
  UnsplitRule unsplit = UnsplitRule::Standard;             // data.rotten_tomatoes_split
};

struct NoiseOptions {
  NoiseSplit split = NoiseSplit::None;
  NoiseKind kind = NoiseKind::Gaussian;
  double level = 0.1;
  int64_t seed = 0;
};

struct DataOptions {
  std::string files;  // data.files: ROLE=NAME,... renames files
  VerifyMode verify = VerifyMode::Strict;
  NewsgroupsRemove newsgroups_remove = NewsgroupsRemove::All;
  SplitOptions split;
  NoiseOptions noise;
  Augment augment = Augment::None;  // auto is resolved per dataset; where a dataset has no default, none
  int64_t crop_padding = 4;
  bool normalize = true;
  // Every data.* and text.* setting as one canonical text: what a cache of prepared or tokenized splits keys on.
  std::string settings_text;
};

// ---- one run

// Everything a run's stages read, converted once from its resolved Config (spec/grid.h's PlannedRun holds it).
struct RunOptions {
  ModelOptions model;
  TrainOptions train;
  DataOptions data;
  TextOptions text;
};

// From a validated Config whose "auto" settings are resolved (resolve_settings); an unresolved "auto" the
// options need throws. run_options reads every key through its binding (spec/run_keys.h) and refuses settings
// no run can use together; the others read one section's keys.
RunOptions run_options(const Config& config);
ModelOptions model_options(const Config& config);
TrainOptions train_options(const Config& config);
DataOptions data_options(const Config& config);
// Throws when text.vocab_source=file is combined with text.tokenizer=sentencepiece.
TextOptions text_options(const Config& config);

}  // namespace repro
