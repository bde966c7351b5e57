// The CPU kernels that order a run's float sums (issue 63, util/cpu_kernels.h): repro pins OpenBLAS's kernel set and
// ATen's CPU capability to the portable ones by default and turns LibTorch's oneDNN off, records each with who chose
// it, and reads them back as the record's SumOrder (record/run_record.h), which decides where two runs must be
// equal bit for bit (tests/test_readme.cpp).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "record/run_record.h"
#include "run_repro.h"
#include "util/cpu_kernels.h"
#include "util/files.h"
#include "util/version.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const char* kKernelsSpec = R"(experiment: kernels
datasets: [fashion_mnist]
seeds: [0]
model: {dim: 32, depth: 1, heads: 2, patch: 7, dropout: 0.0, ffn: {ratio: 2}}
data: {verify: off}
train: {epochs: 1, batch_size: 16, lr: 2e-3, warmup_steps: 2}
)";

bool has_cpu_flag(const std::string& flag) {
  const auto flags = cpu_flags();
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// repro with `environment` (VAR=value …) and none of the kernel variables this test binary holds (tests/fixtures.cpp
// pins them for itself), as a user's shell would start it.
test::Result clean_repro(const std::string& environment, const std::string& arguments) {
  return test::run_command(std::string("env -u OPENBLAS_CORETYPE -u ATEN_CPU_CAPABILITY -u ONEDNN_MAX_CPU_ISA -u "
                                       "DNNL_MAX_CPU_ISA -u ") +
                           kPinnedVariables + " -u " + kGenericBlasCoreVariable + " -u " + kCpuKernelsVariable + " " +
                           environment + " " + REPRO_BINARY + " " + arguments);
}

}  // namespace

TEST_CASE("a run's sum order is read from its environment; a field either side lacks makes them differ", "[report]") {
  const nlohmann::json portable = {{"device", "cpu"},        {"libtorch", "1.13.0"},      {"threads", 1},
                                   {"blas_core", "Haswell"}, {"aten_capability", "AVX2"}, {"onednn_isa", "avx2"}};
  const SumOrder order = read_sum_order(portable, "summary.json");
  CHECK(order.blas_core == std::optional<std::string>("Haswell"));
  CHECK(order.aten_capability == std::optional<std::string>("AVX2"));
  CHECK(order.onednn_isa == std::optional<std::string>("avx2"));
  CHECK(order.threads == std::optional<int64_t>(1));
  CHECK(sum_order_text(order) == "cpu, LibTorch 1.13.0, 1 thread, OpenBLAS Haswell, ATen AVX2, oneDNN avx2");
  CHECK(order == read_sum_order(portable, "other.json"));
  CHECK(sum_order_differences(order, order).empty());
  // Each factor alone makes two orders differ, and the words name it.
  const std::vector<std::pair<std::string, nlohmann::json>> changes = {
      {"LibTorch 2.6.0 against 1.13.0", {{"libtorch", "2.6.0"}}},
      {"threads 2 against 1", {{"threads", 2}}},
      {"OpenBLAS kernels Cooperlake against Haswell", {{"blas_core", "Cooperlake"}}},
      {"ATen capability AVX512 against AVX2", {{"aten_capability", "AVX512"}}},
      {"oneDNN instruction set avx512_core_bf16 against avx2", {{"onednn_isa", "avx512_core_bf16"}}},
      {"oneDNN instruction set ? against avx2", {{"onednn_isa", nullptr}}},
      {"device cuda:0 against cpu", {{"device", "cuda:0"}}}};
  for (const auto& [words, change] : changes) {
    INFO(words);
    nlohmann::json other = portable;
    other.update(change);
    const SumOrder changed = read_sum_order(other, "summary.json");
    CHECK(changed != order);
    CHECK(sum_order_differences(changed, order) == words);
  }
  // A record written before 0.8.0 names neither ATen's capability nor oneDNN's set: never equal to a new one.
  nlohmann::json old = portable;
  old.erase("aten_capability");
  old.erase("onednn_isa");
  CHECK(read_sum_order(old, "summary.json") != order);
  CHECK(sum_order_differences(read_sum_order(old, "summary.json"), order) ==
        "ATen capability ? against AVX2; oneDNN instruction set ? against avx2");
  // A wrong type is refused naming the field.
  CHECK_THROWS_WITH(read_sum_order({{"aten_capability", 2}}, "summary.json"), Contains("environment.aten_capability"));
}

TEST_CASE("repro pins the portable CPU kernels by default, says so, and records who chose each", "[cli]") {
  if (!has_cpu_flag("avx2") || !has_cpu_flag("fma")) {
    WARN("skipped: this CPU has no AVX2 and FMA, so there are no portable kernels to pin");
    return;
  }
  const auto version = clean_repro("", "--version");
  REQUIRE(version.exit_code == 0);
  CHECK_THAT(version.output,
             Contains("CPU kernels: ATen AVX2 (ATEN_CPU_CAPABILITY=avx2, set by repro), oneDNN off (set by repro: "
                      "ATen's and OpenBLAS's kernels instead)"));
  if (!blas_core().empty())
    CHECK_THAT(version.output, Contains("(Haswell kernels (OPENBLAS_CORETYPE=Haswell, set by repro: the portable "
                                        "kernels, REPRO_CPU_KERNELS=native for this CPU's own))"));
  // A value the user set is kept and named as theirs.
  const auto user = clean_repro("ATEN_CPU_CAPABILITY=default", "--version");
  CHECK_THAT(user.output, Contains("CPU kernels: ATen DEFAULT (ATEN_CPU_CAPABILITY=default), oneDNN off"));
  // oneDNN's variable keeps it on, at that instruction set (where its API is visible: Debian's LibTorch).
  const auto onednn = clean_repro("ONEDNN_MAX_CPU_ISA=AVX2", "--version");
  CHECK_THAT(onednn.output, Contains("oneDNN avx2 (ONEDNN_MAX_CPU_ISA=AVX2)") || Contains("oneDNN not visible"));
  // Native: the libraries' own choice.
  const auto native = clean_repro("REPRO_CPU_KERNELS=native", "--version");
  CHECK_THAT(native.output, Contains("CPU kernels: ATen "));
  CHECK_THAT(native.output, !Contains("set by repro"));
  // Anything else is refused in one line naming the variable, before anything runs.
  const auto bad = clean_repro("REPRO_CPU_KERNELS=fast", "--version");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output ==
        "repro: error: environment variable REPRO_CPU_KERNELS='fast': expected portable (the default: the same "
        "kernels on every x86-64 CPU with AVX2 and FMA) or native\n");

  test::TempDir dir("cpu-kernels");
  const std::string common = test::fashion_cli(dir, "kernels.yaml", kKernelsSpec, " --threads 1");
  const auto run_in = [&](const std::string& environment, const std::string& out) {
    const auto run = clean_repro(environment, "run " + common + (dir.path() / out).string());
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    return dir.path() / out / "kernels/fashion_mnist/model/seed_0";
  };
  // The pinned run records the pinned values and who chose them; its log says so; the reader gets them back.
  const fs::path pinned = run_in("", "pinned");
  const auto environment = nlohmann::json::parse(read_file(pinned / "summary.json"))["environment"];
  CHECK(environment["aten_capability"] == "AVX2");
  CHECK(environment["kernels_chosen_by"]["aten"] == "repro");
  CHECK(environment["onednn_isa"] == "off");
  CHECK(environment["kernels_chosen_by"]["onednn"] == "repro");
  if (!blas_core().empty()) {
    CHECK(environment["blas_core"] == "Haswell");
    CHECK(environment["kernels_chosen_by"]["blas"] == "repro");
  }
  CHECK_THAT(read_file(pinned / "log.txt"), Contains("CPU kernels: ATen AVX2 (ATEN_CPU_CAPABILITY=avx2, set by repro)"));
  const RunRecord record = read_run_record(pinned / "summary.json");
  CHECK(record.sum_order.aten_capability == std::optional<std::string>("AVX2"));
  CHECK(record.sum_order.threads == std::optional<int64_t>(1));
  // `repro report --runs` shows them, one column each.
  const auto runs = clean_repro("", "report " + (dir.path() / "pinned").string() + " --runs --format csv");
  REQUIRE(runs.exit_code == 0);
  CHECK_THAT(runs.output, Contains(",threads,blas_core,aten_capability,onednn_isa,"));
  CHECK_THAT(runs.output, Contains(",1," + environment["blas_core"].get<std::string>() + ",AVX2,off,"));
  // The same variables set by hand give the same numbers; only who chose differs.
  const fs::path by_hand = run_in("OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2", "hand");
  CHECK(test::metrics_without_seconds(by_hand / "metrics.csv") == test::metrics_without_seconds(pinned / "metrics.csv"));
  const auto by_hand_environment = nlohmann::json::parse(read_file(by_hand / "summary.json"))["environment"];
  CHECK(by_hand_environment["kernels_chosen_by"]["aten"] == "user");
  CHECK(read_run_record(by_hand / "summary.json").sum_order == record.sum_order);
  // ATen's scalar kernels sum in another order: the record says which, and the comparison can fail.
  const fs::path scalar = run_in("ATEN_CPU_CAPABILITY=default", "scalar");
  const RunRecord scalar_record = read_run_record(scalar / "summary.json");
  CHECK(scalar_record.sum_order.aten_capability == std::optional<std::string>("DEFAULT"));
  CHECK(sum_order_differences(scalar_record.sum_order, record.sum_order) == "ATen capability DEFAULT against AVX2");
  // oneDNN on (its variable set) is another order, named too.
  const fs::path onednn_on = run_in("ONEDNN_MAX_CPU_ISA=AVX2", "onednn");
  const RunRecord onednn_record = read_run_record(onednn_on / "summary.json");
  CHECK(onednn_record.sum_order.onednn_isa != std::optional<std::string>("off"));
  CHECK_THAT(sum_order_differences(onednn_record.sum_order, record.sum_order), Contains("oneDNN instruction set"));
}
