#include "data/dataset.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace repro {

ProgressLine::ProgressLine(std::string what, double every_seconds)
    : what_(std::move(what)), every_(every_seconds), start_(std::chrono::steady_clock::now()), last_(start_) {}

void ProgressLine::update(double done, double total) {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < every_ || total <= 0) return;
  last_ = now;
  spdlog::info("{}", progress_text(what_, done, total, std::chrono::duration<double>(now - start_).count()));
}

std::string progress_text(const std::string& what, double done, double total, double seconds_so_far) {
  const double share = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0;
  std::string text = what + ": " + std::to_string(static_cast<int>(std::floor(100 * share))) + "%";
  if (share > 0 && share < 1)
    text +=
        " (about " + std::to_string(static_cast<int64_t>(std::ceil(seconds_so_far * (1 - share) / share))) + " s left)";
  return text;
}

const EnumNames<Modality>& enum_names(Modality) {
  static const EnumNames<Modality> names = {{Modality::Image, "image"}, {Modality::Text, "text"}};
  return names;
}

std::string class_label(const DatasetInfo& info, int64_t label) {
  const std::string number = "class " + std::to_string(label);
  if (label >= 0 && label < static_cast<int64_t>(info.class_names.size()))
    return number + " (" + info.class_names[label] + ")";
  return number;
}

void DataNotes::note(NoteKind kind, const std::string& text) {
  notes.push_back(text);
  incomplete |= kind == NoteKind::Incomplete;
  subset |= kind == NoteKind::Subset;
  unverified |= kind == NoteKind::Unverified;
}

void DataNotes::add_notes(const DataNotes& other) {
  notes.insert(notes.end(), other.notes.begin(), other.notes.end());
  incomplete |= other.incomplete;
  subset |= other.subset;
  unverified |= other.unverified;
}

}  // namespace repro
