#pragma once
// Figure-2-style PNG grids of signed relevance maps (OpenCV): one row per example,
// the input image first, then one heat map per run over the image, model names as
// column titles, a diverging colour map (blue = negative / inhibitory, white = 0,
// red = positive / excitatory), each map scaled by its largest |relevance|, and a
// colour bar.
#include <torch/torch.h>

#include <filesystem>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace repro {

struct RolloutExample {
  torch::Tensor image;  // (C, H, W) uint8, C = 1 or 3
  std::string label;    // e.g. "#12 Dress"
};

struct RolloutColumn {
  std::string title;                  // the run's model name
  std::vector<torch::Tensor> maps;    // per example: (gh, gw) relevance of each patch
  std::vector<std::string> captions;  // per example: e.g. "pred Dress"
  std::vector<bool> correct;          // per example: caption in green (true) or red
};

// The grid as a BGR image.
cv::Mat rollout_grid(const std::vector<RolloutExample>& examples, const std::vector<RolloutColumn>& columns,
                     const std::string& heading);
// Writes `image` as PNG; throws repro::Error naming `path` when it cannot.
void write_png(const std::filesystem::path& path, const cv::Mat& image);

// BGR colour of t in [-1, 1]: blue (-1), white (0), red (+1).
cv::Vec3b diverging_colour(double t);

}  // namespace repro
