// IDX reading on generated fixtures (valid, truncated, bad magic), Fashion-MNIST
// loading, missing-file messages, limits and the stratified validation split;
// checksums at load, the hash cache, class checks and the split planner.
#include "catch.h"
#include <cstdlib>

#include "data/fashion_mnist.h"
#include "data/hash_cache.h"
#include "data/idx.h"
#include "data/integrity.h"
#include "data/prepare.h"
#include "data/prepare_text.h"
#include "data/split_plan.h"
#include "data/text_sources.h"
#include "data/vision_batches.h"
#include "fixtures.h"
#include "spec/config.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

// An IDX file read as the Fashion-MNIST loader reads its bytes: gunzip (plain bytes pass), then parse.
torch::Tensor idx_images_of(const std::filesystem::path& file) {
  return parse_idx_images(gunzip(read_file(file), file.string()), file.string());  // (count, 1, rows, cols) uint8
}
torch::Tensor idx_labels_of(const std::filesystem::path& file, int64_t classes) {
  return parse_idx_labels(gunzip(read_file(file), file.string()), classes, file.string());  // (count,) int64
}

}  // namespace

TEST_CASE("IDX images and labels round-trip from gzip fixtures", "[data]") {
  test::TempDir dir("idx");
  test::write_bytes(dir.path() / "img.gz", test::idx_images(20, 28, 28), true);
  test::write_bytes(dir.path() / "lab.gz", test::idx_labels(20, 10), true);
  const auto images = idx_images_of(dir.path() / "img.gz");
  CHECK(images.sizes() == torch::IntArrayRef({20, 1, 28, 28}));
  CHECK(images.scalar_type() == torch::kUInt8);
  const auto labels = idx_labels_of(dir.path() / "lab.gz", 10);
  CHECK(labels[13].item<int64_t>() == 3);
  // Uncompressed files are read as well.
  test::write_bytes(dir.path() / "plain", test::idx_labels(5, 10), false);
  CHECK(idx_labels_of(dir.path() / "plain", 10).size(0) == 5);
}

TEST_CASE("corrupt IDX files fail with the file and the problem", "[data]") {
  test::TempDir dir("idx-bad");
  auto truncated = test::idx_images(20, 28, 28);
  truncated.resize(truncated.size() - 100);
  test::write_bytes(dir.path() / "trunc.gz", truncated, true);
  CHECK_THROWS_WITH(idx_images_of(dir.path() / "trunc.gz"), Contains("trunc.gz") && Contains("truncated IDX"));
  test::write_bytes(dir.path() / "magic.gz", test::idx_images(2, 28, 28, 2049), true);
  CHECK_THROWS_WITH(idx_images_of(dir.path() / "magic.gz"),
                    Contains("magic.gz") && Contains("bad IDX magic number 2049"));
  test::write_bytes(dir.path() / "short.gz", "abc", true);
  CHECK_THROWS_WITH(idx_labels_of(dir.path() / "short.gz", 10), Contains("shorter than its 8-byte header"));
  test::write_bytes(dir.path() / "labels.gz", test::idx_labels(20, 12), true);
  CHECK_THROWS_WITH(idx_labels_of(dir.path() / "labels.gz", 10), Contains("label 10 at record 10"));
  test::write_bytes(dir.path() / "notgz.gz", std::string("\x1f\x8b\x08\x00garbage", 12), false);
  CHECK_THROWS_WITH(idx_labels_of(dir.path() / "notgz.gz", 10), Contains("notgz.gz"));
}

TEST_CASE("Fashion-MNIST loads from the data root and names missing files", "[data]") {
  test::TempDir dir("fashion");
  CHECK_THROWS_WITH(load_fashion_mnist(dir.path()), Contains("missing file train-images-idx3-ubyte.gz") &&
                                                        Contains(dir.path().string()) && Contains("Get it from http"));
  test::write_fashion_fixture(dir.path(), 40, 20);
  const RawData raw = load_fashion_mnist(dir.path(), test::unchecked());
  CHECK(raw.train.size() == 40);
  CHECK(raw.test.size() == 20);
  REQUIRE(raw.notes.size() == 2);  // both splits differ from the official counts
  CHECK_THAT(raw.notes[0], Contains("40 of the official 60000"));
  CHECK(raw.incomplete);
  CHECK_FALSE(raw.unverified);
}

TEST_CASE("limits and the stratified validation split are seeded and disjoint", "[data]") {
  test::TempDir dir("prepare");
  test::write_fashion_fixture(dir.path(), 200, 50);
  const RawData raw = load_fashion_mnist(dir.path(), test::unchecked());
  Config config = Config::defaults();
  config.set("data.val_fraction", "0.2", "test");
  config.set("data.test_limit", "30", "test");
  const RunData a = prepare_run_data(fashion_mnist_info(), raw, data_options(config));
  CHECK(a.val.size() == 40);
  CHECK(a.train.size() == 160);
  CHECK(a.test.size() == 30);
  // 20% of each class's 20 examples.
  CHECK(torch::bincount(a.val.labels).eq(4).all().item<bool>());
  const RunData b = prepare_run_data(fashion_mnist_info(), raw, data_options(config));
  CHECK(torch::equal(a.val.inputs, b.val.inputs));
  config.set("data.split_seed", "1", "test");
  const RunData c = prepare_run_data(fashion_mnist_info(), raw, data_options(config));
  CHECK_FALSE(torch::equal(a.val.inputs, c.val.inputs));
  config.set("data.val_limit", "10", "test");  // 10 of 40: some class is left out, which is an error
  CHECK_THROWS_WITH(
      prepare_run_data(fashion_mnist_info(), raw, data_options(config)),
      Contains("the validation split (10 examples) has no example of class") && Contains("after data.val_limit=10"));
  config.set("data.val_limit", "30", "test");
  const RunData d = prepare_run_data(fashion_mnist_info(), raw, data_options(config));
  CHECK(d.val.size() == 30);
  CHECK(d.train.size() == 160);  // the limit thins validation only
  CHECK_THAT(join(d.notes, "\n"), Contains("subset: 30 validation examples (data.val_limit)"));
  CHECK(d.subset);
}

TEST_CASE("vision batches: normalization and shape-preserving augmentation", "[data]") {
  Split split{torch::full({4, 1, 28, 28}, 255, torch::kUInt8), torch::zeros({4}, torch::kInt64)};
  Config config = Config::defaults();
  config.set("data.augment", "crop_flip", "test");
  config.set("data.val_fraction", "0", "test");  // as the plan resolves "auto" for an image dataset
  const VisionBatcher batcher(fashion_mnist_info(), data_options(config), torch::kCPU);
  const auto eval = batcher.images(split, torch::arange(4), false);
  CHECK(eval.sizes() == torch::IntArrayRef({4, 1, 28, 28}));
  CHECK(eval[0][0][0][0].item<float>() == Approx((1.0 - 0.2860) / 0.3530));
  torch::manual_seed(3);
  const auto train = batcher.images(split, torch::arange(4), true);
  CHECK(train.sizes() == eval.sizes());
  // Random crops with zero padding bring in background pixels somewhere.
  CHECK(train.lt(eval.max()).any().item<bool>());
}

TEST_CASE("an altered byte (valid gzip, wrong sha256) is an error naming the file and both hashes", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("altered");
  const std::string original = test::gzip(test::idx_labels(20, 10));
  std::string altered = original;
  altered[4] ^= 1;  // the gzip header's mtime: still valid gzip of the same labels
  REQUIRE(gunzip(altered, "x") == gunzip(original, "x"));
  test::write_bytes(dir.path() / "labels.gz", altered, false);
  Manifest m;
  m.name = "fixture";
  m.files = {ManifestFile{"labels.gz", "labels", sha256_hex(original), "", original.size()}};
  const FoundFile found{"labels", "labels.gz", dir.path() / "labels.gz", "", altered.size()};
  DataNotes notes;
  CHECK_THROWS_WITH(check_file(m, found, &altered, VerifyMode::Strict, notes),
                    Contains("labels.gz") && Contains(sha256_hex(original)) && Contains(sha256_hex(altered)) &&
                        Contains("data.verify=warn"));
  CHECK(check_file(m, found, &altered, VerifyMode::Off, notes) == "not checked (data.verify=off)");
  CHECK(notes.notes.empty());
  check_file(m, found, &altered, VerifyMode::Warn, notes);  // warn: a note, and the data is unverified
  REQUIRE(notes.notes.size() == 1);
  CHECK_THAT(notes.notes[0], Contains("unverified: ") && Contains(sha256_hex(altered)));
  CHECK(notes.unverified);
  test::write_bytes(dir.path() / "ok.gz", original, false);
  DataNotes clean;
  CHECK(check_file(m, {"labels", "labels.gz", dir.path() / "ok.gz", "", original.size()}, &original, VerifyMode::Strict,
                   clean) == "size and sha256 ok");
  CHECK_FALSE(clean.partial());
}

TEST_CASE("renamed files: a known copy is checked, an unknown one is marked unverified", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("copies");
  const std::string official = "official bytes", copy = "first part";
  Manifest m;
  m.name = "fixture";
  m.files = {ManifestFile{"test.bin", "test", sha256_hex(official), "", official.size()}};
  m.copies = {ManifestFile{"test.part.bin", "test", sha256_hex(copy), "", copy.size(), "the first part of test.bin"}};
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"test.part.bin", copy},
                                    {"other.bin", official},
                                    {"mine.bin", "something else"}})
    test::write_bytes(dir.path() / name, bytes, false);
  const auto found = [&](const std::string& name, const std::string& bytes) {
    return FoundFile{"test", name, dir.path() / name, "", bytes.size()};
  };
  DataNotes notes;
  CHECK_THAT(check_file(m, found("test.part.bin", copy), &copy, VerifyMode::Strict, notes), Contains("known copy"));
  CHECK_FALSE(notes.partial());            // verified; the split's size says whether it is partial
  const std::string wrong = "first pArt";  // another test.part.bin, same size, one byte changed
  test::write_bytes(dir.path() / "other/test.part.bin", wrong, false);
  CHECK_THROWS_WITH(check_file(m, {"test", "test.part.bin", dir.path() / "other/test.part.bin", "", wrong.size()},
                               &wrong, VerifyMode::Strict, notes),
                    Contains(sha256_hex(copy)) && Contains(sha256_hex(wrong)));
  CHECK_THAT(check_file(m, found("other.bin", official), &official, VerifyMode::Strict, notes),
             Contains("the official test.bin under another name"));
  CHECK_FALSE(notes.unverified);
  const std::string mine = "something else";
  check_file(m, found("mine.bin", mine), &mine, VerifyMode::Strict,
             notes);  // no checksum to check: noted, not an error
  CHECK(notes.unverified);
  CHECK_THAT(notes.notes.back(), Contains("mine.bin") && Contains("no checksum to check"));
}

TEST_CASE("file hashes are cached by path, size and times; an unwritable cache only costs time", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("hashed");
  test::write_fashion_fixture(dir.path(), 20, 10);
  const FileOptions warn("", VerifyMode::Warn);
  const HashCounts before = hash_counts();
  const auto computed = [&] { return hash_counts().computed - before.computed; };
  const auto cached = [&] { return hash_counts().cached - before.cached; };
  const RawData first = load_fashion_mnist(dir.path(), warn);  // the fixture is not the official data
  CHECK(computed() == 4);
  CHECK(cached() == 0);
  CHECK(first.unverified);
  CHECK(first.partial());
  forget_cached_hashes();  // as a new process: the next look-ups read the cache file
  const RawData second = load_fashion_mnist(dir.path(), warn);
  CHECK(computed() == 4);  // nothing hashed again
  CHECK(cached() == 4);
  CHECK(second.notes == first.notes);
  CHECK(std::filesystem::exists(cache.path() / "sha256.tsv"));
  // A changed file (same size, another mtime) is hashed again.
  const auto labels = dir.path() / "fashion_mnist/t10k-labels-idx1-ubyte.gz";
  const auto mtime = std::filesystem::last_write_time(labels);
  std::filesystem::last_write_time(labels, mtime + std::chrono::seconds(5));
  load_fashion_mnist(dir.path(), warn);
  CHECK(computed() == 5);
  CHECK(cached() == 7);
  // off: nothing is hashed or looked up.
  load_fashion_mnist(dir.path(), test::unchecked());
  CHECK(computed() == 5);
  CHECK(cached() == 7);
  // A cache folder that cannot be created: the load still works (one warning in the log).
  test::write_text(dir.path() / "a_file", "x");
  ::setenv("REPRO_CACHE", (dir.path() / "a_file/cache").c_str(), 1);
  CHECK_NOTHROW(load_fashion_mnist(dir.path(), warn));
  CHECK(computed() == 9);
}

// Issue 34, point 12: a checksum cache file with lines this reader cannot parse (no newline at its end) is rewritten
// once from what it could read, so that new entries are not glued to the broken line and hashed again every run.
TEST_CASE("a garbage checksum cache is rewritten once, not appended to", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("hashed-garbage");
  test::write_fashion_fixture(dir.path(), 20, 10);
  const std::filesystem::path file = cache.path() / "sha256.tsv";
  test::write_text(file, "garbage\twithout\ta newline");
  forget_cached_hashes();
  const FileOptions warn("", VerifyMode::Warn);
  const HashCounts before = hash_counts();
  load_fashion_mnist(dir.path(), warn);
  CHECK(hash_counts().computed == before.computed + 4);
  const std::string rewritten = read_file(file);
  CHECK(rewritten.find("without") == std::string::npos);  // the broken line is gone
  CHECK(rewritten.back() == '\n');
  CHECK(split(rewritten, '\n').size() == 5);  // 4 lines and the empty rest after the last newline
  forget_cached_hashes();  // as a new process: everything is found, nothing hashed again
  load_fashion_mnist(dir.path(), warn);
  CHECK(hash_counts().computed == before.computed + 4);
  CHECK(hash_counts().cached == before.cached + 4);
  CHECK(read_file(file) == rewritten);
}

TEST_CASE("class checks: every class in every split, and counts against the manifest", "[data]") {
  test::TempDir dir("classes");
  test::write_fashion_fixture(dir.path(), 40, 20);
  test::write_bytes(dir.path() / "fashion_mnist/t10k-labels-idx1-ubyte.gz", test::idx_labels(20, 9), true);
  CHECK_THROWS_WITH(load_fashion_mnist(dir.path(), test::unchecked()),
                    Contains("the test split as read from t10k-labels-idx1-ubyte.gz (20 examples)") &&
                        Contains("no example of class 9 (Ankle boot)"));
  // A split of the official size must have the manifest's examples per class.
  const DatasetInfo rt = rotten_tomatoes_info();
  const Manifest m = manifest("rotten_tomatoes");  // a copy: GCC 14 -Wdangling-reference
  DataNotes notes;
  CHECK_THROWS_WITH(
      check_split_classes(rt, m, "train", {5330, 5332}, "rt-polarity.*", VerifyMode::Strict, notes),
      Contains("5,330 examples of class 0 (negative), expected 5,331") && Contains("datasets/rotten_tomatoes.yaml"));
  check_split_classes(rt, m, "train", {5330, 5332}, "rt-polarity.*", VerifyMode::Off, notes);
  CHECK(notes.notes.empty());
  check_split_classes(rt, m, "train", {5331, 5331}, "rt-polarity.*", VerifyMode::Strict, notes);
  check_split_classes(rt, m, "train", {10, 12}, "rt-polarity.*", VerifyMode::Strict,
                      notes);  // partial: noted elsewhere
  CHECK(notes.notes.empty());
  check_split_classes(rt, m, "train", {5330, 5332}, "rt-polarity.*", VerifyMode::Warn, notes);
  CHECK(notes.unverified);
  CHECK_THROWS_WITH(check_split_classes(rt, m, "train", {0, 12}, "rt-polarity.*", VerifyMode::Off, notes),
                    Contains("no example of class 0 (negative)"));
}

TEST_CASE("one planner: train_limit is what is trained on, for images and text", "[data]") {
  test::TempDir dir("planner");
  test::write_fashion_fixture(dir.path(), 200, 50);
  const RawData raw = load_fashion_mnist(dir.path(), test::unchecked());
  Config config = Config::defaults();
  config.set("data.train_limit", "64", "t");
  config.set("data.val_fraction", "0.25", "t");
  const RunData images = prepare_run_data(fashion_mnist_info(), raw, data_options(config));
  CHECK(images.train.size() == 64);  // was 47: the limit used to come before the hold-out
  CHECK(images.val.size() == 50);    // 25% of each class of the 200
  CHECK(images.subset);
  CHECK_THAT(join(images.notes, "\n"), Contains("subset: 64 training examples (data.train_limit)"));
  // The same plan for text.
  test::ScopedCache cache;
  RawText text;
  for (int i = 0; i < 200; ++i) text.train.add(i % 2 ? "good fine" : "bad poor", i % 2);
  for (int i = 0; i < 40; ++i) text.test.add(i % 2 ? "good" : "bad", i % 2);
  Config text_config = config;
  text_config.set("model.kind", "text", "t");
  text_config.set("text.max_len", "8", "t");
  const RunData texts = prepare_text_run_data(imdb_info(), text, data_options(text_config), text_options(text_config));
  CHECK(texts.train.size() == 64);
  CHECK(texts.val.size() == 50);
  const SplitPlan plan =
      plan_splits(imdb_info(), text.train.labels, text.test.labels, data_options(text_config).split, {});
  CHECK(plan.train.indices.size() == 64);
  // A limit so small that a class vanishes is an error naming the split, the class and the limit.
  config.set("data.test_limit", "1", "t");
  CHECK_THROWS_WITH(
      prepare_run_data(fashion_mnist_info(), raw, data_options(config)),
      Contains("the test split (1 examples) has no example of class") && Contains("after data.test_limit=1"));
}

// Rotten Tomatoes' three readings at its real size (5,331 snippets per class, negatives first as the loader reads
// them): the counts each gives, and data.val_fraction used by all of them.
TEST_CASE("split rules of an unsplit dataset: standard, standard_with_val, random; val_fraction is used", "[data]") {
  std::vector<int64_t> labels(5331, 0);
  labels.resize(10662, 1);
  Config config = Config::defaults();
  config.set("model.kind", "text", "t");
  resolve_settings(config, rotten_tomatoes_info().traits());
  const auto plan_for = [&](const std::string& rule, const std::string& val_fraction) {
    config.set("data.rotten_tomatoes_split", rule, "t");
    config.set("data.val_fraction", val_fraction, "t");
    return plan_splits(rotten_tomatoes_info(), labels, {}, data_options(config).split, {});
  };
  const auto sizes = [](const SplitPlan& p) {
    return std::vector<size_t>{p.train.indices.size(), p.val.indices.size(), p.test.indices.size()};
  };
  const SplitPlan standard = plan_for("standard", "0.2");
  CHECK(sizes(standard) == std::vector<size_t>{6824, 1706, 1066});  // paper A.2 on the TFDS / Hugging Face split
  // Test: positions 4798..5330 of each class, the split Hugging Face's rotten_tomatoes calls test.
  CHECK(standard.test.indices.front() == 4798);
  CHECK(standard.test.indices.at(532) == 5330);
  CHECK(standard.test.indices.at(533) == 5331 + 4798);
  for (const auto i : standard.train.indices) CHECK(i % 5331 < 4265);  // the fold is the first 4,265 of a class
  for (const auto i : standard.val.indices) CHECK(i % 5331 < 4265);
  CHECK(sizes(plan_for("standard", "0")) == std::vector<size_t>{8530, 0, 1066});  // the standard train split
  CHECK(sizes(plan_for("standard_with_val", "0.2")) == std::vector<size_t>{7676, 1920, 1066});
  const SplitPlan random = plan_for("random", "0.2");
  CHECK(sizes(random) == std::vector<size_t>{7676, 1920, 1066});
  CHECK(random.test.indices != standard.test.indices);
  // random with val_fraction 1/9: the 80/10/10 split of earlier versions.
  CHECK(sizes(plan_for("random", "0.1111111111111111")) == std::vector<size_t>{8530, 1066, 1066});
  // A split_seed moves the validation split of the standard fold, never its test split.
  config.set("data.split_seed", "3", "t");
  const SplitPlan reseeded = plan_for("standard", "0.2");
  CHECK(reseeded.test.indices == standard.test.indices);
  CHECK(reseeded.val.indices != standard.val.indices);
  CHECK_THROWS_WITH(plan_for("tfds", "0.2"), Contains("data.rotten_tomatoes_split") && Contains("standard"));
}

TEST_CASE("partial is a typed flag, not the wording of a note", "[data]") {
  RunData data;
  data.notes.push_back("partial: test split has 1000 of 10000 records");  // text alone marks nothing
  CHECK_FALSE(data.partial());
  data.note(NoteKind::Info, "noise: gaussian");
  CHECK_FALSE(data.partial());
  data.note(NoteKind::Incomplete, "test split has 1000 of 10000 records");
  CHECK(data.partial());
  RunData other;
  other.note(NoteKind::Unverified, "x");
  CHECK(other.partial());
}

// Which examples each split holds, pinned: a digest of the sorted index lists (and pools) of train, validation and
// test, per split rule and data.split_seed. A change of seed offsets (validation drawn with the test hold-out's
// seed), of the shuffles or of the limits' draws moves examples between splits and changes a digest; the sizes
// alone would not (issue 49). Update a digest only for an intended change of the split rules (kSplitRulesVersion).
TEST_CASE("split membership is pinned per split rule and seed", "[data]") {
  std::vector<int64_t> labels_10, tests_10, labels_2;  // 600 training / 100 test labels of 10 classes; 1000 of 2
  for (int64_t i = 0; i < 600; ++i) labels_10.push_back((i * 7) % 10);
  for (int64_t i = 0; i < 100; ++i) tests_10.push_back((i * 3) % 10);
  for (int64_t i = 0; i < 1000; ++i) labels_2.push_back(i < 500 ? 0 : 1);
  const auto digest = [](const SplitPlan& plan) {
    std::string text;
    for (const auto* split : {&plan.train, &plan.val, &plan.test}) {
      text += split->pool == SourceSplit::Train ? "train:" : "test:";
      for (const auto i : split->indices) text += std::to_string(i) + ",";
      text += "|";
    }
    return sha256_hex(text).substr(0, 16);
  };
  struct Case {
    std::string rule;
    int64_t seed;
    std::string digest;
  };
  const std::vector<Case> cases = {
      {"official", 0, "92892cd1c33bd80f"},          {"official", 7, "82ee58a1955b0aa1"},
      {"split_test", 0, "93c52db7337f7f3c"},        {"split_test", 7, "723b932a30d60c05"},
      {"standard", 0, "aca4c25120ba89c0"},          {"standard", 7, "203efba3bc76f13e"},
      {"standard_with_val", 0, "2bf7bd3a84ca42b0"}, {"standard_with_val", 7, "4de9c8d2f3e3fef9"},
      {"random", 0, "d0dc87937018ce66"},            {"random", 7, "916231f0203ab287"}};
  for (const auto& c : cases) {
    SplitOptions s;
    s.seed = c.seed;
    s.val_fraction = 0.2;
    s.train_limit = 200, s.val_limit = 80, s.test_limit = 60;  // every class stays in every split
    SplitPlan plan;
    if (c.rule == "official") {
      plan = plan_splits(fashion_mnist_info(), labels_10, tests_10, s, {});
    } else if (c.rule == "split_test") {
      s.missing_train = MissingTrain::SplitTest;
      s.train_limit = 150, s.val_limit = 0, s.test_limit = 0;
      plan = plan_splits(fashion_mnist_info(), {}, labels_10, s, {});
    } else {
      s.unsplit = enum_from_name<UnsplitRule>(c.rule, "test");
      plan = plan_splits(rotten_tomatoes_info(), labels_2, {}, s, {});
    }
    INFO(c.rule << " seed " << c.seed << ": sizes " << plan.train.indices.size() << " " << plan.val.indices.size()
                << " " << plan.test.indices.size());
    CHECK(digest(plan) == c.digest);
  }
}
