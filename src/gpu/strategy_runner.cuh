// Launch side of the bounding strategies (strategy.hpp): the bounder hands a pool to a
// strategy_runner instead of launching the one-thread-per-child kernel. One runner per bounder,
// built once (kernel chosen, shared memory limit raised, persistent grid sized by occupancy) with
// per-slot scratch (task counter, flags, compaction buffers). The implementation is a template
// over the size class (strategy_kernels.cuh), instantiated once per size class in
// kernels_strategy_{small,medium,large}.cu so they compile in parallel.
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
};

class strategy_runner {
 public:
  virtual ~strategy_runner() = default;
  // Bounds every child of `pool` (order[t] or t, results at natural indices) on `stream`, with
  // the slot's scratch; `threads_per_block` is used by the kernels that are not persistent.
  virtual void launch(int slot, const pool_view& pool, int threads_per_block, cudaStream_t stream) = 0;
  // "persistent grid 264 x 256", "context switching, 4 warps x 64 contexts, 40.0 KiB per block".
  virtual std::string describe() const = 0;
};

std::unique_ptr<strategy_runner> make_strategy_runner_small(const strategy_setup& s);
std::unique_ptr<strategy_runner> make_strategy_runner_medium(const strategy_setup& s);
std::unique_ptr<strategy_runner> make_strategy_runner_large(const strategy_setup& s);

// size_class_id as in bound_kernels.cuh: 0 small, 1 medium, 2 large. Null for the strategies
// that run the plain kernel (plain, remap).
inline std::unique_ptr<strategy_runner> make_strategy_runner(const strategy_setup& s, int size_class_id) {
  if (uses_plain_kernel(s.params.kind)) return nullptr;
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
