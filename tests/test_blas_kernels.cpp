// OpenBLAS at its pace (issue 58): where OpenBLAS falls back to its generic kernels on a CPU with AVX2 and FMA,
// `repro run` restarts with OPENBLAS_CORETYPE=Haswell (in REPRO_CPU_KERNELS=native mode; the default portable mode
// asks for Haswell everywhere, tests/test_cpu_kernels.cpp) and says so in --version's words and each run's log; the
// records do not change within a kernel family (OpenBLAS's Zen kernels are its Haswell ones) and do across families
// (Prescott's), so the comparisons here can fail. (SkylakeX and Cooperlake are two families: on the quick start their
// first epochs differ, 82.76 against 82.91 % test accuracy.) A CPU OpenBLAS does not know is played by a preloaded
// library (tests/tools/fake_openblas_core.cpp) that reports "Prescott" until OPENBLAS_CORETYPE is set.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "run_repro.h"
#include "util/cpu_kernels.h"
#include "util/files.h"
#include "util/version.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const char* kSpec = R"(experiment: kernels
datasets: [fashion_mnist]
seeds: [0]
model: {dim: 64, depth: 2, heads: 4, patch: 7, dropout: 0.0, ffn: {ratio: 2}}
data: {verify: off}
train: {epochs: 2, batch_size: 16, lr: 2e-3, warmup_steps: 2}
)";

bool cpu_has(const std::string& flag) {
  const auto flags = cpu_flags();
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// `environment` (VAR=value …, or "") before repro, without the BLAS kernel choice this test binary may have
// inherited or made itself (tests/fixtures.cpp), in REPRO_CPU_KERNELS=native mode unless `environment` says
// otherwise: OpenBLAS's own choice (util/cpu_kernels.h); ASan, when repro has it, would refuse the preloaded library.
test::Result repro_with(const std::string& environment, const std::string& arguments) {
  return test::run_command(std::string("env -u OPENBLAS_CORETYPE -u ") + kGenericBlasCoreVariable + " -u " +
                           kPinnedVariables + " " + kCpuKernelsVariable +
                           "=native ASAN_OPTIONS=verify_asan_link_order=0 " + environment + " " + REPRO_BINARY + " " +
                           arguments);
}

std::string preloaded() { return std::string("LD_PRELOAD=") + REPRO_FAKE_OPENBLAS_CORE; }

}  // namespace

TEST_CASE("generic OpenBLAS kernels on a CPU with AVX2: which kernel set to ask for", "[cli]") {
  const std::vector<std::string> avx2 = {"sse3", "avx", "avx2", "fma"}, avx512 = {"avx2", "fma", "avx512f", "avx512bw"};
  CHECK(faster_blas_core("Prescott", avx2) == "Haswell");
  CHECK(faster_blas_core("Prescott", avx512) == "Haswell");
  CHECK(faster_blas_core("Sandybridge", avx2) == "Haswell");     // AVX without AVX2: generic for a CPU that has it
  CHECK(faster_blas_core("Prescott", {"sse3", "avx"}).empty());  // no AVX2: the generic kernels are its own
  CHECK(faster_blas_core("Prescott", {"avx2"}).empty());         // no FMA
  CHECK(faster_blas_core("Prescott", {"sse3", "avx", "fma"}).empty());  // AVX and FMA without AVX2 (issue 64)
  for (const char* known : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    CHECK(faster_blas_core(known, avx512).empty());  // OpenBLAS knew the CPU: its choice stays
  CHECK(is_generic_blas_core("Prescott"));
  CHECK(!is_generic_blas_core("Haswell"));
}

TEST_CASE("repro runs OpenBLAS's AVX2 kernels where it would run generic ones, and says so", "[cli]") {
  if (!cpu_has("avx2") || !cpu_has("fma") || blas_core().empty()) {
    WARN("skipped: this CPU has no AVX2 and FMA, or the BLAS is not OpenBLAS");
    return;
  }
  // --version restarts as a run does, and names the kernels a run gets and who chose them.
  const auto version = repro_with(preloaded(), "--version");
  REQUIRE(version.exit_code == 0);
  CHECK_THAT(version.output, Contains("(Haswell kernels (OPENBLAS_CORETYPE=Haswell, set by repro: OpenBLAS alone "
                                      "chose its generic Prescott kernels on this CPU with AVX2))"));
  // The default mode asks for the portable kernels on every CPU with AVX2 and FMA, known to OpenBLAS or not.
  const auto portable = repro_with(preloaded() + " REPRO_CPU_KERNELS=portable", "--version");
  CHECK_THAT(portable.output, Contains("(Haswell kernels (OPENBLAS_CORETYPE=Haswell, set by repro: the portable "
                                       "kernels, REPRO_CPU_KERNELS=native for this CPU's own))"));
  const auto user_set = repro_with("OPENBLAS_CORETYPE=Zen", "--version");
  CHECK_THAT(user_set.output, Contains("(Zen kernels (OPENBLAS_CORETYPE=Zen))"));

  test::TempDir dir("blas-kernels");
  const std::string common = test::fashion_cli(dir, "kernels.yaml", kSpec, " --threads 1");
  const auto run_in = [&](const std::string& environment, const std::string& out) {
    const auto run = repro_with(environment, "run " + common + (dir.path() / out).string());
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    return dir.path() / out / "kernels/fashion_mnist/model/seed_0";
  };
  // On the "unknown" CPU the run restarts with Haswell's kernels: its log and record say so, its records are those of
  // OPENBLAS_CORETYPE=Haswell set by hand.
  const fs::path restarted = run_in(preloaded(), "restarted");
  CHECK_THAT(read_file(restarted / "log.txt"),
             Contains("BLAS: OpenBLAS Haswell kernels (OPENBLAS_CORETYPE=Haswell, set by repro: OpenBLAS alone chose "
                      "its generic Prescott kernels on this CPU with AVX2)"));
  CHECK(nlohmann::json::parse(read_file(restarted / "summary.json"))["environment"]["blas_core"] == "Haswell");
  const fs::path haswell = run_in("OPENBLAS_CORETYPE=Haswell", "haswell");
  CHECK_THAT(read_file(haswell / "log.txt"), Contains("BLAS: OpenBLAS Haswell kernels (OPENBLAS_CORETYPE=Haswell)"));
  CHECK(test::metrics_without_seconds(restarted / "metrics.csv") ==
        test::metrics_without_seconds(haswell / "metrics.csv"));
  // A kernel set the user chose is kept, generic ones included: records made with them repeat.
  const fs::path prescott = run_in(preloaded() + " OPENBLAS_CORETYPE=Prescott", "prescott");
  CHECK(nlohmann::json::parse(read_file(prescott / "summary.json"))["environment"]["blas_core"] == "Prescott");
  // Within a family the records are equal; across families they are not (the comparison can fail).
  CHECK(test::metrics_without_seconds(prescott / "metrics.csv") !=
        test::metrics_without_seconds(haswell / "metrics.csv"));
  CHECK(test::metrics_without_seconds(run_in("OPENBLAS_CORETYPE=Zen", "zen") / "metrics.csv") ==
        test::metrics_without_seconds(haswell / "metrics.csv"));
}
