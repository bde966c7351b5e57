#include "cli/rollout_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "analysis/figure.h"
#include "analysis/html.h"
#include "data/batcher.h"
#include "data/prepare_text.h"
#include "data/registry.h"
#include "data/word_list.h"
#include "models/attention/map_probe.h"
#include "text/word_tokenizer.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// The class names of a text dataset: its info's, else those its files name (20 Newsgroups: the groups found, by
// label).
std::vector<std::string> class_names_of(const DatasetInfo& info, const RawText& raw) {
  return info.class_names.empty() ? raw.class_names : info.class_names;
}

std::string name_of_class(const TestTexts& texts, int64_t label) {
  return label >= 0 && label < static_cast<int64_t>(texts.class_names.size()) ? texts.class_names[label]
                                                                              : "class " + std::to_string(label);
}

// One run's view of the chosen examples: relevance (B, L) of each position, predictions.
struct RunRelevance {
  torch::Tensor relevance;  // (B, L) float64 on the CPU, L = the longest example
  torch::Tensor ids;        // (B, L) int64, what the model saw
  std::vector<int64_t> predicted;
  std::vector<double> confidence;  // softmax probability of the prediction
};

RunRelevance run_relevance(RolloutRun& run, const torch::Tensor& indices, RolloutMethod method, torch::Device device) {
  torch::NoGradGuard no_grad;
  const Split test = resident_split(run.data.test, device);
  const auto batcher = make_batcher(run.data.info, run.options.data, device);
  const Batch x = batcher->inputs(test, indices_for(test, indices), /*train=*/false);   // ids (B, L)
  AttentionMapProbe probe;                                                              // per block (B, H, L, L)
  const auto probabilities = torch::softmax(run.model->forward(x), 1).to(torch::kCPU);  // (B, classes)
  const auto rolled = roll_out(probe.maps(), method).to(torch::kCPU);                   // (B, L, L)
  RunRelevance out;
  out.ids = x.inputs.to(torch::kCPU);
  const bool cls = run.options.model.pool == Pool::Cls;  // else the head sees the mean over the real tokens
  out.relevance = token_relevance(rolled, cls, cls ? torch::Tensor() : out.ids.ne(kPadId));  // (B, L)
  const auto [best, arg] = probabilities.max(1);
  for (int64_t b = 0; b < indices.size(0); ++b) {
    out.predicted.push_back(arg[b].item<int64_t>());
    out.confidence.push_back(best[b].item<double>());
  }
  return out;
}

StripFigure example_figure(const std::vector<RolloutRun>& runs, const std::vector<RunRelevance>& relevances,
                           const TestTexts& texts, int64_t b, int64_t position, const std::string& method_name,
                           nlohmann::json* record) {
  const RolloutRun& first = runs.front();
  const int64_t label = first.data.test.labels[position].item<int64_t>();
  std::vector<StripToken> tokens = decode_row(texts, position, relevances.front().ids[b]);
  const auto shown = static_cast<int64_t>(tokens.size());
  const auto total = static_cast<int64_t>(texts.tokenizer->encode(texts.texts[position]).size());
  StripFigure figure;
  figure.heading = fmt::format("{} test #{}: attention {}", first.spec.dataset, position, method_name);
  figure.label = fmt::format("true label {}; {} tokens", name_of_class(texts, label), shown);
  if (total > shown) figure.note = fmt::format("truncated at {} of {} tokens (text.max_len)", shown, total);
  *record = {{"position", position},
             {"label", name_of_class(texts, label)},
             {"tokens", shown},
             {"tokens_in_text", total},
             {"predictions", nlohmann::json::array()}};
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunRelevance& rel = relevances[r];
    StripBlock block;
    block.title = runs[r].spec.model_config;
    block.caption = fmt::format("pred {} (p {:.2f})", name_of_class(texts, rel.predicted[b]), rel.confidence[b]);
    block.correct = rel.predicted[b] == label;
    block.tokens = tokens;
    for (int64_t i = 0; i < shown; ++i) block.tokens[i].relevance = rel.relevance[b][i + 1].item<double>();
    (*record)["predictions"].push_back(name_of_class(texts, rel.predicted[b]));
    figure.blocks.push_back(std::move(block));
  }
  return figure;
}

}  // namespace

TestTexts test_texts(DataLoader& loader, const std::string& dataset, const RunOptions& options) {
  const DatasetEntry& entry = find_dataset(dataset);
  const RawText& raw = loader.raw_text(dataset, options.data);
  const TextSplits splits = split_texts(entry.info(), raw, options.data.split);
  TestTexts out;
  out.texts = splits.test.texts;
  out.tokenizer = run_tokenizer(entry.info(), raw, splits.train.texts, options.text, options.data.split.seed);
  out.word_level = options.text.tokenizer == TokenizerKind::Word;
  out.lowercase = options.text.vocab.lowercase;
  out.class_names = class_names_of(entry.info(), raw);
  return out;
}

int64_t find_text(const std::vector<std::string>& texts, const std::string& needle) {
  for (size_t i = 0; i < texts.size(); ++i)
    if (texts[i].find(needle) != std::string::npos) return static_cast<int64_t>(i);
  throw Error("--match: no test text contains '" + needle + "' (" + std::to_string(texts.size()) +
              " texts searched; the run's data.test_limit may leave it out: add data.test_limit=0)");
}

std::vector<StripToken> decode_row(const TestTexts& texts, int64_t position, const torch::Tensor& ids) {
  const auto row = ids.to(torch::kCPU).contiguous();
  std::vector<StripToken> tokens;
  for (int64_t i = 1; i < row.size(0); ++i) {  // position 0 is <cls>
    const int64_t id = row[i].item<int64_t>();
    if (id == kPadId) break;
    tokens.push_back({texts.tokenizer->token(id), 0.0, id == kUnkId});
  }
  if (!texts.word_level) return tokens;
  const auto words = word_tokens(texts.texts.at(position), texts.lowercase);
  for (size_t i = 0; i < tokens.size(); ++i)  // the text must line up with the ids, else keep "<unk>"
    if (i >= words.size() || (!tokens[i].unknown && tokens[i].text != words[i])) return tokens;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].unknown) tokens[i].text = words[i];
  return tokens;
}

std::vector<fs::path> render_text_rollout(std::vector<RolloutRun>& runs, const TestTexts& texts,
                                          const TextRolloutRequest& request, torch::Device device) {
  const RolloutRun& first = runs.front();
  if (static_cast<int64_t>(texts.texts.size()) != first.data.test.size())
    throw Error(first.dir.string() + ": " + std::to_string(texts.texts.size()) + " test texts for " +
                std::to_string(first.data.test.size()) + " encoded test examples");
  const auto indices = torch::tensor(request.positions, torch::kInt64);
  std::vector<RunRelevance> relevances;
  nlohmann::json index = {{"method", request.method_name},
                          {"dataset", first.spec.dataset},
                          {"indices", request.positions},
                          {"runs", nlohmann::json::array()},
                          {"examples", nlohmann::json::array()}};
  for (auto& run : runs) {
    relevances.push_back(run_relevance(run, indices, request.method, device));
    index["runs"].push_back({{"dir", run.dir.string()},
                             {"model_config", run.spec.model_config},
                             {"seed", run.spec.seed},
                             {"epoch", run.file.epoch}});
  }
  fs::create_directories(request.out);
  std::vector<fs::path> written;
  for (size_t b = 0; b < request.positions.size(); ++b) {
    const int64_t position = request.positions[b];
    nlohmann::json record;
    const StripFigure figure =
        example_figure(runs, relevances, texts, static_cast<int64_t>(b), position, request.method_name, &record);
    const std::string stem = fmt::format("{}_{}_{}", first.spec.dataset, request.method_name, position);
    write_png(request.out / (stem + ".png"), token_strip(figure));
    write_file_atomic(request.out / (stem + ".html"), token_strip_html(figure));
    record["files"] = {stem + ".png", stem + ".html"};
    index["examples"].push_back(record);
    written.push_back(request.out / (stem + ".png"));
    written.push_back(request.out / (stem + ".html"));
  }
  const fs::path json = request.out / (first.spec.dataset + "_" + request.method_name + ".json");
  write_file_atomic(json, index.dump(2) + "\n");
  written.push_back(json);
  return written;
}

}  // namespace repro
