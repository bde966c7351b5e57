#include "models/model.h"

#include "models/text.h"
#include "models/vit.h"
#include "util/error.h"

namespace repro {

namespace {

void check_heads(const Config& config) {
  const int64_t dim = config.integer("model.dim"), heads = config.integer("model.heads");
  if (dim % heads != 0)
    throw Error("model.dim=" + std::to_string(dim) + " must be divisible by model.heads=" + std::to_string(heads));
}

void check_vit(const Config& config, const DatasetInfo& info) {
  const int64_t patch = config.integer("model.patch");
  check_heads(config);
  if (info.modality != "image")
    throw Error("model.kind=vit needs an image dataset; " + info.name + " is " + info.modality);
  if (info.height % patch != 0 || info.width % patch != 0)
    throw Error("model.patch=" + std::to_string(patch) + " must divide the image size " + std::to_string(info.height) +
                "x" + std::to_string(info.width) + " of " + info.name);
}

void check_text(const Config& config, const DatasetInfo& info) {
  check_heads(config);
  if (info.modality != "text")
    throw Error("model.kind=text needs a text dataset; " + info.name + " is " + info.modality);
  if (config.integer("model.max_len") == 0 && info.max_length == 0)
    throw Error("model.kind=text needs model.max_len or a dataset with a maximum length");
}

}  // namespace

ClassifierPtr build_model(const Config& config, const DatasetInfo& info) {
  const std::string& kind = config.text("model.kind");
  if (kind == "text" || (kind == "auto" && info.modality == "text")) {
    check_text(config, info);
    return std::make_shared<TextEncoderImpl>(config, info);
  }
  check_vit(config, info);
  return std::make_shared<VitImpl>(config, info);
}

bool decays(const std::string& name, const torch::Tensor& parameter) {
  if (parameter.dim() < 2) return false;  // biases, norm weights, per-head scalars
  for (const char* exempt : {"cls_token", "pos_embed", "token_embed"})
    if (name.find(exempt) != std::string::npos) return false;
  return true;
}

}  // namespace repro
