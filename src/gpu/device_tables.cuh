// The per-instance tables on one device (owner) and what a bounding launch needs of them (view):
// one place builds the blob (int or compact, --compact-times), decides the placement (shared or
// global memory), picks the kernel instantiation and raises its shared-memory limit. The host
// loop's bounder owns one, and so does each of the device loop's engines (loop_engine.cuh), which
// launches its kernels through the view. Owners and views as in RMM / cuco: the owner is RAII on the host, the
// view owns nothing and is passed by value.
#pragma once

#include <cstddef>
#include <string>

#include "base/device_buffer.cuh"
#include "bound/bound_data.hpp"
#include "gpu/bound_kernels.cuh"
#include "gpu/bounder.hpp"
#include "gpu/policy.hpp"

namespace pfsp::gpu {

struct device_tables_view {
  tables_view tables;
  kernel_pair kernels;         // the plain kernel's instantiation for the tables' layout and placement
  std::size_t smem_bytes = 0;  // dynamic shared memory per block of the bounding kernels (0: global)
};

class device_tables {
 public:
  // On the current device (dev); the policy's kernel, memory, compact_times and strategy decide
  // the layout, placement and kernels. --kernel refactored checks its coefficients here.
  device_tables(const bound_data& data, bound_kind kind, const gpu_policy& policy, const device_info& dev);
  device_tables(const device_tables&) = delete;
  device_tables& operator=(const device_tables&) = delete;

  device_tables_view view() const { return {tables_, kernels_, smem_bytes_}; }
  const tables_view& tables() const { return tables_; }
  const kernel_pair& kernels() const { return kernels_; }
  bool shared() const { return shared_; }
  bool compact() const { return compact_; }
  // Why --compact-times was refused by the instance (empty when it was not).
  const std::string& compact_why() const { return compact_why_; }
  std::size_t smem_bytes() const { return smem_bytes_; }
  // Block size of highest occupancy for the children kernel with its shared memory.
  int occupancy_threads_per_block() const { return occupancy_tpb_; }
  // "tables in shared memory (33 KiB per block), compact 8-bit times ..." (the backend string).
  std::string describe() const;

 private:
  tables_view layout(bool narrow, int& total_ints) const;
  bool fits_shared(const tables_view& t) const;
  void build(const bound_data& d);
  kernel_pair select_kernels() const;
  void check_refactoring() const;

  bound_kind kind_;
  gpu_policy policy_;
  device_info dev_;
  int n_ = 0, m_ = 0, npairs_ = 0, jb_ = 1, size_class_ = 0;
  bool shared_ = false;
  bool compact_ = false;     // --compact-times and the instance qualifies
  std::string compact_why_;  // --compact-times refused by the instance: compact_misfit's reason
  std::size_t smem_bytes_ = 0;
  int occupancy_tpb_ = 128;
  device_buffer<int> blob_;
  tables_view tables_;
  kernel_pair kernels_;
};

}  // namespace pfsp::gpu
