// repro-spm: SentencePiece training and encoding in a process of its own.
//
// Debian's libsentencepiece carries its own protobuf-lite (3.14) while LibTorch
// loads libprotobuf 3.21; in one process either the load crashes or the version
// check aborts. repro therefore runs SentencePiece here and talks to it through
// files (src/text/sentencepiece_tokenizer.cpp).
//
//   repro-spm train MODEL TYPE VOCAB SEED < texts      (one text per line)
//   repro-spm encode MODEL < texts > ids                (one line of ids per text)
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

class StdinSentences : public sentencepiece::SentenceIterator {
 public:
  StdinSentences() { Next(); }
  bool done() const override { return done_; }
  void Next() override { done_ = !std::getline(std::cin, line_); }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return sentencepiece::util::Status(); }

 private:
  std::string line_;
  bool done_ = false;
};

int train(const std::string& model_path, const std::string& type, const std::string& vocab, const std::string& seed) {
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned>(std::stoul(seed)));
  StdinSentences sentences;
  std::string model;
  const auto status = sentencepiece::SentencePieceTrainer::Train({{"model_type", type},
                                                                  {"vocab_size", vocab},
                                                                  {"pad_id", "0"},
                                                                  {"unk_id", "1"},
                                                                  {"bos_id", "2"},
                                                                  {"eos_id", "-1"},
                                                                  {"pad_piece", "<pad>"},
                                                                  {"bos_piece", "<cls>"},
                                                                  {"hard_vocab_limit", "false"},
                                                                  {"num_threads", "1"},
                                                                  {"minloglevel", "2"}},
                                                                 &sentences, &model);
  if (!status.ok()) {
    std::cerr << "repro-spm: training failed: " << status.ToString() << "\n";
    return 1;
  }
  std::ofstream(model_path, std::ios::binary) << model;
  return 0;
}

int encode(const std::string& model_path) {
  std::ifstream in(model_path, std::ios::binary);
  std::stringstream model;
  model << in.rdbuf();
  sentencepiece::SentencePieceProcessor processor;
  const auto status = processor.LoadFromSerializedProto(model.str());
  if (!status.ok()) {
    std::cerr << "repro-spm: cannot load " << model_path << ": " << status.ToString() << "\n";
    return 1;
  }
  std::cout << "vocab " << processor.GetPieceSize() << "\n";
  std::string line;
  std::vector<int> ids;
  while (std::getline(std::cin, line)) {
    processor.Encode(line, &ids);
    for (size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 5 && args[0] == "train") return train(args[1], args[2], args[3], args[4]);
  if (args.size() == 2 && args[0] == "encode") return encode(args[1]);
  std::cerr << "usage: repro-spm train MODEL TYPE VOCAB SEED < texts | repro-spm encode MODEL < texts\n";
  return 2;
}
