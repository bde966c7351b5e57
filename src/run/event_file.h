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

#include "util/files.h"

namespace repro {

uint32_t crc32c(const std::string& bytes);         // CRC-32C of the bytes
uint32_t masked_crc32c(const std::string& bytes);  // TFRecord's masked form
std::string tfrecord(const std::string& data);     // one framed record

// One events.out.tfevents.* file, written from its start (an existing file, or a link, is
// replaced; a link's target is never written) and written through after every event, so that TensorBoard shows a run while it trains.
class EventFile {
 public:
  explicit EventFile(const std::filesystem::path& path);  // writes the file_version event
  void scalar(const std::string& tag, int64_t step, double value, double wall_time);
  void text(const std::string& tag, int64_t step, const std::string& markdown, double wall_time);

 private:
  void write(const std::string& event_bytes);
  std::optional<OutputFile> out_;
};

double unix_time_now();  // seconds, with the fraction
// False in a build configured with -DREPRO_WITH_TENSORBOARD=OFF (no protobuf): the functions above then throw.
bool event_files_available();

}  // namespace repro
