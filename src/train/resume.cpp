#include "train/resume.h"

namespace repro {

void seed_epoch(RunGenerators& generators, int64_t seed, int64_t epoch) {
  generators.seed(static_cast<uint64_t>(seed) * 1000003ull + static_cast<uint64_t>(epoch));
}

EpochStart resume_point(const MidEpoch& mid, StepTotals& totals, torch::Device device) {
  totals.loss_sum = mid.loss_sum.to(device);
  totals.correct = mid.correct.to(device);
  totals.seen = mid.seen;
  return EpochStart{mid.batches, mid.seconds, {mid.cpu_rng, mid.cuda_rng}};
}

void restore_generators(const EpochStart& start, RunGenerators& generators) { generators.restore(start.generators); }

MidEpoch mid_epoch_state(int64_t batches, const StepTotals& totals, double seconds, RunGenerators& generators) {
  MidEpoch mid;
  mid.batches = batches;
  mid.seconds = seconds;
  mid.loss_sum = totals.loss_sum.cpu();
  mid.correct = totals.correct.cpu();
  mid.seen = totals.seen;
  const RunGenerators::States states = generators.states();
  mid.cpu_rng = states.cpu;
  mid.cuda_rng = states.cuda;
  return mid;
}

}  // namespace repro
