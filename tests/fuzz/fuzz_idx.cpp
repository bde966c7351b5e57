// The IDX reader (Fashion-MNIST's format), as the loader calls it. Input: byte 0 picks an
// image file or a label file (and, for labels, the number of classes 1..128); the rest is the
// file, gzip-compressed or plain, read with gunzip then parse_idx_images / parse_idx_labels.
#include <cstdint>
#include <string>

#include "data/idx.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  if (size == 0) return 0;
  const bool images = data[0] & 1;
  const int64_t classes = 1 + (data[0] >> 1);
  const std::string file = images ? "images-idx3-ubyte.gz" : "labels-idx1-ubyte.gz";  // named in errors
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::expect_clean("idx", [&] {
    if (images)
      parse_idx_images(gunzip(bytes, file), file);
    else
      parse_idx_labels(gunzip(bytes, file), classes, file);
  });
  return 0;
}
