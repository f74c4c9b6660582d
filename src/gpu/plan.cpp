#include "gpu/plan.hpp"

#include <algorithm>
#include <exception>

#include "base/error.hpp"
#include "gpu/bounder.hpp"
#include "gpu/resident.hpp"
#include "gpu/solver.hpp"

namespace pfsp::gpu {
namespace {

// Options of the host loop that --gpu-loop auto reads as a request for it.
bool asks_host_loop(bool host_loop_options, const gpu_policy& policy) {
  return host_loop_options || !is_plain(policy.strategy.kind) || policy.sort == pool_sort::host;
}

void check_pool(std::size_t pool, int n) {
  if (pool < 2 * static_cast<std::size_t>(n))
    throw input_error("--pool-size must hold at least one parent's children (2 n = " + std::to_string(2 * n) + ")");
}

}  // namespace

loop_kind choose_loop(loop_choice choice, bool host_loop_options, const gpu_policy& policy) {
  const bool device =
      choice == loop_choice::device || (choice == loop_choice::automatic && !asks_host_loop(host_loop_options, policy));
  return device ? loop_kind::device : loop_kind::host;
}

device_selection parse_devices(const std::string& spec) {
  device_selection out;
  if (spec.empty()) return out;  // as if not given (--device)
  if (spec == "all") {
    out.all = true;
    return out;
  }
  std::size_t at = 0;
  while (at <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, comma - at);
    int d = -1;
    std::size_t used = 0;
    try {
      d = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || d < 0)
      throw input_error("--devices " + spec +
                        ": expected device ordinals separated by commas (e.g. 0,1) "
                        "or 'all', found '" +
                        item + "'");
    out.ordinals.push_back(d);
    at = comma + 1;
  }
  return out;
}

std::string to_string(const device_selection& devices) {
  if (devices.all) return "all";
  std::string s;
  for (int d : devices.ordinals) {
    if (!s.empty()) s += ',';  // appended piece by piece: g++ 12's -Wrestrict misfires on "..." + std::string
    s += std::to_string(d);
  }
  return s;
}

std::vector<int> resolve_devices(const device_selection& devices, int device_count) {
  std::vector<int> out;
  if (devices.all) {
    for (int d = 0; d < device_count; ++d) out.push_back(d);
    return out;
  }
  for (int d : devices.ordinals) {
    if (d >= device_count)
      throw input_error("--devices " + to_string(devices) + ": there is no CUDA device " + std::to_string(d) +
                        " (this machine has " + std::to_string(device_count) + ")");
    out.push_back(d);
  }
  return out;
}

void check_device_loop(const gpu_policy& policy, int n) {
  if (!is_plain(policy.strategy.kind))
    throw input_error("--gpu-loop device runs the plain bounding kernel: drop --gpu-strategy " +
                      std::string(to_string(policy.strategy.kind)) + " (it needs --gpu-loop host)");
  if (policy.sort == pool_sort::host)
    throw input_error("--gpu-loop device sorts on the device or not at all: --sort device or none");
  check_pool(policy.pool_size ? policy.pool_size : policy.loop.default_pool, n);
  const std::vector<int> devices = policy.devices.empty() ? std::vector<int>{policy.device} : policy.devices;
  const int count = device_count();
  for (int d : devices)
    if (d < 0 || d >= count)
      throw input_error("--devices: there is no CUDA device " + std::to_string(d) + " (this machine has " +
                        std::to_string(count) + ")");
}

plan make_plan(const gpu_policy& policy, const plan_request& request, const solve_options& opt, int n) {
  if (policy.compact_times == compact_mode::on && !uses_plain_kernel(policy.strategy.kind))
    throw input_error("--gpu-strategy " + std::string(to_string(policy.strategy.kind)) +
                      " is not available with --compact-times (plain and remap are)");
  if (policy.pool_size != 0) check_pool(policy.pool_size, n);
  plan p;
  p.policy = policy;
  p.loop = choose_loop(request.loop, request.host_loop_options, policy);
  const bool device_loop = p.loop == loop_kind::device;
  if (!device_loop && (opt.on_checkpoint || opt.resume))
    throw input_error("--checkpoint and --resume need the device loop (--gpu-loop device); the host loop" +
                      std::string(request.loop == loop_choice::host ? "" : ", chosen by a host-loop option,") +
                      " cannot save its state");
  if (!device_loop && policy.memory_cap)
    throw input_error("--gpu-memory caps the device loop's memory: the host loop (--gpu-loop host" +
                      std::string(request.loop == loop_choice::host ? "" : ", chosen by a host-loop option") +
                      ") does not take it");
  if (!device_loop && policy.spill_cap)
    throw input_error("--spill-memory caps the device loop's spill to host memory: the host loop (--gpu-loop host" +
                      std::string(request.loop == loop_choice::host ? "" : ", chosen by a host-loop option") +
                      ") does not spill");
  if (request.devices.given()) {
    p.policy.devices = resolve_devices(request.devices, device_count());
    if (p.policy.devices.size() > 64) throw input_error("--devices: at most 64 engines");
    if (!device_loop && p.policy.devices.size() > 1)
      throw input_error("--devices with more than one device needs the device loop (--gpu-loop device)");
    if (!p.policy.devices.empty()) p.policy.device = p.policy.devices.front();
  }
  if (device_loop) {
    if (policy.select != pool_selection::hybrid && policy.select != pool_selection::depth_first)
      throw input_error("--gpu-loop device searches depth-first: --gpu-selection " +
                        std::string(to_string(policy.select)) + " needs --gpu-loop host");
    check_device_loop(p.policy, n);
  }
  return p;
}

solve_result solve_planned(const bound_data& data, const solve_options& opt, const plan& p, const incumbent& start) {
  if (p.loop == loop_kind::device) return run_device_loop(data, opt, p.policy, start);
  return solve(data, opt, p.policy, start);
}

}  // namespace pfsp::gpu
