// The CIFAR reader. Input: byte 0 picks CIFAR-10 records (1 label byte, 10
// classes) or CIFAR-100 records (2 label bytes, 100 classes); the rest is the
// binary batch file given to parse_cifar_records.
#include <cstdint>
#include <string>

#include "data/cifar.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  if (size == 0) return 0;
  const bool cifar100 = data[0] & 1;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::expect_clean("cifar", [&] {
    parse_cifar_records(bytes, cifar100 ? 2 : 1, cifar100 ? 100 : 10, cifar100 ? "train.bin" : "data_batch_1.bin");
  });
  return 0;
}
