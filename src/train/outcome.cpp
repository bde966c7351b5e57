#include "train/outcome.h"

namespace repro {

const EnumNames<RunStatus>& enum_names(RunStatus) {
  static const EnumNames<RunStatus> names = {{RunStatus::Complete, "complete"},
                                             {RunStatus::Diverged, "diverged"},
                                             {RunStatus::Failed, "failed"},
                                             {RunStatus::Interrupted, "interrupted"}};
  return names;
}

}  // namespace repro
