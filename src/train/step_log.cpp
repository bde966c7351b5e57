#include "train/step_log.h"

#include <cmath>

#include "util/csv.h"
#include "util/error.h"

#ifdef REPRO_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace repro {

namespace {

const char* const kHeader = "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time";

double json_number(const nlohmann::json& value) { return value.is_number() ? value.get<double>() : NAN; }

nlohmann::json json_of(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

}  // namespace

nlohmann::json steps_to_json(const std::vector<StepRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({r.step, r.epoch, json_of(r.loss), json_of(r.lr), json_of(r.grad_norm), json_of(r.examples_per_s),
                   json_of(r.cuda_memory_mb), json_of(r.wall_time)});
  return out;
}

std::vector<StepRow> steps_from_json(const nlohmann::json& json) {
  std::vector<StepRow> rows;
  for (const auto& r : json) {
    if (!r.is_array() || r.size() != 8 || !r[0].is_number_integer() || !r[1].is_number_integer())
      throw Error("a step row is not [step, epoch, 6 numbers]: " + r.dump());
    rows.push_back({r[0].get<int64_t>(), r[1].get<int64_t>(), json_number(r[2]), json_number(r[3]), json_number(r[4]),
                    json_number(r[5]), json_number(r[6]), json_number(r[7])});
  }
  return rows;
}

const char* steps_csv_header() { return kHeader; }

std::string steps_csv(const std::vector<StepRow>& rows) {
  std::string out = std::string(kHeader) + "\n";
  for (const auto& r : rows)
    out += std::to_string(r.step) + "," + std::to_string(r.epoch) + "," + csv_number(r.loss) + "," + csv_number(r.lr) +
           "," + csv_number(r.grad_norm) + "," + csv_number(r.examples_per_s) + "," + csv_number(r.cuda_memory_mb) +
           "," + csv_number(r.wall_time, 16) + "\n";
  return out;
}

StepWindow::StepWindow(torch::Device device)
    : device_(device),
      loss_sum_(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      start_(std::chrono::steady_clock::now()) {}

void StepWindow::add(const torch::Tensor& loss, int64_t batch) {
  loss_sum_ += loss.detach().to(torch::kFloat32) * static_cast<double>(batch);
  seen_ += batch;
}

WindowSums StepWindow::sums() const { return {loss_sum_.to(torch::kCPU).clone(), seen_}; }

void StepWindow::restore(const WindowSums& sums) {
  if (sums.loss_sum.defined()) loss_sum_.copy_(sums.loss_sum);
  seen_ = sums.seen;
}

StepRow StepWindow::close(int64_t step, int64_t epoch, double lr, const torch::Tensor& grad_norm) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - start_).count();
  StepRow row;
  row.step = step;
  row.epoch = epoch;
  row.loss = seen_ > 0 ? loss_sum_.item<double>() / static_cast<double>(seen_) : NAN;  // the one host read
  row.lr = lr;
  row.grad_norm = grad_norm.defined() ? grad_norm.item<double>() : NAN;
  row.examples_per_s = seconds > 0 ? static_cast<double>(seen_) / seconds : NAN;
  row.cuda_memory_mb = cuda_memory_mb(device_);
  row.wall_time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  loss_sum_.zero_();
  seen_ = 0;
  start_ = now;
  return row;
}

double cuda_memory_mb(torch::Device device) {
#ifdef REPRO_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    return static_cast<double>(stats.allocated_bytes[0].current) / (1024.0 * 1024.0);  // [0] = all pools
  }
#endif
  (void)device;
  return NAN;
}

}  // namespace repro
