#pragma once
// TensorBoard event files, one of a run's records (record/folder.h names them): written live by run/tensorboard_log,
// read back by `repro status`, `report` and `collect` and by a resume. A TFRecord file of `Event` protobuf messages
// (src/record/tensorboard.proto, TensorBoard's field numbers). Each record is
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
// bytes from `offset` are not one whole record with good CRCs (the end, a torn tail, a damaged record). A reader
// stops there. Not every reader retries from the same offset: TensorBoard without TensorFlow reads with a stub
// (compat/tensorflow_stub) that has consumed the bytes it could not use (its file position has moved past them),
// so bytes changed behind a reader's position are never seen; repro therefore never changes a byte of an event file
// once written (it only appends) and writes a new file, of a later name, where one must be rewritten
// (RunFolder::next_events_path).
std::optional<std::string> next_record(const std::string& bytes, size_t& offset);

// What one record holds, as far as repro writes events (a reader's view: the resume's, the tests').
struct EventRecord {
  enum class Kind { FileVersion, SessionStart, Scalar, Text, Other };
  Kind kind = Kind::Other;  // Other: anything else, or bytes that are no Event message
  int64_t step = 0;
  double wall_time = 0;
  std::string name;  // FileVersion: the version; Scalar, Text: the tag
  float value = 0;   // Scalar: its simple_value
  std::string text;  // Text: the markdown
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

// For `repro report`, `repro status` and `repro collect` of a finished run, and `repro run`'s repair of it: "" when
// the event file at `path` is absent or whole; else one line naming it and what is wrong (a damaged record, a record
// cut short, not an event file, not a regular file). A finished run's file ends with whole records: its numbers are
// in metrics.csv and steps.csv all the same.
std::string event_file_problem(const std::filesystem::path& path);

// One events.out.tfevents.* file, appended to and written through after every event, so that TensorBoard shows
// a run while it trains. Never rewritten in place, never cut: a TensorBoard that is reading it keeps its position.
class EventFile {
 public:
  // A new file (an existing file, or a link, is replaced; a link's target is never written): the file_version
  // event "brain.Event:2", then a SessionLog START at step 0 stamped `wall_time`.
  static EventFile create(const std::filesystem::path& path, double wall_time);
  // The file continued by a new session, which appends after its records, beginning with session_start. `scan`
  // receives what the file held. nullopt when there is nothing to append to: no file, a link, not a regular file,
  // a first record that is not the file_version event, or bytes after its whole records (a torn tail or a damaged
  // record: a reader stopped there never reads what would follow, so the caller writes a new file).
  static std::optional<EventFile> continue_file(const std::filesystem::path& path, EventFileScan& scan);

  // A SessionLog START at `step`: readers drop every value at `step` or later that they read before it (the
  // file's first START excepted, and those of the files before it by name: TensorBoard reads a run folder's event
  // files as one stream). Its `wall_time` begins the session's clock.
  void session_start(int64_t step, double wall_time);
  void scalar(const std::string& tag, int64_t step, double value, double wall_time);
  void text(const std::string& tag, int64_t step, const std::string& markdown, double wall_time);

 private:
  explicit EventFile(OutputFile out) : out_(std::move(out)) {}
  // Wall times never go back within a session: an event asking for an earlier time than the session's last one
  // gets that one. A session's START may be earlier than the file's last event (the rows it rewrites keep the
  // wall times steps.csv gives them).
  double stamp(double wall_time);
  void write(const std::string& event_bytes);
  OutputFile out_;
  double last_wall_time_ = 0;
};

double unix_time_now();  // seconds, with the fraction
// False in a build configured with -DREPRO_WITH_TENSORBOARD=OFF (no protobuf): the functions above then throw.
bool event_files_available();

}  // namespace repro
