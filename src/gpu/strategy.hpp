// Divergence strategies of the bounding step (`--gpu-strategy`, issue 4 "applied to pfsp"): which
// kernel(s) bound a pool of children and how threads map to children. Plain C++ (no CUDA
// header): the CLI validates the options and the CPU tests check the host-side logic in builds
// without nvcc. The kernels are in strategy_kernels.cuh, the launch code in strategy_runner.cuh,
// the design and the expected effects in docs/gpu_strategies.md ("Applied to pfsp").
//
// Every strategy returns exactly the plain kernel's bounds (the same child_bound / pair order /
// early-exit rule), so every strategy proves the same optima.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.hpp"
#include "divergence/context_switch.hpp"
#include "divergence/task_pool.hpp"

namespace pfsp::gpu {

//   plain:          one thread per child (bound_kernels.cuh), unchanged.
//   persistent:     Frey 4 (termination divergence): persistent threads over the children with a
//                   task pool; one task iteration = one machine pair of LB2, the early exit
//                   lb >= ub ends the task, so a lane that finishes fetches the next child.
//   context_switch: Frey 3 (branch divergence): the LB2 pair loop is the managed branch; contexts
//                   {child, LB1} of children that need it are swapped in so that warps run it full.
//   split:          Zhang's data layout transformation applied to the LB1->LB2 chain: kernel 1
//                   computes LB1 for all children and flags those that need the pair loop,
//                   cub::DeviceSelect::Flagged compacts them, kernel 2 runs the pair loop on them.
//   remap:          Zhang's LAM: the host remaps the children by cost class (R classes of the
//                   child's key) and the plain kernel reads the mapping as its `order` array.
enum class gpu_strategy : int { plain = 0, persistent = 1, context_switch = 2, split = 3, remap = 4 };
constexpr auto enum_names(gpu_strategy) {
  using e = enum_name<gpu_strategy>;
  return std::array{e{gpu_strategy::plain, "plain"}, e{gpu_strategy::persistent, "persistent"},
                    e{gpu_strategy::context_switch, "context-switch"}, e{gpu_strategy::split, "split"},
                    e{gpu_strategy::remap, "remap"}};
}
using ::pfsp::to_string;  // the names of this layer's enums (base/enum_names.hpp)

// The two questions the rest of gpu/ asks about a strategy, answered here only.
// Plain: the one-thread-per-child kernel as is; the only strategy the device loop runs, and the
// one --gpu-loop auto keeps on the device loop.
constexpr bool is_plain(gpu_strategy k) { return k == gpu_strategy::plain; }
// Bounds with the plain kernel (bound_kernels.cuh): plain, and remap, which only hands that kernel
// an order. These read compact tables and run every kernel variant; the others need their own
// kernels (strategy_runner.cuh).
constexpr bool uses_plain_kernel(gpu_strategy k) { return k == gpu_strategy::plain || k == gpu_strategy::remap; }

struct strategy_params {
  gpu_strategy kind = gpu_strategy::plain;
  // persistent (divergence::task_pool_params): pool kind, fetch control, chunk, idle threshold k,
  // check interval (LB2 machine pairs between two fetch votes).
  divergence::task_pool_params pool{divergence::pool_kind::hybrid, divergence::fetch_control::ballot, 32, 4, 1};
  // context_switch: detached contexts per warp (multiple of 32) and vote interval. One task has
  // one iteration, so default_path stays false (deferred votes only delay the pair loop).
  divergence::context_switch_params contexts{64, 1, false};
  // remap: LAM value classes R (Zhang 4.2: 10) and Zhang 5.6's efficiency control.
  std::uint32_t remap_classes = 10;
  bool remap_control = true;
};

// "persistent (hybrid ballot(4) chunk 32 interval 1)", "remap (LAM, R = 10, efficiency control)".
std::string describe(const strategy_params& p);

// The names --gpu-strategy accepts, in the order of the enum.
const std::vector<std::string>& strategy_names();

// --gpu-strategy NAME --strategy-params "key=value,key=value". Keys (defaults in
// strategy_params):
//   persistent:     pool=global|local|hybrid|persistent  fetch=any|all|ballot|atomic  k=1..32
//                   chunk=0..65536 (>= 1 for global and local)  interval=1..64
//                   (pool=persistent takes fetch=all, its only control; it is the default there)
//   context-switch: contexts=32..1024 (multiple of 32)  vote=1..64
//   remap:          classes=2..1024  control=on|off
// Throws pfsp::input_error naming the option, the key and what was expected.
strategy_params parse_strategy(std::string_view name, std::string_view params);

// --- remap: host side of Zhang's LAM on a pool (bounder.cu calls it; CPU tests check it) ------

// The class of every child of a pool, in natural order (pool_layout.hpp), from the parents'
// packed limits and child offsets, as the host counting sort computes its keys: the child's
// child_key binned into equal-width classes over the pool's [min, max] key (Zhang's
// createValRngs). In bidirectional pools the direction is a class bit of its own (class =
// 2 x bucket + backward, R / 2 buckets of the (limit1, limit2) part of the key). Children with
// equal keys take the same loop trip counts in node_parts and the same direction branch in
// child_bound; the exact sort (--sort) is the limit of many classes. O(parents + children).
void remap_classes_of(int n, int directions, bool backward_only, const std::uint32_t* limits,
                      const std::uint32_t* offsets, std::size_t parents, std::uint32_t classes,
                      std::vector<std::uint32_t>& cls);

// Share of the pool's full warp segments (32 children in natural order) that hold more than one
// class: what LAM can fix. Near 0 (pools of few parents with many children each, near the root)
// remapping cannot pay and is skipped before planning (the cheap half of Zhang 5.6). O(children).
double remap_mixed_share(std::span<const std::uint32_t> cls);
inline constexpr double kRemapMinMixedShare = 0.05;

}  // namespace pfsp::gpu
