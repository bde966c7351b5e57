#pragma once
// What the attention tests share: a variant's options at a tiny width, a module built in
// float64 with its parameters drawn away from their (often zero) init, inputs with padding,
// and every variant of the registry (the per-kind tests in test_attention.cpp take a new
// variant from there; its own test file tests/test_attention_<name>.cpp holds its formula).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "attention_reference.h"
#include "models/attention/attention.h"

namespace repro::test {

constexpr int64_t kDim = 16, kHeads = 4;

// A model's options with the variant `kind` at its defaults (diff's and dgsa's lambda schedules as
// "auto" resolves them: depth, fixed; dgsa with the residual from Q, as in a vit), width kDim, kHeads
// heads, no dropout: what a variant is built from.
ModelOptions variant_options(const std::string& kind);

// Every variant name of the registry, in its order.
std::vector<std::string> registry_kinds();

// A variant in float64 with every parameter drawn from N(0, 0.5), in eval mode.
AttentionPtr build(const ModelOptions& options, int64_t layer = 0, uint64_t seed = 7);

Params params_of(const AttentionPtr& module);

torch::Tensor inputs();   // (2, 5, kDim) float64
torch::Tensor padding();  // (2, 5): batch 0 no padding; batch 1 its last two tokens padded

double max_diff(const torch::Tensor& a, const torch::Tensor& b);

// Checks (Catch2) the module's gradients against central finite differences in float64: six
// entries of the input, some at padded tokens, and the first entry of every parameter.
void check_gradients_by_finite_differences(const ModelOptions& options);
// Checks (Catch2) that float32 gradients equal the float64 gradients of the same weights, at one
// thread (float32-only kernel faults: LibTorch 1.13's CPU GELU backward once broke gi's key side).
void check_float32_gradients(const ModelOptions& options);

}  // namespace repro::test
