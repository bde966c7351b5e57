#pragma once
// Which epoch a run reports (train.select) and which epoch's weights it keeps as model.pt (train.save_model).
#include <cstdint>
#include <vector>

#include "record/epoch_row.h"
#include "spec/options.h"

namespace repro {

// An epoch of a run's history (1-based; 0 = none) and the rule that chose it.
struct EpochChoice {
  SelectRule rule = SelectRule::Last;  // best_val or last: never auto
  int64_t epoch = 0;
};

// train.select applied to `history`: best_val = the first epoch with the highest validation accuracy (auto means
// best_val when there is a validation split), else the last epoch.
EpochChoice selected_epoch(const std::vector<EpochRow>& history, SelectRule rule, bool has_validation);

// The epoch whose weights the run keeps after `history`: the selected epoch, the last epoch, or none (epoch 0).
EpochChoice epoch_to_keep(SaveModel save, SelectRule select, bool has_validation, const std::vector<EpochRow>& history);

}  // namespace repro
