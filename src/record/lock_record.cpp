#include "record/lock_record.h"

#include <nlohmann/json.hpp>

#include "record/json_fields.h"

namespace repro {

std::string LockHolder::describe() const {
  return host + ":" + std::to_string(pid) + (slurm_job.empty() ? "" : " (SLURM job " + slurm_job + ")");
}

std::string lock_holder_text(const LockHolder& holder) {
  const nlohmann::json record = {
      {"host", holder.host}, {"pid", holder.pid}, {"slurm_job", holder.slurm_job}, {"since", holder.since}};
  return record.dump() + "\n";
}

LockHolder read_lock_holder(const std::string& text) {
  LockHolder holder{"?", 0, "", ""};
  try {
    const nlohmann::json record = nlohmann::json::parse(text);
    const JsonFields fields(record, "lock");
    holder.host = fields.optional_text("host").value_or("?");
    holder.pid = fields.optional_integer("pid").value_or(0);
    holder.slurm_job = fields.optional_text("slurm_job").value_or("");
    holder.since = fields.optional_text("since").value_or("");
  } catch (const std::exception&) {  // not written yet, or damaged: an unknown holder
    return LockHolder{"?", 0, "", ""};
  }
  return holder;
}

}  // namespace repro
