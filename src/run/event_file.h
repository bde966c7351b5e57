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
#include <vector>

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

// What an event file's bytes hold: its whole records with good CRCs from the start, and what stops them.
struct EventFileScan {
  std::vector<EventRecord> events;  // in file order
  size_t readable = 0;              // the bytes of those records
  size_t size = 0;                  // the file's bytes
  // The bytes after `readable` are not a record a killed writer cut short (that is a torn tail, left by every kill
  // mid-write) but damage: a whole record with a bad CRC, or a length with a bad one. The records after it are
  // lost to every reader.
  bool damaged = false;
  bool is_event_file() const { return !events.empty() && events.front().kind == EventRecord::Kind::FileVersion; }
  // "" when every byte is read; else "a damaged record at byte N of M" or "a record cut short at byte N of M".
  std::string stop() const;
};
EventFileScan scan_event_bytes(const std::string& bytes);

// For `repro report` and `repro status` of a finished run: "" when the event file at `path` is absent or whole;
// else one line naming it and what is wrong (a damaged record, a record cut short, not an event file, not a regular
// file). A finished run's file ends with whole records: its numbers are in metrics.csv and steps.csv all the same.
std::string event_file_problem(const std::filesystem::path& path);

// One events.out.tfevents.* file, appended to and written through after every event, so that TensorBoard shows
// a run while it trains. Never rewritten in place: a TensorBoard that is reading it keeps its byte offset.
class EventFile {
 public:
  // A new file (an existing file, or a link, is replaced; a link's target is never written): the file_version
  // event "brain.Event:2", then a SessionLog START at step 0. Only where there is nothing to continue.
  static EventFile create(const std::filesystem::path& path);
  // The file continued by a new session: whatever follows its whole records (a killed writer's torn tail, or a
  // damaged record and what comes after it; no reader got past either) is cut, and the session appends after
  // them, beginning with session_start. `scan` receives what the file held. nullopt when there is nothing to
  // continue: no file, a link, not a regular file, or a first record that is not the file_version event.
  static std::optional<EventFile> continue_file(const std::filesystem::path& path, EventFileScan& scan);

  // A SessionLog START at `step`: readers drop every value at `step` or later that the file held before it.
  void session_start(int64_t step);
  void scalar(const std::string& tag, int64_t step, double value, double wall_time);
  void text(const std::string& tag, int64_t step, const std::string& markdown, double wall_time);

 private:
  explicit EventFile(OutputFile out, double last_wall_time = 0)
      : out_(std::move(out)), last_wall_time_(last_wall_time) {}
  // Wall times never go back in a file: an event asking for an earlier time than the last one gets the last.
  double stamp(double wall_time);
  void write(const std::string& event_bytes);
  OutputFile out_;
  double last_wall_time_ = 0;
};

double unix_time_now();  // seconds, with the fraction
// False in a build configured with -DREPRO_WITH_TENSORBOARD=OFF (no protobuf): the functions above then throw.
bool event_files_available();

}  // namespace repro
