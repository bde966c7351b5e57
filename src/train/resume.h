#pragma once
// The mechanics that let an interrupted epoch resume exactly: where it stopped, its
// partial sums and the run's random generators' states (trainer.cpp uses them; the epoch's
// order is redrawn from its seed, then the generators are put back).
#include <torch/torch.h>

#include "data/random.h"
#include "train/checkpoint.h"
#include "train/split_metrics.h"

namespace repro {

// Everything random in an epoch (shuffle, augmentation, dropout) comes from the run's generators (data/random.h),
// reseeded here from the run's seed and the epoch alone, so a resumed run replays an epoch exactly and no other run
// of the process moves its draws.
void seed_epoch(RunGenerators& generators, int64_t seed, int64_t epoch);

// Where an epoch begins: its first batch, or where a mid-epoch checkpoint stopped, with its totals and generator
// states (restored after the epoch's order is redrawn).
struct EpochStart {
  int64_t batch = 0;
  double seconds = 0;
  RunGenerators::States generators;  // undefined at batch 0
};

// The start of an epoch that `mid` interrupted; its partial sums go into `totals`.
EpochStart resume_point(const MidEpoch& mid, StepTotals& totals, torch::Device device);
// Puts the run's generators back to where `start` left them (after the epoch's order was drawn); no-op at batch 0.
void restore_generators(const EpochStart& start, RunGenerators& generators);
// What a mid-epoch checkpoint holds after `batches` batches: the totals and the run's generators' states now.
MidEpoch mid_epoch_state(int64_t batches, const StepTotals& totals, double seconds, RunGenerators& generators);

}  // namespace repro
