#pragma once
// Figure-3-style token strips (OpenCV PNG): one block per run, the example's tokens
// laid out in lines wrapped to the page width, each on a background coloured by how far
// its relevance lies from its block's mean (the relevance of uniform attention) with the
// image figures' diverging colour map (blue = below, white = the mean, red = above),
// scaled per block by the 95th percentile of |relevance - mean|, and a colour bar under
// the blocks. (Scaled 0..max, a block whose tokens all sit at 0.7-1.0 of its largest
// relevance, as mean-pooled rollouts do, was one saturated colour.)
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace repro {

struct StripToken {
  std::string text;      // the token as the model saw it (UTF-8)
  double relevance = 0;  // signed rollout relevance
  bool unknown = false;  // <unk> to the model; `text` is the word of the raw text
};

struct StripBlock {
  std::string title;    // the run's model name
  std::string caption;  // e.g. "pred comp.windows.x"
  bool correct = false;
  std::vector<StripToken> tokens;
};

struct StripFigure {
  std::string heading;  // e.g. "newsgroups #12: attention rollout"
  std::string label;    // e.g. "true label comp.windows.x"
  std::string note;     // e.g. "truncated at 255 tokens" ("" = none)
  std::vector<StripBlock> blocks;
};

constexpr int kStripWidth = 1000;  // page width of a token strip, pixels

// The figure as a BGR image kStripWidth wide; its height grows with the tokens.
cv::Mat token_strip(const StripFigure& figure);

// A block's colour scale: its mean relevance and the 95th percentile of |relevance - mean|.
struct StripScale {
  double mean = 0, range = 0;
};
StripScale strip_scale(const StripBlock& block);
// t = (relevance - mean) / range, clamped to [-1, 1] (0 when every token has the same relevance).
double scaled_relevance(const StripScale& scale, const StripToken& token);

}  // namespace repro
