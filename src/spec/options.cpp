#include "spec/options.h"

#include <algorithm>
#include <tuple>
#include <type_traits>

#include "spec/attention_variant.h"
#include "spec/config.h"
#include "spec/keys.h"

namespace repro {

// ---- the name tables (the spec's spelling of each enum value)

const EnumNames<ModelKind>& enum_names(ModelKind) {
  static const EnumNames<ModelKind> names = {
      {ModelKind::Vit, "vit"}, {ModelKind::Text, "text"}, {ModelKind::Bow, "bow"}};
  return names;
}
const EnumNames<Pool>& enum_names(Pool) {
  static const EnumNames<Pool> names = {{Pool::Cls, "cls"}, {Pool::Mean, "mean"}};
  return names;
}
const EnumNames<NormKind>& enum_names(NormKind) {
  static const EnumNames<NormKind> names = {{NormKind::LayerNorm, "layernorm"}, {NormKind::RmsNorm, "rmsnorm"}};
  return names;
}
const EnumNames<NormPlacement>& enum_names(NormPlacement) {
  static const EnumNames<NormPlacement> names = {{NormPlacement::Pre, "pre"}, {NormPlacement::Post, "post"}};
  return names;
}
const EnumNames<Positions>& enum_names(Positions) {
  static const EnumNames<Positions> names = {{Positions::Learned, "learned"}, {Positions::Sinusoidal, "sinusoidal"}};
  return names;
}
const EnumNames<FfnKind>& enum_names(FfnKind) {
  static const EnumNames<FfnKind> names = {
      {FfnKind::Mlp, "mlp"}, {FfnKind::Swiglu, "swiglu"}, {FfnKind::Gimlp, "gimlp"}};
  return names;
}
const EnumNames<ScheduleKind>& enum_names(ScheduleKind) {
  static const EnumNames<ScheduleKind> names = {
      {ScheduleKind::Cosine, "cosine"}, {ScheduleKind::Linear, "linear"}, {ScheduleKind::Constant, "constant"}};
  return names;
}
const EnumNames<ScheduleUnit>& enum_names(ScheduleUnit) {
  static const EnumNames<ScheduleUnit> names = {{ScheduleUnit::Step, "step"}, {ScheduleUnit::Epoch, "epoch"}};
  return names;
}
const EnumNames<NoDecay>& enum_names(NoDecay) {
  static const EnumNames<NoDecay> names = {{NoDecay::Paper, "paper"},
                                           {NoDecay::VectorsEmbeddings, "vectors_embeddings"}};
  return names;
}
const EnumNames<PrecisionChoice>& enum_names(PrecisionChoice) {
  static const EnumNames<PrecisionChoice> names = {
      {PrecisionChoice::Auto, "auto"}, {PrecisionChoice::Fp32, "fp32"}, {PrecisionChoice::Bf16, "bf16"}};
  return names;
}
const EnumNames<CudaGraphsChoice>& enum_names(CudaGraphsChoice) {
  static const EnumNames<CudaGraphsChoice> names = {{CudaGraphsChoice::Auto, "auto"}, {CudaGraphsChoice::Off, "off"}};
  return names;
}
const EnumNames<SelectRule>& enum_names(SelectRule) {
  static const EnumNames<SelectRule> names = {
      {SelectRule::Auto, "auto"}, {SelectRule::BestVal, "best_val"}, {SelectRule::Last, "last"}};
  return names;
}
const EnumNames<SaveModel>& enum_names(SaveModel) {
  static const EnumNames<SaveModel> names = {
      {SaveModel::Selected, "selected"}, {SaveModel::Last, "last"}, {SaveModel::None, "none"}};
  return names;
}
const EnumNames<VocabSource>& enum_names(VocabSource) {
  static const EnumNames<VocabSource> names = {{VocabSource::Train, "train"}, {VocabSource::File, "file"}};
  return names;
}
const EnumNames<UnsplitRule>& enum_names(UnsplitRule) {
  static const EnumNames<UnsplitRule> names = {
      {UnsplitRule::Standard, "standard"}, {UnsplitRule::StandardWithVal, "standard_with_val"}, {UnsplitRule::Random, "random"}};
  return names;
}
const EnumNames<VerifyMode>& enum_names(VerifyMode) {
  static const EnumNames<VerifyMode> names = {
      {VerifyMode::Strict, "strict"}, {VerifyMode::Warn, "warn"}, {VerifyMode::Off, "off"}};
  return names;
}
const EnumNames<MissingTrain>& enum_names(MissingTrain) {
  static const EnumNames<MissingTrain> names = {{MissingTrain::Error, "error"}, {MissingTrain::SplitTest, "split_test"}};
  return names;
}
const EnumNames<NewsgroupsRemove>& enum_names(NewsgroupsRemove) {
  static const EnumNames<NewsgroupsRemove> names = {
      {NewsgroupsRemove::None, "none"},
      {NewsgroupsRemove::Headers, "headers"},
      {NewsgroupsRemove::All, "all"},
      {NewsgroupsRemove::Sklearn, "sklearn"}};
  return names;
}
const EnumNames<NoiseSplit>& enum_names(NoiseSplit) {
  static const EnumNames<NoiseSplit> names = {
      {NoiseSplit::None, "none"}, {NoiseSplit::Train, "train"}, {NoiseSplit::Test, "test"}, {NoiseSplit::Both, "both"}};
  return names;
}
const EnumNames<NoiseKind>& enum_names(NoiseKind) {
  static const EnumNames<NoiseKind> names = {
      {NoiseKind::Gaussian, "gaussian"},        {NoiseKind::SaltPepper, "salt_pepper"},
      {NoiseKind::Speckle, "speckle"},          {NoiseKind::GaussianBlur, "gaussian_blur"},
      {NoiseKind::MotionBlur, "motion_blur"},   {NoiseKind::Jpeg, "jpeg"},
      {NoiseKind::TokenDrop, "token_drop"},     {NoiseKind::TokenSwap, "token_swap"},
      {NoiseKind::TokenInsert, "token_insert"}, {NoiseKind::CharTypo, "char_typo"}};
  return names;
}
const EnumNames<Augment>& enum_names(Augment) {
  static const EnumNames<Augment> names = {
      {Augment::None, "none"}, {Augment::Crop, "crop"}, {Augment::Flip, "flip"}, {Augment::CropFlip, "crop_flip"}};
  return names;
}
const EnumNames<TokenizerKind>& enum_names(TokenizerKind) {
  static const EnumNames<TokenizerKind> names = {{TokenizerKind::Word, "word"},
                                                 {TokenizerKind::SentencePiece, "sentencepiece"}};
  return names;
}

namespace {

// The enum value of `key`; an "auto" that resolve_settings should have replaced throws.
template <typename E>
E choice(const Config& config, const std::string& key) {
  const std::string& value = config.text(key);
  if (value == "auto" && !std::is_same_v<E, PrecisionChoice> && !std::is_same_v<E, SelectRule> &&
      !std::is_same_v<E, CudaGraphsChoice>)
    throw Error("internal: spec key '" + key + "' is still auto (resolve the settings for the dataset first)");
  return enum_from_name<E>(value, "internal: spec key '" + key + "'");
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

}  // namespace

AttentionOptions attention_options(const Config& c) {
  const std::string& kind = c.text("model.attention.kind");
  const AttentionVariant* variant = find_attention_variant(kind);
  if (!variant) throw Error("internal: spec key 'model.attention.kind' names no installed variant: " + kind);
  AttentionOptions o;
  o.variant = variant;
  o.dim = c.integer("model.dim");
  o.heads = c.integer("model.heads");
  o.attn_dropout = c.real("model.attn_dropout");
  o.proj_dropout = c.real("model.dropout");
  o.qkv_bias = c.flag("model.attention.qkv_bias");
  o.init_std = c.real("model.init_std");
  o.settings = SettingsBox(variant->read(c));
  check_claims(c, *variant);
  return o;
}

FfnOptions ffn_options(const Config& c) {
  FfnOptions o;
  o.kind = choice<FfnKind>(c, "model.ffn.kind");
  o.dim = c.integer("model.dim");
  o.ratio = c.real("model.ffn.ratio");
  o.dropout = c.real("model.dropout");
  o.dropouts = c.integer("model.ffn.dropouts");
  o.init_std = c.real("model.init_std");
  o.inh_p = c.real("model.ffn.inh_p");
  return o;
}

ModelOptions model_options(const Config& c) {
  ModelOptions o;
  o.kind = choice<ModelKind>(c, "model.kind");
  o.dim = c.integer("model.dim");
  o.depth = c.integer("model.depth");
  o.heads = c.integer("model.heads");
  o.patch = c.integer("model.patch");
  o.max_len = c.integer("model.max_len");
  o.emb_dropout = c.real("model.emb_dropout");
  o.norm = choice<NormKind>(c, "model.norm");
  o.norm_placement = choice<NormPlacement>(c, "model.norm_placement");
  o.positions = choice<Positions>(c, "model.positions");
  o.norm_eps = c.real("model.norm_eps");
  o.init_std = c.real("model.init_std");
  o.pool = choice<Pool>(c, "model.pool");
  o.attention = attention_options(c);
  o.ffn = ffn_options(c);
  return o;
}

TrainOptions train_options(const Config& c) {
  TrainOptions o;
  o.epochs = c.integer("train.epochs");
  o.batch_size = c.integer("train.batch_size");
  o.eval_batch_size = c.integer("train.eval_batch_size");
  o.eval_tokens = c.integer("train.eval_tokens");
  o.optimizer.weight_decay = c.real("train.weight_decay");
  o.optimizer.no_decay = choice<NoDecay>(c, "train.no_decay");
  std::tie(o.optimizer.beta1, o.optimizer.beta2) = c.real_pair("train.betas");
  o.optimizer.eps = c.real("train.eps");
  o.schedule.kind = choice<ScheduleKind>(c, "train.schedule");
  o.schedule.unit = choice<ScheduleUnit>(c, "train.schedule_unit");
  o.schedule.lr = c.real("train.lr");
  o.schedule.min_lr = c.real("train.min_lr");
  o.schedule.warmup_steps = c.integer("train.warmup_steps");
  o.clip_norm = c.real("train.clip_norm");
  o.label_smoothing = c.real("train.label_smoothing");
  o.log_every = c.integer("train.log_every");
  o.tensorboard = c.flag("train.tensorboard");
  o.precision = choice<PrecisionChoice>(c, "train.precision");
  o.cuda_graphs = choice<CudaGraphsChoice>(c, "train.cuda_graphs");
  o.select = choice<SelectRule>(c, "train.select");
  o.save_model = choice<SaveModel>(c, "train.save_model");
  return o;
}

TextOptions text_options(const Config& c) {
  TextOptions o;
  o.tokenizer = choice<TokenizerKind>(c, "text.tokenizer");
  o.max_len = c.integer("text.max_len");
  o.sp_model = c.text("text.sp_model");
  o.sp_vocab = c.integer("text.sp_vocab");
  VocabOptions& v = o.vocab;
  v.source = choice<VocabSource>(c, "text.vocab_source");
  v.file = c.text("text.vocab_file");
  v.min_freq = c.integer("text.min_freq");
  v.max_vocab = c.integer("text.max_vocab");
  v.lowercase = c.flag("text.lowercase");
  if (v.source == VocabSource::File && o.tokenizer != TokenizerKind::Word)
    throw Error("text.vocab_source=file needs text.tokenizer=word (got " + c.text("text.tokenizer") +
                "): a word list is a word vocabulary");
  if (v.source == VocabSource::File && trim(v.file).empty())
    throw Error(
        "text.vocab_source=file needs text.vocab_file, the name of a word list shipped with the dataset "
        "(e.g. imdb.vocab)");
  return o;
}

DataOptions data_options(const Config& c) {
  DataOptions o;
  o.files = c.text("data.files");
  o.verify = choice<VerifyMode>(c, "data.verify");
  o.newsgroups_remove = choice<NewsgroupsRemove>(c, "data.newsgroups_remove");
  SplitOptions& s = o.split;
  s.seed = c.integer("data.split_seed");
  s.val_fraction = c.real("data.val_fraction");
  s.train_limit = c.integer("data.train_limit");
  s.val_limit = c.integer("data.val_limit");
  s.test_limit = c.integer("data.test_limit");
  s.missing_train = choice<MissingTrain>(c, "data.missing_train");
  s.unsplit = choice<UnsplitRule>(c, "data.rotten_tomatoes_split");
  o.noise = {choice<NoiseSplit>(c, "data.noise.split"), choice<NoiseKind>(c, "data.noise.kind"),
             c.real("data.noise.level"), c.integer("data.noise.seed")};
  // "auto" left after resolve_settings: a dataset without a default augmentation (text) = none.
  o.augment = c.text("data.augment") == "auto" ? Augment::None : choice<Augment>(c, "data.augment");
  o.crop_padding = c.integer("data.crop_padding");
  o.normalize = c.flag("data.normalize");
  o.settings_text = c.section_text({"data.", "text."});
  return o;
}

RunOptions run_options(const Config& c) {
  RunOptions options{model_options(c), train_options(c), data_options(c), text_options(c)};
  // Settings each valid alone that no run can use together: refused here, so before anything trains.
  if (options.train.select == SelectRule::BestVal && options.data.split.val_fraction == 0)
    throw Error("train.select: best_val needs a validation split, but data.val_fraction is 0 (no dataset of repro "
                "has an official one): set data.val_fraction above 0, or train.select to last or auto");
  return options;
}

}  // namespace repro
