// The GPU plan: which loop runs (host or device), on which devices, with which policy, decided
// and checked here once, before any device is touched. The CLI (app/options.cpp, app/gpu_cli.cpp)
// parses its options straight into a gpu_policy and a plan_request; gpu::solve_planned runs the
// plan. Plain C++.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "base/enum_names.hpp"
#include "bound/bound_data.hpp"
#include "gpu/policy.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp::gpu {

// --gpu-loop: host (the papers' model: solver.hpp), device (the whole loop on the GPU:
// resident.hpp), or automatic: device unless an option only the host loop has is given.
enum class loop_choice : int { automatic = 0, host = 1, device = 2 };
constexpr auto enum_names(loop_choice) {
  using e = enum_name<loop_choice>;
  return std::array{e{loop_choice::automatic, "auto"}, e{loop_choice::host, "host"}, e{loop_choice::device, "device"}};
}

enum class loop_kind : int { host = 0, device = 1 };

// --devices: device ordinals ("0,1,1": one loop engine each, several may share a device) or
// every device ("all"); neither: not given (policy.device). Checked against the machine's devices
// by make_plan.
struct device_selection {
  bool all = false;
  std::vector<int> ordinals;
  bool given() const { return all || !ordinals.empty(); }
  bool operator==(const device_selection&) const = default;
};

// --devices' text ("0,1,1" or "all"; "" is not given) as a selection; throws input_error
// ("--devices SPEC: expected device ordinals separated by commas ..."). to_string gives it back.
device_selection parse_devices(const std::string& spec);
std::string to_string(const device_selection& devices);

// The ordinals of a selection on a machine of device_count devices; throws input_error naming one
// it lacks.
std::vector<int> resolve_devices(const device_selection& devices, int device_count);

// What the plan needs besides the policy: the user's choices that the policy cannot hold.
struct plan_request {
  loop_choice loop = loop_choice::automatic;
  bool host_loop_options = false;  // --gpu-selection, --streams, --hybrid-max or --hybrid-min given
  device_selection devices;        // --devices; not given: policy.device
};

struct plan {
  loop_kind loop = loop_kind::device;
  gpu_policy policy;  // checked; devices resolved (device = devices.front() when --devices is given)
};

// The loop these options run: device for loop_choice::device, and for automatic unless a
// host-loop option, a strategy other than plain or --sort host was given.
loop_kind choose_loop(loop_choice choice, bool host_loop_options, const gpu_policy& policy);

// Decides and checks the plan for an instance of n jobs; throws input_error naming the option.
// Asks the driver for the device count only when --devices is given.
plan make_plan(const gpu_policy& policy, const plan_request& request, const solve_options& opt, int n);

// The device loop's own conditions (plain strategy, no host sort, a pool that holds a parent's
// children, existing devices); make_plan checks them for the device loop, and solve_resident for
// callers that come without a plan.
void check_device_loop(const gpu_policy& policy, int n);

// Runs the plan: gpu::solve (host loop) or the device loop.
solve_result solve_planned(const bound_data& data, const solve_options& opt, const plan& p, const incumbent& start);

}  // namespace pfsp::gpu
