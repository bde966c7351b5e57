#include "analysis/figure.h"

#include <algorithm>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace {

constexpr int kCell = 128;    // side of one image or heat map, pixels
constexpr int kGap = 8;       // between cells
constexpr int kTitle = 40;    // band above the grid for column titles
constexpr int kHeading = 28;  // band above the titles
constexpr int kCaption = 18;  // band under each cell
constexpr int kBar = 150;     // colour bar and its labels, right of the grid
const cv::Scalar kInk(20, 20, 20);
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

// Text centred in [x, x + width) at baseline y, shrunk until it fits.
void centred_text(cv::Mat& canvas, const std::string& text, int x, int width, int y, double scale,
                  const cv::Scalar& colour) {
  int baseline = 0;
  cv::Size size = cv::getTextSize(text, kFont, scale, 1, &baseline);
  while (size.width > width - 4 && scale > 0.3) size = cv::getTextSize(text, kFont, scale -= 0.05, 1, &baseline);
  cv::putText(canvas, text, {x + std::max(0, (width - size.width) / 2), y}, kFont, scale, colour, 1, cv::LINE_AA);
}

// (C, H, W) uint8 -> kCell x kCell BGR.
cv::Mat image_cell(const torch::Tensor& image) {
  const auto hwc = image.permute({1, 2, 0}).contiguous().to(torch::kUInt8);  // (H, W, C)
  const int h = static_cast<int>(hwc.size(0)), w = static_cast<int>(hwc.size(1)), c = static_cast<int>(hwc.size(2));
  cv::Mat raw(h, w, c == 1 ? CV_8UC1 : CV_8UC3, const_cast<uint8_t*>(hwc.data_ptr<uint8_t>()));
  cv::Mat bgr;
  if (c == 1)
    cv::cvtColor(raw, bgr, cv::COLOR_GRAY2BGR);
  else
    cv::cvtColor(raw, bgr, cv::COLOR_RGB2BGR);
  cv::Mat cell;
  cv::resize(bgr, cell, {kCell, kCell}, 0, 0, cv::INTER_NEAREST);
  return cell;
}

// relevance (gh, gw) -> kCell x kCell BGR heat map over the (greyed) image, scaled by max |r|.
cv::Mat heat_cell(const torch::Tensor& relevance, const cv::Mat& image) {
  const auto r = relevance.to(torch::kFloat64).contiguous();
  const double scale = std::max(1e-12, r.abs().max().item<double>());
  const int gh = static_cast<int>(r.size(0)), gw = static_cast<int>(r.size(1));
  cv::Mat heat(gh, gw, CV_8UC3);
  const double* values = r.data_ptr<double>();
  for (int y = 0; y < gh; ++y)
    for (int x = 0; x < gw; ++x) heat.at<cv::Vec3b>(y, x) = diverging_colour(values[y * gw + x] / scale);
  cv::Mat big, grey, under, out;
  cv::resize(heat, big, {kCell, kCell}, 0, 0, cv::INTER_NEAREST);
  cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
  cv::cvtColor(grey, under, cv::COLOR_GRAY2BGR);
  cv::addWeighted(big, 0.65, under, 0.35, 0, out);
  return out;
}

void colour_bar(cv::Mat& canvas, int x, int top, int height) {
  const int width = 18;
  for (int y = 0; y < height; ++y) {
    const double t = 1.0 - 2.0 * y / std::max(1, height - 1);  // +1 at the top
    cv::line(canvas, {x, top + y}, {x + width, top + y}, cv::Scalar(diverging_colour(t)), 1);
  }
  cv::rectangle(canvas, {x, top}, {x + width, top + height}, kInk, 1);
  const auto label = [&](const std::string& text, int y) {
    cv::putText(canvas, text, {x + width + 6, y}, kFont, 0.4, kInk, 1, cv::LINE_AA);
  };
  label("+max", top + 10);
  label("excitatory", top + 24);
  label("0", top + height / 2 + 4);
  label("-max", top + height - 14);
  label("inhibitory", top + height);
}

}  // namespace

cv::Vec3b diverging_colour(double t) {
  t = std::clamp(t, -1.0, 1.0);
  const cv::Vec3d white(255, 255, 255), blue(170, 60, 30), red(30, 40, 200);  // BGR
  const cv::Vec3d c = t < 0 ? white * (1 + t) + blue * (-t) : white * (1 - t) + red * t;
  return {cv::saturate_cast<uint8_t>(c[0]), cv::saturate_cast<uint8_t>(c[1]), cv::saturate_cast<uint8_t>(c[2])};
}

cv::Mat rollout_grid(const std::vector<RolloutExample>& examples, const std::vector<RolloutColumn>& columns,
                     const std::string& heading) {
  const int cols = static_cast<int>(columns.size()) + 1, rows = static_cast<int>(examples.size());
  const int row_height = kCell + kCaption + kGap;
  const int width = kGap + cols * (kCell + kGap) + kBar, height = kHeading + kTitle + rows * row_height + kGap;
  cv::Mat canvas(height, width, CV_8UC3, cv::Scalar(255, 255, 255));
  centred_text(canvas, heading, 0, width - kBar, 20, 0.55, kInk);
  const auto column_x = [](int c) { return kGap + c * (kCell + kGap); };
  centred_text(canvas, "input", column_x(0), kCell + kGap, kHeading + kTitle - 10, 0.5, kInk);
  for (int c = 1; c < cols; ++c)
    centred_text(canvas, columns[c - 1].title, column_x(c) - kGap / 2, kCell + kGap, kHeading + kTitle - 10, 0.5, kInk);
  for (int r = 0; r < rows; ++r) {
    const int top = kHeading + kTitle + r * row_height;
    const cv::Mat image = image_cell(examples[r].image);
    image.copyTo(canvas(cv::Rect(column_x(0), top, kCell, kCell)));
    centred_text(canvas, examples[r].label, column_x(0), kCell, top + kCell + 13, 0.4, kInk);
    for (int c = 1; c < cols; ++c) {
      const RolloutColumn& column = columns[c - 1];
      heat_cell(column.maps.at(r), image).copyTo(canvas(cv::Rect(column_x(c), top, kCell, kCell)));
      const cv::Scalar colour = column.correct.at(r) ? cv::Scalar(40, 140, 40) : cv::Scalar(40, 40, 200);
      centred_text(canvas, column.captions.at(r), column_x(c), kCell, top + kCell + 13, 0.4, colour);
    }
  }
  colour_bar(canvas, column_x(cols) + 4, kHeading + kTitle, std::min(2 * kCell, rows * row_height - kGap));
  return canvas;
}

void write_png(const std::filesystem::path& path, const cv::Mat& image) {
  std::vector<uchar> bytes;
  if (!cv::imencode(".png", image, bytes)) throw WriteError(path.string(), "PNG encoding failed");
  write_file_atomic(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace repro
