// Tuning numbers and strategy switches of the GPU backend: a value struct (CUB's policy
// structs), overridden from the CLI. Every combination evaluates the same pool and returns the
// same bounds; only data movement, thread mapping and host scheduling differ.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.hpp"
#include "gpu/join_rule.hpp"
#include "gpu/strategy.hpp"

namespace pfsp::gpu {

class engine_cache;  // resident.hpp: device-loop engines kept between solves

// How a kernel thread evaluates its child (CCPE section 5.3). All three call the same
// node_parts / child_bound; they differ in the code around them.
//   plain:      the CPU expander's code as is: scheduled flags in a byte array (local memory).
//   refactored: the papers' arithmetic rewrite: `if` coefficients from __cosf (equation 1) and
//               min(1, __expf(x - y - 1)) (equation 2), checked once per device.
//   branchless: bit masks in registers, comparisons folded into shifts and selects.
enum class kernel_variant : int { plain = 0, refactored = 1, branchless = 2 };
constexpr auto enum_names(kernel_variant) {
  using e = enum_name<kernel_variant>;
  return std::array{e{kernel_variant::plain, "plain"}, e{kernel_variant::refactored, "refactored"},
                    e{kernel_variant::branchless, "branchless"}};
}

// --compact-times: off (int tables), on (compact tables whenever every time is below 256), or
// automatic: compact only where it moves the tables into shared memory, i.e. the placement is
// shared, the int tables exceed the device's shared memory per block and the compact ones fit
// (200x20: 1.99x kernel, 1.63x whole-solver bounds/s; where the int tables already fit, compact
// measured 0.94-1.16x: docs/experiments.md), and the strategy is plain or remap (the others
// read int tables only).
enum class compact_mode : int { off = 0, on = 1, automatic = 2 };
constexpr auto enum_names(compact_mode) {
  using e = enum_name<compact_mode>;
  return std::array{e{compact_mode::automatic, "auto"}, e{compact_mode::on, "on"}, e{compact_mode::off, "off"}};
}

// --lb2-table: the LB1->LB2 chain's LB2 pass on the device loop (--loop-bound parts), as the
// pairs' walks, a thread a listed child (off, the default), or from each parent's table in shared
// memory, a warp a parent (on; bound/lb2_table.hpp, decision 013 option I). The same bounds
// either way. Measured slower at m = 20 (0.65-0.86x on 20x20 to 200x20, one H100), faster on one
// 200x10 proof (1.24x): off by default.
enum class lb2_table_mode : int { off = 0, on = 1 };
constexpr auto enum_names(lb2_table_mode) {
  using e = enum_name<lb2_table_mode>;
  return std::array{e{lb2_table_mode::off, "off"}, e{lb2_table_mode::on, "on"}};
}

// --lb1-fused: the device loop's LB1 pass (--bound lb1, and the chain's first pass; --loop-bound
// parts, 5, 10 or 20 machines, tables in shared memory) in the parents kernel, one thread a popped
// parent bounding its children from its parts in registers (on; loop_bound.cuh, parts_lb1_kernel,
// decision 013 option Q), or a thread a child reading them back (off). The same bounds. auto: on
// at 20 machines up to 50 jobs (H200: LB1 1.06x and the chain 1.02x on ta051-ta060, ta021-ta030
// from the optimum 1.10-1.16x), off elsewhere (100x20: LB1 0.89x, the chain 0.95x; 200x20: the chain
// 0.86x; a thread's children in sequence, 2 n of them; 5 and 10 machines not measured apart from noise).
enum class lb1_fused_mode : int { auto_ = 0, off = 1, on = 2 };
constexpr auto enum_names(lb1_fused_mode) {
  using e = enum_name<lb1_fused_mode>;
  return std::array{e{lb1_fused_mode::auto_, "auto"}, e{lb1_fused_mode::off, "off"}, e{lb1_fused_mode::on, "on"}};
}

// --lb2-pack: the LB1->LB2 chain's LB2 pass on the device loop (--loop-bound parts, up to 64
// jobs) two listed children a thread, their walks in the 16-bit halves of 32-bit words (on;
// loop_bound.cuh, lb2_pack_kernel, decision 013 options L, N, O), or a thread a child (off); auto:
// on from 33 jobs or 20 machines (with options N and O the 20x20 proofs from the optimum 1.21x
// faster than off; before them auto was on from 33 jobs only; 20x5 and 20x10 not measured since).
// The same bounds, the same tree: a child whose values could pass 65535 is bounded in 32 bits.
enum class lb2_pack_mode : int { auto_ = 0, off = 1, on = 2 };
constexpr auto enum_names(lb2_pack_mode) {
  using e = enum_name<lb2_pack_mode>;
  return std::array{e{lb2_pack_mode::auto_, "auto"}, e{lb2_pack_mode::off, "off"}, e{lb2_pack_mode::on, "on"}};
}

// Where the per-instance tables live during a launch (CCPE section 5.4, Melab et al.).
//   shared: processing times, machine pairs, Johnson orders and lags copied to shared memory
//           by every block (falls back to global when they do not fit).
//   global: read through L1 from global memory.
enum class memory_placement : int { shared = 0, global = 1 };
constexpr auto enum_names(memory_placement) {
  using e = enum_name<memory_placement>;
  return std::array{e{memory_placement::shared, "shared"}, e{memory_placement::global, "global"}};
}

// Thread-data reordering (CCPE 5.2): children sorted by (limit1, limit2, direction) so that a
// warp's threads follow the same control flow. none | on the host (counting sort) | on the
// device (cub::DeviceRadixSort). Both sorts are stable and give the same order.
enum class pool_sort : int { none = 0, host = 1, device = 2 };
constexpr auto enum_names(pool_sort) {
  using e = enum_name<pool_sort>;
  return std::array{e{pool_sort::none, "none"}, e{pool_sort::host, "host"}, e{pool_sort::device, "device"}};
}

// Which parents go into the next pool.
//   hybrid:        best-first until `hybrid_max` open nodes, then depth-first down to
//                  `hybrid_min` (CCPE 5.1).
//   depth_first:   the deepest open nodes (smallest bound first within a depth).
//   best_first:    the smallest bounds (deepest first among equal bounds).
//   breadth_first: the shallowest open nodes, one level after another (PPAM section 4).
enum class pool_selection : int { hybrid = 0, depth_first = 1, best_first = 2, breadth_first = 3 };
constexpr auto enum_names(pool_selection) {
  using e = enum_name<pool_selection>;
  return std::array{e{pool_selection::hybrid, "hybrid"}, e{pool_selection::depth_first, "depth-first"},
                    e{pool_selection::best_first, "best-first"}, e{pool_selection::breadth_first, "breadth-first"}};
}

// How the device loop bounds a child (loop_engine.cuh, loop_bound.cuh).
//   parts:     its parent's front/back/remain computed once per parent and read by each child's
//              thread (O(m) a child for LB1); lb1-lb2 runs as a chain: LB1 on every child, LB2
//              on the compacted survivors.
//   recompute: the papers' kernel: every child's thread rebuilds its parent's parts (O(n m)).
enum class loop_bound : int { parts = 0, recompute = 1 };
constexpr auto enum_names(loop_bound) {
  using e = enum_name<loop_bound>;
  return std::array{e{loop_bound::parts, "parts"}, e{loop_bound::recompute, "recompute"}};
}

// The device loop's tuning numbers (loop_engine.cuh, coordinator.cu; constants in resident.cu
// until issue 12). Defaults are the measured ones (H100, ta021/ta022/ta029/ta030,
// docs/gpu_backend.md).
struct loop_tuning {
  // Threads a block of the loop's own kernels (count, gather, decide, clear, push). A compile-time
  // constant: it is cub::BlockReduce's block size in decide_warp_kernel.
  static constexpr unsigned block = 128;
  // Threads a block of the open-node statistics kernel (its BlockReduce's size, likewise).
  static constexpr unsigned stats_block = 256;
  // Children an iteration when --pool-size is 0 (pool_for). default_pool: 2^22 (2026-11-24, 20x20
  // LB2 proofs: a few waves of blocks amortise the bounding kernel's tail). large_pool, up to
  // large_pool_max_jobs jobs at large_pool_min_machines machines or more: 2^24 (decision 013,
  // option V, one H200: at 50x20 the 4 M cap set the pool and an iteration's fixed part was paid
  // per 4 M children; 16 M ran the chain 1.32x and LB1 1.23x, ta021-ta030 from the optimum 1.11x).
  // Not larger everywhere: from scratch 100x10 proofs took 1.44x longer at 16 M, and at 200x10 the
  // broader search filled the stack to its cap (345 M nodes) and stalled spilling it to the host.
  std::size_t default_pool = std::size_t{1} << 22;
  std::size_t large_pool = std::size_t{1} << 24;
  int large_pool_max_jobs = 50;
  int large_pool_min_machines = 20;
  std::size_t pool_for(int jobs, int machines) const {
    return jobs <= large_pool_max_jobs && machines >= large_pool_min_machines ? large_pool : default_pool;
  }
  // The bounding kernel's first block-size candidate when --threads-per-block is 0 (the best
  // measured where the tables leave room for several blocks an SM: 20x20); the second is the
  // block size of highest occupancy for the tables' shared memory.
  int first_block = 256;
  // Block-size tuning: full-pool batches each candidate bounds before the fastest is kept.
  int tune_batches = 3;
  // Iterations a graph launch batch runs between two syncs: doubled while a batch takes less than
  // batch_grow_s, up to max_batch, halved above batch_shrink_s (syncs every 2-10 ms).
  double batch_grow_s = 0.002;
  double batch_shrink_s = 0.010;
  int max_batch = 1024;
  // Share of a device's free memory the node stacks may grow to (split among the engines on it)
  // when --gpu-memory does not cap it.
  double stack_memory_share = 0.5;
  // The stack's first size: what this many full pools can push (plus the reserve for
  // one-parent iterations), at least initial_stack_nodes; it doubles on demand up to the cap.
  int initial_stack_pools = 2;
  std::size_t initial_stack_nodes = std::size_t{1} << 16;
  // A batch of iterations runs only where the stack has room for all it could push (the order of
  // search is then the unbounded stack's); the stack grows for that by this much at most beyond
  // its nodes, and longer batches are cut to the room.
  std::size_t batch_room_bytes = std::size_t{512} << 20;
  // The stack's most nodes (0: none but the memory's; tests force growth and spills with it).
  std::size_t max_stack_nodes = 0;
  // Share of the host's physical memory the engines may spill their stacks' bottom nodes to when
  // the device's stacks are at their cap (split among the engines); past it the pools shrink to
  // what fits (the order of search changes).
  double host_spill_share = 0.25;
  // Memory in proportion to progress: under a time limit a stack grows only to this many times
  // the nodes its engine can still pop before the limit (its pop rate so far times the seconds
  // left), and never below its first size; past that the pools shrink to what fits (the order of
  // search changes, not the tree's exactness). On a shop where the bound prunes nothing (800x60)
  // the stack otherwise filled 70 GiB and spilled 27 GiB to the host in 20 s.
  double useful_stack_margin = 4.0;
  // The pop rate is counted over at least this long: the first iterations pop few parents fast
  // (VFR500_60: tens of thousands a second in the first milliseconds, eight thousand over 20 s),
  // and a rate taken from them let the stack grow to the memory's cap.
  double useful_rate_window_s = 1.0;
  // The GPU where it pays: after hopeless_after_s of search under a time limit, a tree whose closed
  // share, projected to the limit at its rate so far, stays below hopeless_share cannot be proven
  // in time; the loop then waits between its batches while the incumbent engine's GPU beam runs a
  // pass on its device (gpu_sharing), so that the pass has the multiprocessors.
  double hopeless_after_s = 2.0;
  double hopeless_share = 1e-3;
  // Until that judgment (under a time limit, with useful_stack_margin > 0) a stack grows to this
  // share of its memory cap at most, without spilling: at 500x60 and 800x60 (20 s) the default
  // pools filled 70 GiB of the GPU and spilled 22-26 GiB to the host with no judgment made, so a
  // cap that waited for it kept nothing (c22be52's rule, one H200, 7fcc872). Measured (one H100,
  // 7dfa11d, VFR800_60_2, 20 s): GPU memory at most 9.2 GB, host RSS 224 MB, no spill.
  double unjudged_stack_share = 0.125;
  // Bytes moved to or from the host at a time (a stop is honoured between two pieces; 1 GiB
  // pieces ended 500x20 searches 0.8 s past --time-limit 30, pageable copies into new pages).
  std::size_t spill_chunk_bytes = std::size_t{128} << 20;
  // One iteration longer than this (a batch of one): the pool's child cap is cut in proportion,
  // so that the host syncs (limits, incumbents) at least every few tenths of a second; it grows
  // back below a quarter of it. Changes the order of search only where an iteration takes this
  // long (500x20 at the default pool).
  double iteration_max_s = 0.1;
  // The per-parent passes (count, scans, gather, decide) run over pool / (parents_share x
  // directions) parent slots whatever the pool holds: a quarter of the most parents a pool could
  // take keeps them short; a pool of deep parents is then cut at that many.
  int parents_share = 4;
  // Grid caps: the parts path's parent kernel (blocks an SM) and the open-node statistics kernel
  // (blocks; grid-stride).
  int parents_grid_per_sm = 16;
  unsigned stats_grid_max = 4096;
  // A batch counts for the block-size tuning when it bounded at least this share of
  // batch x pool children (the ramp-up from the root does not).
  double tune_full_share = 0.5;
  // Smallest stack an engine halves for an idle one.
  std::uint32_t donate_min_nodes = 64;
  // When the engines after the first join the search (several --devices; join_rule.hpp).
  join_rule join{};
  // The coordinating thread's wake-up period (limits, progress, checkpoints).
  int poll_ms = 2;
};

// The host loop's run-time tuner (solver.cpp, CCPE 6.3): the pools and block sizes it tries
// (with the block size of highest occupancy), smallest pools first, and how long.
struct host_tuning {
  std::array<std::size_t, 4> pools{4096, 16384, 65536, 262144};  // CCPE Table II's range
  std::array<int, 2> blocks{128, 256};
  int batches = 3;      // measured pools per candidate, after one to settle the pipeline
  int max_misses = 24;  // pools too small to count (the open nodes could not fill them) before giving up
};

// The incumbent engine's GPU beam and the device loop on one device (not on the CLI): the app
// counts the beam's passes running (attach_device_beam), the loop yields to them while its tree is
// hopeless (loop_tuning::hopeless_share). Copies of a policy share it.
struct gpu_sharing {
  std::atomic<int> beam_passes{0};
  std::atomic<int> beam_device{-1};
};

struct gpu_policy {
  std::size_t pool_size = 0;  // children bounded per launch (blocks x threads); 0 = auto-tune
  int threads_per_block = 0;  // 0 = auto-tune (128 or 256)
  kernel_variant kernel = kernel_variant::branchless;
  memory_placement memory = memory_placement::shared;
  pool_sort sort = pool_sort::device;
  pool_selection select = pool_selection::hybrid;
  // Compact tables: 8-bit processing times, 8-bit (n <= 256) or 16-bit Johnson orders, 16-bit
  // lags (src/bound/compact_tables.hpp); about 2.6x fewer bytes of shared memory at m = 20. Same
  // bounds. An instance with a time above 255 keeps the int tables (noted in describe()).
  compact_mode compact_times = compact_mode::automatic;
  int streams = 2;                            // 1 = no overlap; 2 = host branches pool k+1 while the GPU bounds pool k
  int host_threads = 1;                       // threads that prune and branch on the host
  std::size_t hybrid_max = 0;                 // open nodes; 0 = 8 x the pool size
  std::size_t hybrid_min = 0;                 // open nodes; 0 = the pool size
  int device = 0;                             // CUDA device ordinal
  std::vector<int> devices;                   // --devices: one loop engine per entry (device loop); empty = {device}
  strategy_params strategy;                   // --gpu-strategy: divergence strategy of the bounding step (strategy.hpp)
  loop_bound bound_step = loop_bound::parts;  // --loop-bound (device loop)
  int lb2_lanes = 1;                          // --lb2-lanes: lanes a child in the chain's LB2 pass (1, 2, 4, 8, 16)
  lb2_table_mode lb2_table = lb2_table_mode::off;    // --lb2-table: the chain's LB2 pass from the parents' tables
  lb2_pack_mode lb2_pack = lb2_pack_mode::auto_;     // --lb2-pack: the chain's LB2 pass two children a thread
  lb1_fused_mode lb1_fused = lb1_fused_mode::auto_;  // --lb1-fused: LB1 in the parents kernel
  std::size_t memory_cap = 0;                        // --gpu-memory: bytes a device-loop engine may take; 0 = auto
  // --spill-memory: bytes of host memory the device loop's engines may spill to, together; unset:
  // loop.host_spill_share of the host's available memory when the search starts (host_spill_budget).
  std::optional<std::size_t> spill_cap;
  host_tuning host;  // the host loop's tuner (not on the CLI)
  loop_tuning loop;  // the device loop's tuning numbers (not on the CLI)
  // Not on the CLI: where the device loop keeps its engines between solves of the same data and
  // options (pfsp-mpi's chunks; resident.hpp). Null: every solve builds and frees its own.
  std::shared_ptr<engine_cache> engines;
  std::shared_ptr<gpu_sharing> sharing = std::make_shared<gpu_sharing>();
};

// Pool sizes the auto-tuner tries (CCPE Table II's range) and the thread counts it pairs them with.
inline constexpr std::size_t kMinPoolSize = 4096;
inline constexpr std::size_t kMaxPoolSize = 262144;

}  // namespace pfsp::gpu
