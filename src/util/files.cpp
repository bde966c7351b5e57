#include "util/files.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "util/error.h"

namespace repro {

fs::path temp_sibling(const fs::path& path) { return fs::path(path.string() + ".tmp-" + std::to_string(::getpid())); }

void commit_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw Error("cannot move " + from.string() + " to " + to.string() + ": " + ec.message());
}

void write_file_atomic(const fs::path& path, const std::string& content) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  const fs::path tmp = temp_sibling(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp.string());
    out << content;
    out.flush();
    if (!out) throw Error("write failed for " + tmp.string() + " (disk full?)");
  }
  commit_file(tmp, path);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace repro
