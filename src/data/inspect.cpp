#include "data/inspect.h"

#if REPRO_HAS_OPENCV
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#endif

#include <spdlog/spdlog.h>

#include <chrono>
#include <iomanip>
#include <sstream>

#include "data/batcher.h"
#include "data/integrity.h"
#include "data/noise.h"
#include "data/prepare.h"
#include "data/prepare_text.h"
#include "data/registry.h"
#include "text/word_tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string per_class(const Split& split, int64_t classes) {
  if (split.size() == 0) return "(empty)";
  const auto counts = torch::bincount(split.labels, {}, classes);
  std::ostringstream out;
  for (int64_t c = 0; c < classes; ++c) out << (c ? " " : "") << counts[c].item<int64_t>();
  return out.str();
}

// "majority class 3 (Dress): 12.34% of the split": the accuracy of always answering the most common class.
std::string majority_class(const Split& split, const DatasetInfo& info) {
  const auto counts = torch::bincount(split.labels, {}, info.num_classes);
  const int64_t top = counts.argmax().item<int64_t>();  // the first on a tie
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << "majority " << class_label(info, top) << ": "
      << 100.0 * static_cast<double>(counts[top].item<int64_t>()) / static_cast<double>(split.size())
      << "% of the split (always answering it)";
  return out.str();
}

std::string length_stats(const Split& split) {
  if (split.size() == 0) return "";
  const auto lengths = split.inputs.ne(0).sum(1).to(torch::kFloat64);  // <cls> included
  const auto sorted = std::get<0>(lengths.sort());
  const auto at = [&](double q) { return sorted[static_cast<int64_t>(q * (split.size() - 1))].item<double>(); };
  std::ostringstream out;
  out << "tokens/example mean " << lengths.mean().item<double>() << ", median " << at(0.5) << ", p95 " << at(0.95)
      << ", max " << at(1.0) << " (of " << split.inputs.size(1) << "; "
      << 100.0 * lengths.eq(split.inputs.size(1)).to(torch::kFloat64).mean().item<double>() << "% truncated)";
  return out.str();
}

std::string batching_bench(const RunData& data, const RunOptions& options) {
  const auto batcher = make_batcher(data.info, options.data, torch::kCPU);
  const int64_t batch = options.train.batch_size, n = data.train.size();
  const auto order = torch::randperm(n, torch::kInt64);
  const auto start = Clock::now();
  int64_t examples = 0;
  for (int64_t begin = 0; begin < n && seconds_since(start) < 3.0; begin += batch) {
    const auto indices = order.slice(0, begin, std::min(n, begin + batch));
    batcher->inputs(data.train, indices, /*train=*/true);
    examples += indices.size(0);
  }
  std::ostringstream out;
  out << "batching: " << static_cast<int64_t>(examples / seconds_since(start)) << " training examples/s (batch "
      << batch
      << (data.info.modality == Modality::Image ? ", augmentation " + name_of(options.data.augment) : std::string())
      << ", CPU)";
  return out.str();
}

}  // namespace

namespace {

std::string per_class(const std::vector<int64_t>& counts) {
  std::ostringstream out;
  for (size_t c = 0; c < counts.size(); ++c) out << (c ? " " : "") << counts[c];
  return out.str();
}

// The official splits as read from the files, each file's check, and what is missing.
std::string describe_raw(const DatasetInfo& info, const std::vector<std::string>& file_checks,
                         const std::vector<std::pair<std::string, std::vector<int64_t>>>& splits,
                         const DataOptions& data) {
  std::ostringstream out;
  out << "files (data.verify=" << name_of(data.verify) << "):\n";
  for (const auto& line : file_checks) out << "  " << line << "\n";
  for (const auto& [name, labels] : splits) {
    const auto counts = count_classes(labels, info.num_classes);
    out << "read " << name << ": " << labels.size() << " examples";
    if (!labels.empty()) out << "; per class: " << per_class(counts);
    out << "\n";
  }
  return out.str();
}

// What `repro run` would use with these settings: splits, shapes or lengths, notes.
std::string describe_run(const RunData& data, const RunOptions& options, double load_seconds, bool bench) {
  const DatasetInfo& info = data.info;
  std::ostringstream out;
  for (const auto& [name, split] :
       {std::pair<const char*, const Split*>{"train", &data.train}, {"val", &data.val}, {"test", &data.test}}) {
    out << name << ": " << split->size() << " examples; per class: " << per_class(*split, info.num_classes) << "\n";
    if (split->size()) out << "  " << majority_class(*split, info) << "\n";
    if (info.modality == Modality::Text && split->size()) out << "  " << length_stats(*split) << "\n";
  }
  if (info.modality == Modality::Image)
    out << "images: " << info.channels << "x" << info.height << "x" << info.width << " uint8\n";
  else
    out << "vocabulary: " << info.vocab_size << " (" << name_of(options.text.tokenizer) << " tokenizer)\n";
  if (bench) {
    out << "loading: " << load_seconds << " s (read, decode, split"
        << (info.modality == Modality::Text ? ", tokenize or cache" : "") << ")\n";
    out << batching_bench(data, options) << "\n";
  }
  return out.str();
}

}  // namespace

std::string dataset_info(const std::string& dataset, const std::filesystem::path& root, const RunOptions& options,
                         bool bench) {
  const DatasetEntry& entry = find_dataset(dataset);
  DatasetInfo info = entry.info();
  FileOptions files = file_options(options.data);
  files.allow_missing = true;  // describe what is there and name what is missing
  const auto start = Clock::now();
  spdlog::info("{}: reading its files under {} (data.verify={}); the description follows when it is read", dataset,
               root.string(), name_of(options.data.verify));
  RawData images;
  RawText texts;
  DataNotes raw_notes;
  std::vector<std::pair<std::string, std::vector<int64_t>>> raw_splits;
  std::vector<std::string> file_checks;
  if (entry.is_text()) {
    texts = entry.read_texts(root, files, options.data);
    if (info.class_names.empty()) info.class_names = texts.class_names;  // 20 Newsgroups: its groups, by label
    raw_notes = texts;
    file_checks = texts.file_checks;
    raw_splits = {{"train", texts.train.labels}, {"test", texts.test.labels}};
  } else {
    images = entry.read_images(root, files, options.data);
    raw_notes = images;
    file_checks = images.file_checks;
    raw_splits = {{"train", label_vector(images.train)}, {"test", label_vector(images.test)}};
  }
  if (raw_splits[0].second.empty() && raw_splits[1].second.empty())
    throw Error(dataset + ": no files found under " + root.string() + " (" + join(raw_notes.notes, "; ") + ")");
  std::ostringstream out;
  out << info.name << " (" << name_of(info.modality) << ", " << info.num_classes << " classes) from " << root.string()
      << "\n";
  if (info.official_test == 0)  // Rotten Tomatoes: its test and validation sets are cut when it is loaded
    out << "official splits: none (" << info.official_train << " examples, split at load)\n";
  else
    out << "official splits: " << info.official_train << " train / " << info.official_test << " test\n";
  out << describe_raw(info, file_checks, raw_splits, options.data);
  try {
    const RunData data = entry.is_text() ? prepare_text_run_data(info, texts, options.data, options.text)
                                         : prepare_run_data(info, images, options.data);
    out << describe_run(data, options, seconds_since(start), bench);
    raw_notes = data;
  } catch (const Error& e) {
    out << "run splits: none with these settings: " << e.what() << "\n";
  }
  for (const auto& note : raw_notes.notes) out << "note: " << note << "\n";
  return out.str();
}

std::string preview_dataset(const std::string& dataset, const std::filesystem::path& root, const RunOptions& options,
                            const std::filesystem::path& png) {
  NoiseOptions noise = options.data.noise;
  noise.split = NoiseSplit::Both;
  const DatasetEntry& entry = find_dataset(dataset);
  if (entry.is_text()) {
    const RawText raw = entry.load_text(root, options.data);
    const TextSplit& texts = raw.test.size() ? raw.test : raw.train;
    std::vector<std::string> shown(texts.texts.begin(), texts.texts.begin() + std::min<int64_t>(5, texts.size()));
    for (auto& t : shown) t = t.substr(0, 300);
    std::vector<std::string> noisy;
    if (noise.kind == NoiseKind::CharTypo) {
      noisy = add_text_noise(shown, noise, 3);
    } else if (!is_image_noise(noise.kind)) {
      const WordTokenizer words(shown, 1, 1 << 30, options.text.vocab.lowercase);
      const auto ids = add_token_noise(words.encode_all(shown, 512), noise, words.vocab_size(), 3);
      for (int64_t i = 0; i < ids.size(0); ++i) {
        std::string text;
        for (int64_t j = 1; j < ids.size(1) && ids[i][j].item<int64_t>() != 0; ++j)
          text += words.words()[ids[i][j].item<int64_t>()] + " ";
        noisy.push_back(text);
      }
    } else {
      throw Error("data.noise.kind=" + name_of(noise.kind) + " is an image noise; " + dataset + " is a text dataset");
    }
    std::string out;
    for (size_t i = 0; i < shown.size(); ++i) out += "clean: " + shown[i] + "\nnoisy: " + noisy[i] + "\n\n";
    return out;
  }
  if (!is_image_noise(noise.kind))
    throw Error("data.noise.kind=" + name_of(noise.kind) + " is a text noise; " + dataset + " holds images");
  const RawData raw = entry.load_images(root, options.data);
  const auto clean = raw.test.inputs.slice(0, 0, std::min<int64_t>(8, raw.test.size()));  // (8, C, H, W)
  const auto noisy = add_image_noise(clean, noise, 3);
  const auto row = [](const torch::Tensor& images) {  // (n, C, H, W) -> (H, n*W, C)
    return images.permute({2, 0, 3, 1}).reshape({images.size(2), images.size(0) * images.size(3), images.size(1)});
  };
  const auto grid = torch::cat({row(clean), row(noisy)}, 0).contiguous();  // (2H, nW, C)
#if REPRO_HAS_OPENCV
  cv::Mat mat(static_cast<int>(grid.size(0)), static_cast<int>(grid.size(1)), CV_8UC(static_cast<int>(grid.size(2))),
              grid.data_ptr<uint8_t>());
  if (mat.channels() == 3) cv::cvtColor(mat, mat, cv::COLOR_RGB2BGR);
  cv::Mat big;
  cv::resize(mat, big, cv::Size(), 4, 4, cv::INTER_NEAREST);
  std::vector<unsigned char> bytes;  // encoded in memory, then the file replaced (never written through a link)
  if (!cv::imencode(".png", big, bytes)) throw WriteError(png.string(), "OpenCV could not encode the PNG");
  write_file_atomic(png, std::string(bytes.begin(), bytes.end()));
#else
  missing_feature("repro data preview (PNG)", "OpenCV", "REPRO_WITH_OPENCV");
#endif
  return "wrote " + png.string() + ": row 1 clean, row 2 " + name_of(noise.kind) + " level " +
         format_number(noise.level) + " (8 test images, x4)\n";
}

}  // namespace repro
