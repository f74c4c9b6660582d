#include "gpu/policy.hpp"

namespace pfsp::gpu {

std::string_view to_string(kernel_variant v) {
  switch (v) {
    case kernel_variant::plain:
      return "plain";
    case kernel_variant::refactored:
      return "refactored";
    case kernel_variant::branchless:
      return "branchless";
  }
  return "?";
}
std::string_view to_string(compact_mode v) {
  switch (v) {
    case compact_mode::off:
      return "off";
    case compact_mode::on:
      return "on";
    case compact_mode::automatic:
      return "auto";
  }
  return "?";
}

std::string_view to_string(memory_placement v) {
  switch (v) {
    case memory_placement::shared:
      return "shared";
    case memory_placement::global:
      return "global";
  }
  return "?";
}
std::string_view to_string(loop_bound v) {
  switch (v) {
    case loop_bound::parts:
      return "parts";
    case loop_bound::recompute:
      return "recompute";
  }
  return "?";
}
std::string_view to_string(pool_sort v) {
  switch (v) {
    case pool_sort::none:
      return "none";
    case pool_sort::host:
      return "host";
    case pool_sort::device:
      return "device";
  }
  return "?";
}
std::string_view to_string(pool_selection v) {
  switch (v) {
    case pool_selection::hybrid:
      return "hybrid";
    case pool_selection::depth_first:
      return "depth-first";
    case pool_selection::best_first:
      return "best-first";
    case pool_selection::breadth_first:
      return "breadth-first";
  }
  return "?";
}

}  // namespace pfsp::gpu
