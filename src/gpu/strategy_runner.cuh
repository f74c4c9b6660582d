// Launch side of the bounding strategies (strategy.hpp): every --gpu-strategy is a
// strategy_runner, the one interface through which the host loop's bounder bounds a pool. plain
// (the one-thread-per-child kernel of device_tables) and remap (the same kernel over Zhang's LAM
// order, planned on the host) are in strategy_plain.cu; persistent, context-switch and split are
// a template over the size class (strategy_kernels.cuh), instantiated once per size class in
// kernels_strategy_{small,medium,large}.cu so they compile in parallel. One runner per bounder,
// built once (kernel chosen, shared memory limit raised, persistent grid sized by occupancy)
// with per-slot scratch (task counter, flags, compaction buffers, remap probes).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

#include "bound/lb2.hpp"
#include "gpu/bound_kernels.cuh"
#include "gpu/bounder.hpp"
#include "gpu/strategy.hpp"

namespace pfsp::gpu {

struct strategy_setup {
  strategy_params params;
  bound_kind kind = bound_kind::lb2;
  tables_view tables;
  bool shared = false;          // tables staged in shared memory by every block
  std::size_t table_bytes = 0;  // their size (0 with global tables)
  std::size_t max_children = 0;
  int slots = 1;
  device_info device;
  kernel_pair plain;  // the plain kernel for the tables' layout and placement (device_tables)
};

// A pool as the host holds it before the copy: the parents' packed limits and child offsets
// (natural order, pool_layout.hpp).
struct host_pool {
  const std::uint32_t* limits = nullptr;
  const std::uint32_t* offsets = nullptr;
  std::size_t parents = 0;
  std::size_t children = 0;
  int n = 0;
  int directions = 2;
  bool backward_only = false;
};

class strategy_runner {
 public:
  virtual ~strategy_runner() = default;
  // Whether the strategy orders the children itself (remap), in place of --sort.
  virtual bool replaces_sort() const { return false; }
  // On the host, before the pool is copied: writes an order of its children (natural indices,
  // pool.children entries) into `order` and returns true, or returns false (natural order, or
  // --sort's). Only remap orders.
  virtual bool plan_order(int /*slot*/, const host_pool& /*pool*/, std::uint32_t* /*order*/) { return false; }
  // Bounds every child of `pool` (order[t] or t, results at natural indices) on `stream`, with
  // the slot's scratch; `threads_per_block` is used by the kernels that are not persistent.
  virtual void launch(int slot, const pool_view& pool, int threads_per_block, cudaStream_t stream) = 0;
  // The slot's pool was waited for: its kernel time (remap's efficiency control measures it).
  virtual void pool_done(int /*slot*/, double /*kernel_seconds*/, std::size_t /*children*/) {}
  // "persistent grid 264 x 256", "context switching, 4 warps x 64 contexts, 40.0 KiB per block",
  // "12 pools remapped, 3 predicted pure, control on"; empty for plain.
  virtual std::string describe() const = 0;
};

std::unique_ptr<strategy_runner> make_plain_runner(const strategy_setup& s);
std::unique_ptr<strategy_runner> make_remap_runner(const strategy_setup& s);
std::unique_ptr<strategy_runner> make_strategy_runner_small(const strategy_setup& s);
std::unique_ptr<strategy_runner> make_strategy_runner_medium(const strategy_setup& s);
std::unique_ptr<strategy_runner> make_strategy_runner_large(const strategy_setup& s);

// The runner of s.params.kind; size_class_id as in bound_kernels.cuh: 0 small, 1 medium, 2 large.
inline std::unique_ptr<strategy_runner> make_strategy_runner(const strategy_setup& s, int size_class_id) {
  if (s.params.kind == gpu_strategy::plain) return make_plain_runner(s);
  if (s.params.kind == gpu_strategy::remap) return make_remap_runner(s);
  switch (size_class_id) {
    case 0:
      return make_strategy_runner_small(s);
    case 1:
      return make_strategy_runner_medium(s);
    default:
      return make_strategy_runner_large(s);
  }
}

}  // namespace pfsp::gpu
