#pragma once
// TensorBoard event files: a TFRecord file of `Event` protobuf messages
// (src/run/tensorboard.proto, TensorBoard's field numbers). Each record is
//   uint64 length (little-endian) | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)
// with CRC-32C (Castagnoli) from Boost.CRC, masked as TensorFlow's crc32c::Mask:
// ((crc >> 15) | (crc << 17)) + 0xa282ead8. The messages are encoded by protobuf.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "util/files.h"

namespace repro {

uint32_t crc32c(const std::string& bytes);         // CRC-32C of the bytes
uint32_t masked_crc32c(const std::string& bytes);  // TFRecord's masked form
std::string tfrecord(const std::string& data);     // one framed record

// The record at `offset` of `bytes`: its data, with `offset` moved past it; nullopt, `offset` unmoved, where the
// bytes from `offset` are not one whole record with good CRCs (the end, a torn tail, a damaged record). Readers
// (TensorBoard's included) stop there and retry later from the same offset.
std::optional<std::string> next_record(const std::string& bytes, size_t& offset);

// What one record holds, as far as repro writes events (a reader's view: the resume's, the tests').
struct EventRecord {
  enum class Kind { FileVersion, SessionStart, Scalar, Text, Other };
  Kind kind = Kind::Other;  // Other: anything else, or bytes that are no Event message
  int64_t step = 0;
  double wall_time = 0;
  std::string name;  // FileVersion: the version; Scalar, Text: the tag
  float value = 0;   // Scalar: its simple_value
};
EventRecord decode_event(const std::string& data);

// One events.out.tfevents.* file, appended to and written through after every event, so that TensorBoard shows
// a run while it trains. Never rewritten in place: a TensorBoard that is reading it keeps its byte offset.
class EventFile {
 public:
  // A new file (an existing file, or a link, is replaced; a link's target is never written): the file_version
  // event "brain.Event:2", then a SessionLog START at step 0.
  static EventFile create(const std::filesystem::path& path);
  // The file continued by a session that resumes from a checkpoint at global step `step`: its torn or CRC-bad
  // tail (a killed writer's; no reader got past it) cut, then a SessionLog START at `step`, after which readers
  // drop every value at `step` or later that the file held. nullopt when there is nothing to continue: no file, a
  // link, or a first record that is not the file_version event.
  static std::optional<EventFile> resume(const std::filesystem::path& path, int64_t step);

  void scalar(const std::string& tag, int64_t step, double value, double wall_time);
  void text(const std::string& tag, int64_t step, const std::string& markdown, double wall_time);

 private:
  explicit EventFile(OutputFile out) : out_(std::move(out)) {}
  void session_start(int64_t step);
  void write(const std::string& event_bytes);
  OutputFile out_;
};

double unix_time_now();  // seconds, with the fraction
// False in a build configured with -DREPRO_WITH_TENSORBOARD=OFF (no protobuf): the functions above then throw.
bool event_files_available();

}  // namespace repro
