#pragma once
#include "models/attention/attention.h"

namespace repro {

enum class PlugGml { A, B, C, D, E };
enum class PlugActivation { Tanh, Softsign, Hardtanh, None };
enum class PlugPosition { Pre, Post };
const EnumNames<PlugGml>& enum_names(PlugGml);
const EnumNames<PlugActivation>& enum_names(PlugActivation);
const EnumNames<PlugPosition>& enum_names(PlugPosition);

// plug's settings (model.attention.plug_*).
struct PlugOptions {
  double fraction = 1;  // gating width / head width
  PlugGml gml = PlugGml::E;
  int64_t hidden = 4;  // GML D's hidden width
  PlugActivation activation = PlugActivation::Tanh;
  bool head_specific = false;
  PlugPosition position = PlugPosition::Pre;
  bool residual = true;
};

const AttentionEntry& plug_attention();

}  // namespace repro
