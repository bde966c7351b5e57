#include "data/dataset.h"

namespace repro {

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
