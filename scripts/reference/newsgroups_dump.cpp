// scripts/reference/newsgroups_sklearn.py builds this against build/ (its flags and link line): it writes 20
// Newsgroups posts as repro cleans them (data.newsgroups_remove=sklearn or all), NUL-separated, train then test.
#include <cstdio>
#include <fstream>
#include "data/text_sources.h"
#include "data/integrity.h"
using namespace repro;
int main(int argc, char** argv) {
  const NewsgroupsRemove mode = std::string(argv[2]) == "sklearn" ? NewsgroupsRemove::Sklearn : NewsgroupsRemove::All;
  const RawText raw = load_newsgroups(argv[1], FileOptions("", VerifyMode::Off), mode);
  std::ofstream out(argv[3], std::ios::binary);
  for (const auto* split : {&raw.train, &raw.test})
    for (const auto& t : split->texts) { out << t; out.put('\0'); }
  std::printf("%lld train, %lld test\n", (long long)raw.train.size(), (long long)raw.test.size());
}
