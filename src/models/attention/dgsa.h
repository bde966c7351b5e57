#pragma once
#include "models/attention/attention.h"
#include "models/attention/diff_core.h"

namespace repro {

// dgsa's settings: the differential layout's keys (diff_core.h) and the gate's.
struct DgsaOptions {
  DiffLayoutOptions layout{0, LambdaSchedule::Fixed};  // auto lambda_schedule = fixed (lambda_init 0.8)
  bool q_residual = true;                              // q_residual auto resolves to on for vit, off for text
  double gate_bias_init = 0;
  double gate_weight_std = 0;  // 0 = zeros
  int64_t gate_layers = 1;     // 1 = W_g: D -> h; 2 = D -> D, GELU, D -> h
};

const AttentionEntry& dgsa_attention();

}  // namespace repro
