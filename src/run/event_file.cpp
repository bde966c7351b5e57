#include "run/event_file.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "util/error.h"

// The generated messages and Boost.CRC exist in a build configured with REPRO_WITH_TENSORBOARD (the default); a
// build without them (scripts/build-cuda) compiles the part below that says so. tests/test_steps.cpp checks that a
// default build has them.
#if __has_include("run/tensorboard.pb.h") && __has_include(<boost/crc.hpp>)
#define REPRO_EVENT_FILES 1
#include <boost/crc.hpp>

#include "run/tensorboard.pb.h"
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
  EventRecord record{kind_of(event), event.step(), event.wall_time(), "", 0};
  if (record.kind == EventRecord::Kind::FileVersion) record.name = event.file_version();
  if (record.kind == EventRecord::Kind::Scalar || record.kind == EventRecord::Kind::Text)
    record.name = event.summary().value(0).tag();
  if (record.kind == EventRecord::Kind::Scalar) record.value = event.summary().value(0).simple_value();
  return record;
}

EventFile EventFile::create(const std::filesystem::path& path) {
  EventFile file(OutputFile::replace(path));
  tb::Event event;
  event.set_wall_time(unix_time_now());
  event.set_file_version("brain.Event:2");  // version 2: TensorBoard purges on a SessionLog START (below)
  file.write(event.SerializeAsString());
  file.session_start(0);
  return file;
}

// TensorBoard's readers (tensorboard/backend/event_processing/event_file_loader.py) stop at a torn or damaged
// record and retry from its offset, so that cutting such a tail and appending after it is what they expect. Its
// accumulators (plugin_event_accumulator.py, _CheckForRestartAndMaybePurge and _Purge) in a file whose
// file_version is 2 or more treat each SessionLog START after the first as a restart: they drop every value of
// every tag whose step is >= the START's (`x.step < event.step` is kept). The older event_accumulator.py purges on
// the first START too. Only steps matter: wall_time is never compared there (the first event's is the run's
// start), so a resumed session's times need not follow the killed one's.
std::optional<EventFile> EventFile::resume(const std::filesystem::path& path, int64_t step) {
  if (std::filesystem::is_symlink(path) || !std::filesystem::is_regular_file(path)) return std::nullopt;
  const std::string bytes = read_file(path);
  size_t readable = 0;  // the bytes of the whole records with good CRCs from the start
  std::vector<EventRecord> events;
  while (const auto data = next_record(bytes, readable)) events.push_back(decode_event(*data));
  if (events.empty() || events.front().kind != EventRecord::Kind::FileVersion) return std::nullopt;
  if (readable < bytes.size()) std::filesystem::resize_file(path, readable);
  EventFile file(OutputFile::append(path));
  const bool started = std::any_of(events.begin(), events.end(),
                                   [](const EventRecord& e) { return e.kind == EventRecord::Kind::SessionStart; });
  if (!started) file.session_start(step);  // a file of repro 0.4.0 or earlier: this one counts as the first START
  file.session_start(step);
  return file;
}

void EventFile::session_start(int64_t step) {
  tb::Event event;
  event.set_wall_time(unix_time_now());
  event.set_step(step);
  event.mutable_session_log()->set_status(tb::SessionLog::START);
  write(event.SerializeAsString());
}

void EventFile::scalar(const std::string& tag, int64_t step, double value, double wall_time) {
  tb::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  auto* v = event.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  write(event.SerializeAsString());
}

// The text plugin's form: a scalar string tensor with plugin_name "text".
void EventFile::text(const std::string& tag, int64_t step, const std::string& markdown, double wall_time) {
  tb::Event event;
  event.set_wall_time(wall_time);
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
EventFile EventFile::create(const std::filesystem::path&) { unavailable(); }
std::optional<EventFile> EventFile::resume(const std::filesystem::path&, int64_t) { unavailable(); }
void EventFile::session_start(int64_t) { unavailable(); }
void EventFile::scalar(const std::string&, int64_t, double, double) { unavailable(); }
void EventFile::text(const std::string&, int64_t, const std::string&, double) { unavailable(); }
void EventFile::write(const std::string&) { unavailable(); }

#endif

}  // namespace repro
