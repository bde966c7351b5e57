#include "run/event_file.h"

#include <chrono>

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

EventFile::EventFile(const std::filesystem::path& path) : out_(OutputFile::replace(path)) {
  tb::Event event;
  event.set_wall_time(unix_time_now());
  event.set_file_version("brain.Event:2");
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

void EventFile::write(const std::string& event_bytes) { out_->write(tfrecord(event_bytes)); }

#else  // no protobuf, no Boost.CRC: the checksums and records are not available

namespace {
[[noreturn]] void unavailable() {
  missing_feature("TensorBoard event files", "protobuf and Boost.CRC", "REPRO_WITH_TENSORBOARD");
}
}  // namespace

uint32_t crc32c(const std::string&) { unavailable(); }
uint32_t masked_crc32c(const std::string&) { unavailable(); }
std::string tfrecord(const std::string&) { unavailable(); }
EventFile::EventFile(const std::filesystem::path&) { unavailable(); }
void EventFile::scalar(const std::string&, int64_t, double, double) { unavailable(); }
void EventFile::text(const std::string&, int64_t, const std::string&, double) { unavailable(); }
void EventFile::write(const std::string&) { unavailable(); }

#endif

}  // namespace repro
