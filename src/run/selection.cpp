#include "run/selection.h"

namespace repro {

EpochChoice selected_epoch(const std::vector<EpochRow>& history, SelectRule rule, bool has_validation) {
  const bool best = has_validation && rule != SelectRule::Last;
  EpochChoice choice{best ? SelectRule::BestVal : SelectRule::Last, 0};
  if (history.empty()) return choice;
  const EpochRow* chosen = &history.back();
  if (best) {
    chosen = &history.front();
    for (const auto& row : history)  // the first epoch with the highest validation accuracy
      if (row.val_acc > chosen->val_acc) chosen = &row;
  }
  choice.epoch = chosen->epoch;
  return choice;
}

EpochChoice epoch_to_keep(SaveModel save, SelectRule select, bool has_validation, const std::vector<EpochRow>& history) {
  if (save == SaveModel::None || history.empty()) return {};
  if (save == SaveModel::Last) return {SelectRule::Last, history.back().epoch};
  return selected_epoch(history, select, has_validation);
}

}  // namespace repro
