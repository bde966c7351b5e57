// Archive member reading (libarchive behind for_each_member and DatasetFiles).
// Input: byte 0 picks the archive's file name suffix and the reader; the rest is
// the archive file.
//   reader 0  for_each_member, reading every member
//   reader 1  for_each_member, reading every second member (skipping the others)
//   reader 2  DatasetFiles(cifar10).read({"test"}): one member by name
//   reader 3  the imdb loader of the dataset table (DatasetFiles::read_tree of
//             aclImdb/ and the review path pattern), data.verify=off
#include <cstdint>
#include <string>

#include "data/manifest.h"
#include "data/registry.h"
#include "data/sources.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  if (size == 0) return 0;
  static const char* const kSuffixes[] = {".tar", ".tar.gz", ".tar.xz", ".tar.bz2"};
  const char* suffix = kSuffixes[data[0] % 4];
  const int reader = (data[0] / 4) % 4;
  const auto root = fuzz::fresh_scratch();
  const auto archive = root / (std::string("data") + suffix);
  fuzz::write_bytes(archive, std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  fuzz::expect_clean("archive", [&] {
    if (reader < 2) {
      int index = 0;
      for_each_member(archive, [&](const std::string& path, const std::function<std::string()>& read) {
        if (reader == 0 || index++ % 2 == 0) read();
      });
    } else if (reader == 2) {
      DatasetFiles(manifest("cifar10"), root, file_options(fuzz::loader_options())).read({"test"});
    } else {
      find_dataset("imdb").load_text(root, fuzz::loader_options());
    }
  });
  return 0;
}
