#include "spec/options.h"

#include "spec/config.h"
#include "spec/run_keys.h"

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
  static const EnumNames<UnsplitRule> names = {{UnsplitRule::Standard, "standard"},
                                               {UnsplitRule::StandardWithVal, "standard_with_val"},
                                               {UnsplitRule::Random, "random"}};
  return names;
}
const EnumNames<VerifyMode>& enum_names(VerifyMode) {
  static const EnumNames<VerifyMode> names = {
      {VerifyMode::Strict, "strict"}, {VerifyMode::Warn, "warn"}, {VerifyMode::Off, "off"}};
  return names;
}
const EnumNames<MissingTrain>& enum_names(MissingTrain) {
  static const EnumNames<MissingTrain> names = {{MissingTrain::Error, "error"},
                                                {MissingTrain::SplitTest, "split_test"}};
  return names;
}
const EnumNames<NewsgroupsRemove>& enum_names(NewsgroupsRemove) {
  static const EnumNames<NewsgroupsRemove> names = {{NewsgroupsRemove::None, "none"},
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
const EnumNames<SentencePieceModel>& enum_names(SentencePieceModel) {
  static const EnumNames<SentencePieceModel> names = {{SentencePieceModel::Unigram, "unigram"},
                                                      {SentencePieceModel::Bpe, "bpe"}};
  return names;
}
const EnumNames<TokenizerKind>& enum_names(TokenizerKind) {
  static const EnumNames<TokenizerKind> names = {{TokenizerKind::Word, "word"},
                                                 {TokenizerKind::SentencePiece, "sentencepiece"}};
  return names;
}

namespace {

// The options of every key whose name begins with `prefix` ("" = all), the others at their defaults.
RunOptions read_keys(const Config& c, const std::string& prefix) {
  RunOptions options;
  for (const auto* keys : {&run_keys_before_attention(), &run_keys_after_attention()})
    for (const Key<RunOptions>& key : *keys)
      if (key.read && starts_with(key.def.key, prefix)) key.read(c, options);
  options.data.settings_text = c.section_text({"data.", "text."});
  return options;
}

// Settings each valid alone that no run can use together: refused here, so before anything trains.
void check_text(const TextOptions& o) {
  if (o.vocab.source == VocabSource::File && o.tokenizer != TokenizerKind::Word)
    throw Error("text.vocab_source=file needs text.tokenizer=word (got " + name_of(o.tokenizer) +
                "): a word list is a word vocabulary");
  if (o.vocab.source == VocabSource::File && trim(o.vocab.file).empty())
    throw Error(
        "text.vocab_source=file needs text.vocab_file, the name of a word list shipped with the dataset "
        "(e.g. imdb.vocab)");
}

void check_together(const RunOptions& o) {
  check_text(o.text);
  if (o.train.select == SelectRule::BestVal && o.data.split.val_fraction == 0)
    throw Error(
        "train.select: best_val needs a validation split, but data.val_fraction is 0 (no dataset of repro "
        "has an official one): set data.val_fraction above 0, or train.select to last or auto");
}

}  // namespace

ModelOptions model_options(const Config& c) { return read_keys(c, "model.").model; }
TrainOptions train_options(const Config& c) { return read_keys(c, "train.").train; }
DataOptions data_options(const Config& c) { return read_keys(c, "data.").data; }

TextOptions text_options(const Config& c) {
  TextOptions o = read_keys(c, "text.").text;
  check_text(o);
  return o;
}

RunOptions run_options(const Config& c) {
  RunOptions options = read_keys(c, "");
  check_together(options);
  return options;
}

}  // namespace repro
