#include "record/event_file.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "util/error.h"

// The generated messages and Boost.CRC exist in a build configured with REPRO_WITH_TENSORBOARD (the default); a
// build without them (scripts/build-cuda) compiles the part below that says so. tests/test_steps.cpp checks that a
// default build has them.
#if __has_include("record/tensorboard.pb.h") && __has_include(<boost/crc.hpp>)
#define REPRO_EVENT_FILES 1
#include <boost/crc.hpp>

#include "record/tensorboard.pb.h"
#else
#define REPRO_EVENT_FILES 0
#endif

namespace repro {

double unix_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool event_files_available() { return REPRO_EVENT_FILES; }

#if REPRO_EVENT_FILES

namespace {

namespace tb = repro::tensorboard;

// CRC-32C: polynomial 0x1EDC6F41, reflected in and out, initial and final XOR 0xFFFFFFFF.
using Crc32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

std::string little_endian(uint64_t value, int bytes) {
  std::string out(static_cast<size_t>(bytes), '\0');
  for (int i = 0; i < bytes; ++i) out[static_cast<size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xFF);
  return out;
}

uint64_t read_little_endian(const std::string& bytes, size_t at, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  return value;
}

EventRecord::Kind kind_of(const tb::Event& event) {
  using Kind = EventRecord::Kind;
  if (event.has_file_version()) return Kind::FileVersion;
  if (event.has_session_log())
    return event.session_log().status() == tb::SessionLog::START ? Kind::SessionStart : Kind::Other;
  if (!event.has_summary() || event.summary().value_size() != 1) return Kind::Other;
  const auto& value = event.summary().value(0);
  if (value.has_simple_value()) return Kind::Scalar;
  return value.has_tensor() ? Kind::Text : Kind::Other;
}

}  // namespace

uint32_t crc32c(const std::string& bytes) {
  Crc32c crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

uint32_t masked_crc32c(const std::string& bytes) {
  const uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string tfrecord(const std::string& data) {
  const std::string length = little_endian(data.size(), 8);
  return length + little_endian(masked_crc32c(length), 4) + data + little_endian(masked_crc32c(data), 4);
}

std::optional<std::string> next_record(const std::string& bytes, size_t& offset) {
  if (offset > bytes.size() || bytes.size() - offset < 12) return std::nullopt;
  const std::string length_bytes = bytes.substr(offset, 8);
  if (read_little_endian(bytes, offset + 8, 4) != masked_crc32c(length_bytes)) return std::nullopt;
  const uint64_t length = read_little_endian(bytes, offset, 8);
  if (length > bytes.size() - offset - 12 || bytes.size() - offset - 12 - length < 4) return std::nullopt;
  std::string data = bytes.substr(offset + 12, length);
  if (read_little_endian(bytes, offset + 12 + length, 4) != masked_crc32c(data)) return std::nullopt;
  offset += 12 + length + 4;
  return data;
}

EventRecord decode_event(const std::string& data) {
  tb::Event event;
  if (!event.ParseFromString(data)) return {};
  EventRecord record{kind_of(event), event.step(), event.wall_time(), "", 0, ""};
  if (record.kind == EventRecord::Kind::FileVersion) record.name = event.file_version();
  if (record.kind == EventRecord::Kind::Scalar || record.kind == EventRecord::Kind::Text)
    record.name = event.summary().value(0).tag();
  if (record.kind == EventRecord::Kind::Scalar) record.value = event.summary().value(0).simple_value();
  if (record.kind == EventRecord::Kind::Text && event.summary().value(0).tensor().string_val_size() == 1)
    record.text = event.summary().value(0).tensor().string_val(0);
  return record;
}

EventFileScan scan_event_bytes(const std::string& bytes) {
  EventFileScan scan;
  scan.size = bytes.size();
  while (const auto data = next_record(bytes, scan.readable)) scan.events.push_back(decode_event(*data));
  const size_t left = scan.size - scan.readable;
  if (left < 12) return scan;  // the end, or a header cut short
  const std::string length_bytes = bytes.substr(scan.readable, 8);
  if (read_little_endian(bytes, scan.readable + 8, 4) != masked_crc32c(length_bytes)) {
    scan.damaged = true;  // a writer writes a record whole: a bad length CRC is damage
    return scan;
  }
  const uint64_t length = read_little_endian(bytes, scan.readable, 8);
  scan.damaged =
      left >= 16 && length <= left - 16;  // the whole record is there with a bad data CRC (shorter: cut by a kill)
  return scan;
}

std::string EventFileScan::stop() const {
  if (readable == size) return "";
  return std::string(damaged ? "a damaged record" : "a record cut short") + " at byte " + std::to_string(readable) +
         " of " + std::to_string(size);
}

std::string event_file_problem(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return "";
  try {
    const EventFileScan scan = scan_event_bytes(read_regular_file(path, kLogBytes, "a TensorBoard event file"));
    if (!scan.is_event_file())
      return path.string() + ": not a TensorBoard event file (its first record is not the file_version event)";
    if (scan.readable < scan.size)
      return path.string() + ": " + scan.stop() +
             " bytes; TensorBoard shows nothing after it (steps.csv and metrics.csv hold every row; `repro run` of "
             "the run's spec writes the file anew from them)";
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

EventFile EventFile::create(const std::filesystem::path& path, double wall_time) {
  EventFile file(OutputFile::replace(path));
  tb::Event event;
  event.set_wall_time(file.stamp(wall_time));
  event.set_file_version("brain.Event:2");  // version 2: TensorBoard purges on a SessionLog START (below)
  file.write(event.SerializeAsString());
  file.session_start(0, wall_time);
  return file;
}

// TensorBoard's accumulators (plugin_event_accumulator.py, _CheckForRestartAndMaybePurge and _Purge) in a file
// whose file_version is 2 or more treat each SessionLog START after the first they read as a restart: they drop
// every value of every tag whose step is >= the START's (`x.step < event.step` is kept). The older
// event_accumulator.py purges on the first START too. Its directory loader (directory_watcher.py) reads a run
// folder's event files in name order as one stream, and moves on to a file of a later name for good once the one
// it reads has nothing new: a file written after a damaged one, beginning with a START at step 0, replaces
// everything a reader showed of the damaged one.
std::optional<EventFile> EventFile::continue_file(const std::filesystem::path& path, EventFileScan& scan) {
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec) || !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  scan = scan_event_bytes(read_regular_file(path, kLogBytes, "a TensorBoard event file"));
  if (!scan.is_event_file() || scan.readable < scan.size) return std::nullopt;
  return EventFile(OutputFile::append(path));
}

double EventFile::stamp(double wall_time) {
  last_wall_time_ = std::max(last_wall_time_, wall_time);
  return last_wall_time_;
}

void EventFile::session_start(int64_t step, double wall_time) {
  last_wall_time_ = wall_time;
  tb::Event event;
  event.set_wall_time(stamp(wall_time));
  event.set_step(step);
  event.mutable_session_log()->set_status(tb::SessionLog::START);
  write(event.SerializeAsString());
}

void EventFile::scalar(const std::string& tag, int64_t step, double value, double wall_time) {
  tb::Event event;
  event.set_wall_time(stamp(wall_time));
  event.set_step(step);
  auto* v = event.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  write(event.SerializeAsString());
}

// The text plugin's form: a scalar string tensor with plugin_name "text".
void EventFile::text(const std::string& tag, int64_t step, const std::string& markdown, double wall_time) {
  tb::Event event;
  event.set_wall_time(stamp(wall_time));
  event.set_step(step);
  auto* v = event.mutable_summary()->add_value();
  v->set_tag(tag);
  v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
  v->mutable_metadata()->set_data_class(tb::DATA_CLASS_TENSOR);
  auto* tensor = v->mutable_tensor();
  tensor->set_dtype(tb::DT_STRING);
  tensor->mutable_tensor_shape();  // no dims: a scalar
  tensor->add_string_val(markdown);
  write(event.SerializeAsString());
}

void EventFile::write(const std::string& event_bytes) { out_.write(tfrecord(event_bytes)); }

#else  // no protobuf, no Boost.CRC: the checksums and records are not available

namespace {
[[noreturn]] void unavailable() {
  missing_feature("TensorBoard event files", "protobuf and Boost.CRC", "REPRO_WITH_TENSORBOARD");
}
}  // namespace

uint32_t crc32c(const std::string&) { unavailable(); }
uint32_t masked_crc32c(const std::string&) { unavailable(); }
std::string tfrecord(const std::string&) { unavailable(); }
std::optional<std::string> next_record(const std::string&, size_t&) { unavailable(); }
EventRecord decode_event(const std::string&) { unavailable(); }
EventFileScan scan_event_bytes(const std::string&) { unavailable(); }
std::string EventFileScan::stop() const { unavailable(); }
std::string event_file_problem(const std::filesystem::path&) { return ""; }  // nothing is written: nothing to check
EventFile EventFile::create(const std::filesystem::path&, double) { unavailable(); }
std::optional<EventFile> EventFile::continue_file(const std::filesystem::path&, EventFileScan&) { unavailable(); }
double EventFile::stamp(double) { unavailable(); }
void EventFile::session_start(int64_t, double) { unavailable(); }
void EventFile::scalar(const std::string&, int64_t, double, double) { unavailable(); }
void EventFile::text(const std::string&, int64_t, const std::string&, double) { unavailable(); }
void EventFile::write(const std::string&) { unavailable(); }

#endif

}  // namespace repro
