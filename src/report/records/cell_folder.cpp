#include "report/records/cell_folder.h"

#include <tuple>

namespace repro {

bool held_before(const CellHolder& a, const CellHolder& b) {
  return std::make_tuple(a.swept, -a.counted, a.reading, a.folder) <
         std::make_tuple(b.swept, -b.counted, b.reading, b.folder);
}

}  // namespace repro
