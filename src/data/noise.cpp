#include "data/noise.h"

#if REPRO_HAS_OPENCV
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <random>

#include "util/error.h"

namespace repro {

namespace {

// The generator of example `index`: a function of the seed, the split and the index only.
std::mt19937_64 example_rng(int64_t seed, uint64_t salt, int64_t index) {
  uint64_t x = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull ^ (salt + 0x632BE59BD9B4E019ull) ^
               (static_cast<uint64_t>(index) * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31;
  return std::mt19937_64(x);
}

#if REPRO_HAS_OPENCV
// (C, H, W) uint8 tensor <-> H x W x C OpenCV image.
cv::Mat to_mat(const torch::Tensor& image) {
  const auto hwc = image.permute({1, 2, 0}).contiguous();
  return cv::Mat(static_cast<int>(hwc.size(0)), static_cast<int>(hwc.size(1)), CV_8UC(static_cast<int>(hwc.size(2))),
                 hwc.data_ptr<uint8_t>())
      .clone();
}

void from_mat(const cv::Mat& mat, torch::Tensor image) {  // image: (C, H, W) uint8, written in place
  const auto channels = image.size(0);
  auto hwc = torch::from_blob(mat.data, {mat.rows, mat.cols, channels}, torch::kUInt8);
  image.copy_(hwc.permute({2, 0, 1}));
}

#endif

void pixel_noise(float* x, int64_t count, const NoiseOptions& n, std::mt19937_64& rng) {  // x in [0, 1]
  std::normal_distribution<float> normal(0.0f, static_cast<float>(n.level));
  for (int64_t i = 0; i < count; ++i) {
    if (n.kind == NoiseKind::Gaussian)
      x[i] += normal(rng);
    else if (n.kind == NoiseKind::Speckle)
      x[i] += x[i] * normal(rng);
  }
}

void salt_pepper(torch::Tensor image, double fraction, std::mt19937_64& rng) {  // (C, H, W) uint8
  const int64_t C = image.size(0), H = image.size(1), W = image.size(2);
  std::uniform_real_distribution<double> u(0, 1);
  auto* p = image.data_ptr<uint8_t>();
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x) {
      if (u(rng) >= fraction) continue;
      const uint8_t value = u(rng) < 0.5 ? 0 : 255;
      for (int64_t c = 0; c < C; ++c) p[(c * H + y) * W + x] = value;
    }
}

#if REPRO_HAS_OPENCV
cv::Mat filtered(const cv::Mat& mat, const NoiseOptions& n, std::mt19937_64& rng) {
  cv::Mat out;
  if (n.kind == NoiseKind::GaussianBlur) {
    if (n.level <= 0) return mat;
    cv::GaussianBlur(mat, out, cv::Size(0, 0), n.level, n.level, cv::BORDER_REFLECT);
  } else if (n.kind == NoiseKind::MotionBlur) {
    const int length = std::max(1, static_cast<int>(std::lround(n.level)));
    cv::Mat kernel = cv::Mat::zeros(length, length, CV_32F);
    const double angle = std::uniform_real_distribution<double>(0, 180)(rng);
    const cv::Point2f center((length - 1) / 2.0f, (length - 1) / 2.0f);
    const double dx = std::cos(angle * M_PI / 180) * (length - 1) / 2,
                 dy = std::sin(angle * M_PI / 180) * (length - 1) / 2;
    cv::line(kernel, cv::Point2f(center.x - dx, center.y - dy), cv::Point2f(center.x + dx, center.y + dy), 1.0, 1);
    kernel /= std::max(1.0, cv::sum(kernel)[0]);
    cv::filter2D(mat, out, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT);
  } else {  // jpeg
    std::vector<uchar> buffer;
    cv::imencode(".jpg", mat, buffer, {cv::IMWRITE_JPEG_QUALITY, std::clamp(100 - static_cast<int>(n.level), 1, 100)});
    out = cv::imdecode(buffer, mat.channels() == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
  }
  return out;
}
#endif

}  // namespace

bool is_image_noise(NoiseKind kind) {
  switch (kind) {
    case NoiseKind::Gaussian:
    case NoiseKind::SaltPepper:
    case NoiseKind::Speckle:
    case NoiseKind::GaussianBlur:
    case NoiseKind::MotionBlur:
    case NoiseKind::Jpeg:
      return true;
    case NoiseKind::TokenDrop:
    case NoiseKind::TokenSwap:
    case NoiseKind::TokenInsert:
    case NoiseKind::CharTypo:
      return false;
  }
  return false;
}

std::string noise_kinds_text(bool image) {
  std::vector<std::string> kinds;
  for (const auto& [kind, name] : enum_names(NoiseKind{}))
    if (is_image_noise(kind) == image) kinds.emplace_back(name);
  return join(kinds, ", ");
}

torch::Tensor add_image_noise(const torch::Tensor& images, const NoiseOptions& n, uint64_t salt) {
  auto out = images.clone();  // (N, C, H, W) uint8
  for (int64_t i = 0; i < out.size(0); ++i) {
    auto rng = example_rng(n.seed, salt, i);
    auto image = out[i];  // (C, H, W)
    if (n.kind == NoiseKind::Gaussian || n.kind == NoiseKind::Speckle) {
      auto x = image.to(torch::kFloat32).div_(255.0).contiguous();
      pixel_noise(x.data_ptr<float>(), x.numel(), n, rng);
      image.copy_(x.clamp_(0, 1).mul_(255.0).round_().to(torch::kUInt8));
    } else if (n.kind == NoiseKind::SaltPepper) {
      salt_pepper(image, n.level, rng);
    } else {
#if REPRO_HAS_OPENCV
      from_mat(filtered(to_mat(image), n, rng), image);
#else
      missing_feature("data.noise.kind=" + name_of(n.kind), "OpenCV", "REPRO_WITH_OPENCV");
#endif
    }
  }
  return out;
}

torch::Tensor add_token_noise(const torch::Tensor& ids, const NoiseOptions& n, int64_t vocab_size, uint64_t salt) {
  const int64_t N = ids.size(0), L = ids.size(1);
  auto out = torch::zeros_like(ids);
  const auto* in = ids.data_ptr<int64_t>();
  auto* dst = out.data_ptr<int64_t>();
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t i = 0; i < N; ++i) {
    auto rng = example_rng(n.seed, salt, i);
    std::vector<int64_t> tokens;  // without the leading <cls> and the padding
    for (int64_t j = 1; j < L && in[i * L + j] != 0; ++j) tokens.push_back(in[i * L + j]);
    std::vector<int64_t> noisy;
    for (size_t j = 0; j < tokens.size(); ++j) {
      if (n.kind == NoiseKind::TokenDrop && u(rng) < n.level) continue;
      if (n.kind == NoiseKind::TokenSwap && j + 1 < tokens.size() && u(rng) < n.level) {
        noisy.push_back(tokens[j + 1]);
        noisy.push_back(tokens[j]);
        ++j;
        continue;
      }
      noisy.push_back(tokens[j]);
      if (n.kind == NoiseKind::TokenInsert && u(rng) < n.level)
        noisy.push_back(std::uniform_int_distribution<int64_t>(3, std::max<int64_t>(3, vocab_size - 1))(rng));
    }
    dst[i * L] = in[i * L];
    for (int64_t j = 0; j < std::min<int64_t>(L - 1, static_cast<int64_t>(noisy.size())); ++j)
      dst[i * L + 1 + j] = noisy[j];
  }
  return out;
}

std::vector<std::string> add_text_noise(const std::vector<std::string>& texts, const NoiseOptions& n, uint64_t salt) {
  std::vector<std::string> out;
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < texts.size(); ++i) {
    auto rng = example_rng(n.seed, salt, static_cast<int64_t>(i));
    std::string text = texts[i];
    for (size_t start = 0; start < text.size();) {  // words: runs of ASCII letters
      while (start < text.size() && !std::isalpha(static_cast<unsigned char>(text[start]))) ++start;
      size_t end = start;
      while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
      if (end - start >= 2 && u(rng) < n.level) {
        const size_t at = start + std::uniform_int_distribution<size_t>(0, end - start - 2)(rng);
        std::swap(text[at], text[at + 1]);
      }
      start = end;
    }
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace repro
