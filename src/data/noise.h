#pragma once
// Noise injection for robustness experiments (data.noise.*), deterministic per
// example: example i of a split gets the same noise for a given seed, whatever
// the batch, device or run. Levels:
//   gaussian       x + N(0, level^2), pixels in [0, 1] (level = noise std)
//   salt_pepper    a fraction `level` of pixel positions set to black or white (half each)
//   speckle        x + x * N(0, level^2)
//   gaussian_blur  Gaussian blur with sigma = level pixels (OpenCV)
//   motion_blur    a line kernel of length round(level) pixels at a random angle (OpenCV)
//   jpeg           JPEG round trip at quality 100 - level (level in [0, 99]; OpenCV)
//   token_drop     each token dropped with probability `level`
//   token_swap     each token swapped with the next with probability `level`
//   token_insert   after each token, a random vocabulary word inserted with probability `level`
//   char_typo      each word has two adjacent letters swapped with probability `level`
#include <string>
#include <vector>

#include "data/dataset.h"
#include "spec/options.h"

namespace repro {

// data.noise.* (NoiseOptions, spec/options.h) on `split` (Train or Test)?
inline bool noise_applies_to(const NoiseOptions& noise, NoiseSplit split) {
  return noise.split == NoiseSplit::Both || noise.split == split;
}
bool is_image_noise(NoiseKind kind);
// The kinds of one modality, in table order, for messages: "gaussian, salt_pepper, ..."
std::string noise_kinds_text(bool image);

// images: (N, C, H, W) uint8 -> a noisy copy. `salt` separates splits.
torch::Tensor add_image_noise(const torch::Tensor& images, const NoiseOptions& noise, uint64_t salt);
// ids: (N, L) int64 (<cls> first, 0 = padding) -> a noisy copy (token kinds).
torch::Tensor add_token_noise(const torch::Tensor& ids, const NoiseOptions& noise, int64_t vocab_size, uint64_t salt);
// char_typo on raw texts.
std::vector<std::string> add_text_noise(const std::vector<std::string>& texts, const NoiseOptions& noise, uint64_t salt);

}  // namespace repro
