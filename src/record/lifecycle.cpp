#include "record/lifecycle.h"

namespace repro {

const EnumNames<RunState>& enum_names(RunState) {
  static const EnumNames<RunState> names = {
      {RunState::Pending, "pending"},   {RunState::Running, "running"},   {RunState::Resumable, "resumable"},
      {RunState::Interrupted, "interrupted"}, {RunState::Complete, "complete"}, {RunState::Diverged, "diverged"},
      {RunState::Failed, "failed"},     {RunState::Corrupt, "corrupt"},   {RunState::Inconsistent, "inconsistent"},
      {RunState::Link, "link"}};
  return names;
}

}  // namespace repro
