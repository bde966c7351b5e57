#include "models/model.h"

#include "models/bow.h"
#include "models/norm.h"
#include "models/text.h"
#include "models/vit.h"
#include "util/error.h"

namespace repro {

namespace {

std::string text_of(int64_t value) { return std::to_string(value); }

void check_heads(const ModelOptions& o) {
  if (o.dim % o.heads != 0)
    throw Error("model.dim=" + text_of(o.dim) + " must be divisible by model.heads=" + text_of(o.heads));
}

void check_vit(const ModelOptions& o, const DatasetInfo& info) {
  check_heads(o);
  if (info.modality != Modality::Image)
    throw Error("model.kind=vit needs an image dataset; " + info.name + " is " + name_of(info.modality));
  if (info.height % o.patch != 0 || info.width % o.patch != 0)
    throw Error("model.patch=" + text_of(o.patch) + " must divide the image size " + text_of(info.height) + "x" +
                text_of(info.width) + " of " + info.name);
}

void check_text(const ModelOptions& o, const DatasetInfo& info) {
  check_heads(o);
  if (info.modality != Modality::Text)
    throw Error("model.kind=text needs a text dataset; " + info.name + " is " + name_of(info.modality));
  if (o.max_len == 0 && info.max_length == 0)
    throw Error("model.kind=text needs model.max_len or a dataset with a maximum length");
}

void check_bow(const DatasetInfo& info) {
  if (info.modality != Modality::Text)
    throw Error("model.kind=bow needs a text dataset; " + info.name + " is " + name_of(info.modality));
}

}  // namespace

const std::vector<ModelKindSummary>& model_kind_table() {
  static const std::vector<ModelKindSummary> table = {
      {ModelKind::Vit, "pre-norm Vision Transformer on image patches, class token, learned positions"},
      {ModelKind::Text, "Transformer encoder on token ids, learned (or sinusoidal) positions, mean or <cls> pooling"},
      {ModelKind::Bow,
       "bag of words: TF-IDF of the token ids (IDF from the training split) and one linear layer; a reference "
       "floor for text tables, not a paper's model"},
  };
  return table;
}

void check_model_options(const ModelOptions& options, const DatasetInfo& info) {
  if (options.positions == Positions::Sinusoidal && options.kind != ModelKind::Text)
    throw Error("model.positions=sinusoidal applies to model.kind=text only (got " + name_of(options.kind) + ")");
  if (options.kind == ModelKind::Bow)
    check_bow(info);
  else if (options.kind == ModelKind::Text)
    check_text(options, info);
  else
    check_vit(options, info);
}

ClassifierPtr build_model(const ModelOptions& options, const DatasetInfo& info) {
  check_model_options(options, info);
  if (options.kind == ModelKind::Bow) return std::make_shared<BagOfWordsImpl>(options, info);
  if (options.kind == ModelKind::Text) return std::make_shared<TextEncoderImpl>(options, info);
  return std::make_shared<VitImpl>(options, info);
}

namespace {

bool is_norm(const torch::nn::Module& module) {
  return dynamic_cast<const RMSNormImpl*>(&module) || dynamic_cast<const torch::nn::LayerNormImpl*>(&module);
}

bool is_bias(const std::string& name) {
  return name == "bias" || (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0);
}

bool is_embedding(const std::string& name) {
  for (const char* exempt : {"cls_token", "pos_embed", "token_embed"})
    if (name.find(exempt) != std::string::npos) return true;
  return false;
}

}  // namespace

std::map<std::string, bool> decayed_parameters(const torch::nn::Module& model, NoDecay rule) {
  std::map<std::string, bool> decays;
  for (const auto& item : model.named_parameters()) {
    const auto& name = item.key();
    decays[name] = rule == NoDecay::Paper ? !is_bias(name) : item.value().dim() >= 2 && !is_embedding(name);
  }
  if (rule == NoDecay::Paper)
    for (const auto& module : model.named_modules("", /*include_self=*/false))
      if (is_norm(*module.value()))
        for (const auto& parameter : module.value()->named_parameters(/*recurse=*/false))
          decays.at(module.key() + "." + parameter.key()) = false;
  return decays;
}

}  // namespace repro
