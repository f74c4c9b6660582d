#include "app/visible_devices.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace pfsp {
namespace {
std::atomic<bool> g_allowed{false};
}

void allow_narrowing_visible_devices() { g_allowed.store(true); }
bool narrowing_visible_devices_allowed() { return g_allowed.load(); }

std::optional<visible_devices> plan_visible_devices(int device, const gpu::device_selection& devices, int driver_gpus,
                                                    bool variable_set) {
  if (variable_set || devices.all || driver_gpus <= 0) return std::nullopt;
  const std::vector<int> used = devices.ordinals.empty() ? std::vector<int>{device} : devices.ordinals;
  std::vector<int> order;  // each used ordinal once, in first use
  for (int d : used) {
    if (d < 0 || d >= driver_gpus) return std::nullopt;
    if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
  }
  if (static_cast<int>(order.size()) == driver_gpus && std::is_sorted(order.begin(), order.end()))
    return std::nullopt;  // every GPU, in order: nothing to narrow
  const auto position = [&](int d) {
    return static_cast<int>(std::find(order.begin(), order.end(), d) - order.begin());
  };
  visible_devices v;
  for (int d : order) {
    if (!v.text.empty()) v.text += ',';  // piece by piece: g++ 12's -Wrestrict misfires on "," + std::string
    v.text += std::to_string(d);
  }
  v.device = devices.ordinals.empty() ? position(device) : position(devices.ordinals.front());
  for (int d : devices.ordinals) v.ordinals.push_back(position(d));
  return v;
}

int driver_gpu_count() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", ec);
  if (ec) return -1;
  int count = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return -1;
    ++count;
  }
  return count;
}

std::string narrow_visible_devices(gpu_cli_options& g) {
  const bool set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
  const std::optional<visible_devices> v =
      plan_visible_devices(g.policy.device, g.request.devices, set ? -1 : driver_gpu_count(), set);
  if (!v || setenv("CUDA_VISIBLE_DEVICES", v->text.c_str(), 1) != 0) return "";
  g.policy.device = v->device;
  g.request.devices.ordinals = v->ordinals;
  return v->text;
}

}  // namespace pfsp
