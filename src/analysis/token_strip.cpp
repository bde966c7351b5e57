#include "analysis/token_strip.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

#include "analysis/figure.h"

namespace repro {

namespace {

constexpr int kMargin = 16;       // left, right, top and bottom
constexpr int kLine = 26;         // height of one line of tokens
constexpr int kBox = 21;          // height of a token's background
constexpr int kPad = 3;           // text inset in its box
constexpr int kSpace = 4;         // between tokens
constexpr int kBlockTitle = 30;   // a block's title line
constexpr int kBlockGap = 14;     // between blocks
constexpr int kHeadingBand = 58;  // heading and label lines
constexpr int kBarBand = 88;      // colour bar, its labels and three key lines
constexpr double kScale = 0.5;    // token font scale
constexpr size_t kLongest = 40;   // longer tokens are cut with "..."
constexpr int kTokenFont = cv::FONT_HERSHEY_SIMPLEX;
const cv::Scalar kTokenInk(20, 20, 20), kGreen(40, 140, 40), kRed(40, 40, 200), kGrey(110, 110, 110);

// OpenCV's Hershey fonts draw ASCII only: other characters become '?'.
std::string drawable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out += c >= 0x20 ? static_cast<char>(c) : ' ';
    } else if ((c & 0xC0) != 0x80) {  // the first byte of a UTF-8 character
      out += '?';
    }
  }
  return out;
}

// A token as drawn: ASCII, cut with "..." past kLongest characters.
std::string drawable_token(const std::string& text) {
  const std::string out = drawable(text);
  return out.size() > kLongest ? out.substr(0, kLongest - 3) + "..." : out;
}

int font_of(const StripToken& token) { return token.unknown ? kTokenFont | cv::FONT_ITALIC : kTokenFont; }

int text_width(const std::string& text, int font, double scale, int thickness = 1) {
  int baseline = 0;
  return cv::getTextSize(text, font, scale, thickness, &baseline).width;
}

// Top-left corner of each token's box, lines wrapped at `width`; returns the height used.
int layout(const std::vector<StripToken>& tokens, int width, std::vector<cv::Rect>* boxes) {
  int x = 0, y = 0;
  for (const auto& token : tokens) {
    const int w = text_width(drawable_token(token.text), font_of(token), kScale) + 2 * kPad;
    if (x > 0 && x + w > width) {
      x = 0;
      y += kLine;
    }
    if (boxes) boxes->push_back({x, y, w, kBox});
    x += w + kSpace;
  }
  return tokens.empty() ? 0 : y + kLine;
}

int block_height(const StripBlock& block) {
  return kBlockTitle + layout(block.tokens, kStripWidth - 2 * kMargin, nullptr) + kBlockGap;
}

void draw_block(cv::Mat& canvas, const StripBlock& block, char letter, int top) {
  const std::string title = std::string("(") + letter + ") " + drawable(block.title);
  cv::putText(canvas, title, {kMargin, top + 20}, kTokenFont, 0.6, kTokenInk, 2, cv::LINE_AA);
  const int after_title = kMargin + text_width(title, kTokenFont, 0.6, 2) + 16;
  cv::putText(canvas, drawable(block.caption), {after_title, top + 20}, kTokenFont, 0.5, block.correct ? kGreen : kRed,
              1, cv::LINE_AA);
  std::vector<cv::Rect> boxes;
  layout(block.tokens, kStripWidth - 2 * kMargin, &boxes);
  const StripScale scale = strip_scale(block);
  for (size_t i = 0; i < boxes.size(); ++i) {
    const StripToken& token = block.tokens[i];
    const double t = scaled_relevance(scale, token);
    const cv::Rect box = boxes[i] + cv::Point(kMargin, top + kBlockTitle);
    cv::rectangle(canvas, box, cv::Scalar(diverging_colour(t)), cv::FILLED);
    const cv::Scalar ink = std::abs(t) > 0.6 ? cv::Scalar(255, 255, 255) : (token.unknown ? kGrey : kTokenInk);
    cv::putText(canvas, drawable_token(token.text), {box.x + kPad, box.y + kBox - 6}, font_of(token), kScale, ink, 1,
                cv::LINE_AA);
    if (token.unknown)  // underlined, as in the HTML
      cv::line(canvas, {box.x + kPad, box.y + kBox - 3}, {box.x + box.width - kPad, box.y + kBox - 3}, ink, 1);
  }
}

// A horizontal colour bar from -max (left) to +max (right), centred under the blocks.
void strip_colour_bar(cv::Mat& canvas, int top) {
  const int width = 360, height = 14, left = (kStripWidth - width) / 2;
  for (int x = 0; x < width; ++x) {
    const double t = -1.0 + 2.0 * x / (width - 1);
    cv::line(canvas, {left + x, top}, {left + x, top + height}, cv::Scalar(diverging_colour(t)), 1);
  }
  cv::rectangle(canvas, {left, top}, {left + width, top + height}, kTokenInk, 1);
  const int y = top + height + 16;
  const auto label = [&](const std::string& text, int x) {
    cv::putText(canvas, text, {x, y}, kTokenFont, 0.45, kTokenInk, 1, cv::LINE_AA);
  };
  label("below the block's mean", left - 60);
  label("mean", left + width / 2 - 14);
  label("above the block's mean", left + width - 110);
  const std::string keys[] = {"colour = relevance minus its block's mean (what uniform attention gives),",
                              "scaled per block by the 95th percentile of |deviation| (beyond it: full colour);",
                              "italic underlined = not in the vocabulary (<unk>)"};
  for (int i = 0; i < 3; ++i)
    cv::putText(canvas, keys[i], {(kStripWidth - text_width(keys[i], kTokenFont, 0.4)) / 2, y + 18 + 15 * i},
                kTokenFont, 0.4, kGrey, 1, cv::LINE_AA);
}

}  // namespace

StripScale strip_scale(const StripBlock& block) {
  StripScale scale;
  if (block.tokens.empty()) return scale;
  for (const auto& t : block.tokens) scale.mean += t.relevance;
  scale.mean /= static_cast<double>(block.tokens.size());
  std::vector<double> deviations;
  for (const auto& t : block.tokens) deviations.push_back(std::abs(t.relevance - scale.mean));
  std::sort(deviations.begin(), deviations.end());
  // The 95th percentile (nearest rank): one outlier token no longer washes out the others.
  const auto rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(deviations.size())));
  scale.range = deviations[std::max<size_t>(rank, 1) - 1];
  if (scale.range <= 0) scale.range = deviations.back();
  return scale;
}

double scaled_relevance(const StripScale& scale, const StripToken& token) {
  return scale.range > 0 ? std::clamp((token.relevance - scale.mean) / scale.range, -1.0, 1.0) : 0.0;
}

cv::Mat token_strip(const StripFigure& figure) {
  int height = kMargin + kHeadingBand;
  for (const auto& block : figure.blocks) height += block_height(block);
  height += kBarBand + kMargin;
  cv::Mat canvas(height, kStripWidth, CV_8UC3, cv::Scalar(255, 255, 255));
  cv::putText(canvas, drawable(figure.heading), {kMargin, kMargin + 18}, kTokenFont, 0.65, kTokenInk, 2, cv::LINE_AA);
  std::string second = drawable(figure.label);
  if (!figure.note.empty()) second += "   (" + drawable(figure.note) + ")";
  cv::putText(canvas, second, {kMargin, kMargin + 44}, kTokenFont, 0.5, kTokenInk, 1, cv::LINE_AA);
  int top = kMargin + kHeadingBand;
  char letter = 'a';
  for (const auto& block : figure.blocks) {
    draw_block(canvas, block, letter++, top);
    top += block_height(block);
  }
  strip_colour_bar(canvas, top + 4);
  return canvas;
}

}  // namespace repro
