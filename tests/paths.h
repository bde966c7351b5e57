#pragma once
// Where the tests find the source tree and the repro binary. They are variables of one generated
// file (build/tests/paths.cpp, tests/CMakeLists.txt), not compile definitions: an absolute path on
// every test file's command line would make each one miss ccache in a clone in another folder.
namespace repro::test {
extern const char* const kSourceDir;  // the repository root
extern const char* const kBinary;     // build/repro
extern const char* const kFaultsBinary;  // build/tests/repro-faults: repro with the hidden fault options
// build/tests/libfake_openblas_core.so: a CPU OpenBLAS does not know (tests/tools/fake_openblas_core.cpp)
extern const char* const kFakeOpenblasCore;
}  // namespace repro::test

#define REPRO_SOURCE_DIR ::repro::test::kSourceDir
#define REPRO_BINARY ::repro::test::kBinary
#define REPRO_FAULTS_BINARY ::repro::test::kFaultsBinary
#define REPRO_FAKE_OPENBLAS_CORE ::repro::test::kFakeOpenblasCore
