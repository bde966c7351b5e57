// Noise injection: determinism per example and the documented level semantics.
#include "catch.h"

#include "data/noise.h"

using namespace repro;
using repro::test::Contains;

namespace {

NoiseOptions spec(const std::string& kind, double level, int64_t seed = 1) {
  return {NoiseSplit::Both, enum_from_name<NoiseKind>(kind, "data.noise.kind"), level, seed};
}

torch::Tensor gray_images(int64_t n, int64_t channels = 3) {  // mid-gray, so that noise is not clipped
  return torch::full({n, channels, 32, 32}, 128, torch::kUInt8);
}

double measured_std(const torch::Tensor& noisy, const torch::Tensor& clean) {
  return ((noisy.to(torch::kFloat64) - clean.to(torch::kFloat64)) / 255.0).std().item<double>();
}

}  // namespace

TEST_CASE("image noise is deterministic per example and seed", "[data]") {
  torch::manual_seed(0);
  const auto images = torch::randint(0, 256, {6, 3, 32, 32}, torch::kUInt8);
  int image_kinds = 0;
  for (const auto& [noise_kind, name] : enum_names(NoiseKind{})) {
    if (!is_image_noise(noise_kind)) continue;
    ++image_kinds;
    const std::string kind = name;
    INFO(kind);
    if (!REPRO_HAS_OPENCV && (kind == "jpeg" || kind == "motion_blur" || kind == "gaussian_blur")) continue;
    const double level = kind == "jpeg" ? 60 : kind == "motion_blur" ? 5 : kind == "gaussian_blur" ? 1.0 : 0.2;
    const auto a = add_image_noise(images, spec(kind, level), 3);
    CHECK(torch::equal(a, add_image_noise(images, spec(kind, level), 3)));
    CHECK_FALSE(torch::equal(a, images));
    CHECK(a.sizes() == images.sizes());
    // Example 4 gets the same noise alone as in the batch.
    CHECK(torch::equal(add_image_noise(images.slice(0, 0, 5), spec(kind, level), 3)[4], a[4]));
    if (kind != "gaussian_blur" && kind != "jpeg")  // these two draw no random numbers
      CHECK_FALSE(torch::equal(a, add_image_noise(images, spec(kind, level, 2), 3)));
  }
  CHECK(image_kinds == 6);
  CHECK(noise_kinds_text(false) == "token_drop, token_swap, token_insert, char_typo");
}

TEST_CASE("image noise levels mean what docs/data.md says", "[data]") {
  const auto gray = gray_images(20);
  CHECK(measured_std(add_image_noise(gray, spec("gaussian", 0.1), 1), gray) == Approx(0.1).epsilon(0.05));
  CHECK(measured_std(add_image_noise(gray, spec("gaussian", 0.05), 1), gray) == Approx(0.05).epsilon(0.05));
  CHECK(measured_std(add_image_noise(gray, spec("speckle", 0.2), 1), gray) == Approx(0.2 * 128 / 255.0).epsilon(0.05));
  const auto salted = add_image_noise(gray, spec("salt_pepper", 0.3), 1);
  const double changed = salted.ne(gray).to(torch::kFloat64).mean().item<double>();
  CHECK(changed == Approx(0.3).epsilon(0.05));
  CHECK(salted.eq(0).sum().item<int64_t>() == Approx(salted.eq(255).sum().item<int64_t>()).epsilon(0.1));
  torch::manual_seed(1);
  const auto random = torch::randint(0, 256, {4, 1, 32, 32}, torch::kUInt8);
#if REPRO_HAS_OPENCV
  const auto blurred = add_image_noise(random, spec("gaussian_blur", 2.0), 1);
  CHECK(blurred.to(torch::kFloat32).std().item<float>() < 0.5f * random.to(torch::kFloat32).std().item<float>());
  const auto jpeg = add_image_noise(random, spec("jpeg", 90), 1);  // quality 10
  CHECK(measured_std(jpeg, random) > 0.05);
  CHECK(measured_std(add_image_noise(random, spec("jpeg", 0), 1), random) < measured_std(jpeg, random));
#endif
}

TEST_CASE("token noise: drop, swap and insert at the given probability", "[data]") {
  auto ids = torch::zeros({200, 42}, torch::kInt64);
  ids.index_put_({torch::indexing::Slice(), 0}, 2);                                                  // <cls>
  ids.index_put_({torch::indexing::Slice(), torch::indexing::Slice(1, 41)}, torch::arange(10, 50));  // 40 tokens
  const auto lengths = [](const torch::Tensor& t) {
    return t.ne(0).sum(1).to(torch::kFloat64).mean().item<double>() - 1;
  };
  const auto dropped = add_token_noise(ids, spec("token_drop", 0.25), 100, 3);
  CHECK(lengths(dropped) == Approx(30).epsilon(0.05));
  CHECK(torch::equal(dropped, add_token_noise(ids, spec("token_drop", 0.25), 100, 3)));
  const auto swapped = add_token_noise(ids, spec("token_swap", 0.5), 100, 3);
  CHECK(torch::equal(std::get<0>(swapped.sort(1)), std::get<0>(ids.sort(1))));  // same tokens, new order
  CHECK_FALSE(torch::equal(swapped, ids));
  const auto inserted = add_token_noise(ids, spec("token_insert", 0.01), 100, 3);
  CHECK(lengths(inserted) > 40.0);
  CHECK(inserted.select(1, 0).eq(2).all().item<bool>());  // <cls> kept
  const auto typos = add_text_noise({"hello wonderful world"}, spec("char_typo", 1.0), 3);
  CHECK(typos[0] != "hello wonderful world");
  CHECK(typos[0].size() == std::string("hello wonderful world").size());
  CHECK(add_text_noise({"hello"}, spec("char_typo", 0.0), 3)[0] == "hello");
}
