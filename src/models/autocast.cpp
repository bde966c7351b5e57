#include "models/autocast.h"

#include <ATen/autocast_mode.h>

namespace repro {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocast_enabled(torch::DeviceType type) { return at::autocast::is_autocast_enabled(type); }
void set_autocast(torch::DeviceType type, bool on) { at::autocast::set_autocast_enabled(type, on); }
at::ScalarType autocast_dtype(torch::DeviceType type) { return at::autocast::get_autocast_dtype(type); }
void set_autocast_dtype(torch::DeviceType type, at::ScalarType dtype) { at::autocast::set_autocast_dtype(type, dtype); }
#else
bool autocast_enabled(torch::DeviceType type) {
  return type == torch::kCUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
void set_autocast(torch::DeviceType type, bool on) {
  if (type == torch::kCUDA)
    at::autocast::set_enabled(on);
  else
    at::autocast::set_cpu_enabled(on);
}
at::ScalarType autocast_dtype(torch::DeviceType type) {
  return type == torch::kCUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
}
void set_autocast_dtype(torch::DeviceType type, at::ScalarType dtype) {
  if (type == torch::kCUDA)
    at::autocast::set_autocast_gpu_dtype(dtype);
  else
    at::autocast::set_autocast_cpu_dtype(dtype);
}
#endif

}  // namespace repro
