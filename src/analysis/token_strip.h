#pragma once
// Figure-3-style token strips (OpenCV PNG): one block per run, the example's tokens
// laid out in lines wrapped to the page width, each on a background coloured by its
// signed relevance with the image figures' diverging colour map (blue = negative /
// inhibitory, white = 0, red = positive / excitatory), each block scaled by its own
// largest |relevance|, and a colour bar under the blocks.
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

// t = relevance / max |relevance| of its block, in [-1, 1] (0 when the block is all 0).
double scaled_relevance(const StripBlock& block, const StripToken& token);

}  // namespace repro
