// The GPU bounding engine (the papers' parallel-bounding model): the host fills a pool of
// parents, the GPU expands them into children, optionally sorts the children (thread-data
// reordering), bounds one child per thread and copies the bounds back; the host prunes.
// Plain C++ interface (pimpl): g++-compiled code (the solver, the CLI, the tests) uses it
// without any CUDA header. Each slot is a stream with its own pinned and device buffers, so the
// host can fill slot k+1 while the GPU works on slot k.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "gpu/policy.hpp"
#include "search/types.hpp"

namespace pfsp::gpu {

struct device_info {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
  std::size_t shared_per_block_optin = 0;  // bytes a block may use after cudaFuncSetAttribute
  std::size_t shared_per_sm = 0;
  std::size_t global_bytes = 0;
  int clock_khz = 0;
};

// Number of CUDA devices; 0 when there is no driver or no device (never throws).
int device_count() noexcept;
device_info query_device(int ordinal);

// Device-side time per phase, summed over launches (CUDA events), in seconds.
struct device_times {
  double h2d = 0;
  double expand = 0;  // descriptors (and keys) of the children
  double sort = 0;    // cub::DeviceRadixSort (device sort only)
  double kernel = 0;  // the bounding kernel
  double d2h = 0;
  std::uint64_t launches = 0;
};

class bounder {
 public:
  // max_children: the largest pool that will be submitted (sizes every buffer).
  bounder(const bound_data& data, bound_kind kind, branching rule, const gpu_policy& policy, std::size_t max_children);
  ~bounder();
  bounder(const bounder&) = delete;
  bounder& operator=(const bounder&) = delete;

  int n() const;
  int job_bytes() const;   // 1: permutations in uint8 (n <= 256), 2: uint16
  int slots() const;       // policy.streams
  int directions() const;  // 2 for min-branch and min-min, else 1
  bool backward_only() const;
  std::size_t max_children() const;
  std::size_t max_parents() const;
  bool tables_in_shared() const;
  // Compact tables (policy.compact_times and every time below 256): 8-bit times, 8/16-bit
  // Johnson orders, 16-bit lags (src/bound/compact_tables.hpp); else int tables.
  bool tables_compact() const;
  std::size_t shared_bytes() const;  // dynamic shared memory per block (0 with global tables)
  // Block size of highest occupancy for the bounding kernel with its shared memory
  // (cudaOccupancyMaxPotentialBlockSize): with 80 KiB of tables a block, 128 threads leave an SM
  // 2 blocks x 4 warps.
  int occupancy_threads_per_block() const;
  const device_info& device() const;
  std::string describe() const;  // "lb2 branchless kernel, tables in shared memory (33.5 KiB), ..."

  // Pinned host staging of a slot: parents' permutations (max_parents x n jobs of job_bytes()
  // each) and pack_limits(limit1, limit2). Fill, then submit.
  void* perms(int slot);
  std::uint32_t* limits(int slot);

  // Children of the first `parents` parents: enumerate, sort (policy), bound against `ub`;
  // asynchronous on the slot's stream. Returns the number of children (<= max_children).
  std::size_t submit_children(int slot, std::size_t parents, int ub, int threads_per_block);
  // node_bound of each of the first `nodes` parents (bounds[p]); asynchronous.
  void submit_nodes(int slot, std::size_t nodes, int ub, int threads_per_block);
  // Waits for the slot; returns its bounds in natural order (pool_layout.hpp): parent p's
  // children are at offsets(slot)[p] .. offsets(slot)[p+1].
  const int* wait(int slot);
  const std::uint32_t* offsets(int slot) const;
  std::size_t children(int slot) const;

  // The thread-to-child order of the slot's last pool (empty without sorting); for tests.
  std::vector<std::uint32_t> order(int slot);

  device_times times() const;
  double host_sort_seconds() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace pfsp::gpu
