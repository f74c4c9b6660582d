#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "base/cuda_check.cuh"
#include "base/error.hpp"
#include "bound/compact_tables.hpp"
#include "gpu/device_tables.cuh"

namespace pfsp::gpu {
namespace {

// Checks the refactored variant's coefficients on every argument it can meet: equation 1 on
// {0, 1}, equation 2 on differences [lo, hi]. bad[0] counts mismatches.
__global__ void refactor_check_kernel(int lo, int hi, int* bad) {
  const int d = lo + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (d > hi) return;
  const int e2 = eq2_greater(d, 0);
  if (e2 != (d > 0 ? 1 : 0)) atomicAdd(bad, 1);
  if (d == 0 || d == 1) {
    if (eq1_is_zero(d) != (d == 0 ? 1 : 0)) atomicAdd(bad, 1);
  }
}

int align4(int x) { return (x + 3) & ~3; }

}  // namespace

device_tables::device_tables(const bound_data& data, bound_kind kind, const gpu_policy& policy, const device_info& dev)
    : kind_(kind), policy_(policy), dev_(dev) {
  // Not the engine cache: a kept engine owns its tables, and a cache reached from them would
  // own itself (a reference cycle: the cache and its engines' device memory were never freed).
  policy_.engines.reset();
  const bound_view bv = data.view();
  n_ = bv.inst.n;
  m_ = bv.inst.m;
  // LB1 reads only the processing times (and the heads and tails): without the machine pairs'
  // Johnson orders and lags the tables of 100x40 (16 KiB instead of 620) and of 800x60 fit in
  // shared memory (issue 46).
  npairs_ = kind == bound_kind::lb1 ? 0 : bv.npairs;
  jb_ = n_ <= 256 ? 1 : 2;
  size_class_ = n_ <= 64 ? 0 : (n_ <= 256 ? 1 : 2);
  build(data);
  kernels_ = select_kernels();
  if (policy_.kernel == kernel_variant::refactored) check_refactoring();
  if (shared_ && smem_bytes_ > 48 * 1024) {
    PFSP_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernels_.children),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_bytes_)));
    PFSP_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernels_.nodes),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_bytes_)));
  }
  int min_grid = 0, block = 0;
  PFSP_CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernels_.children, smem_bytes_, 1024));
  occupancy_tpb_ = std::max(64, block / 32 * 32);
}

// The blob: each array on a 16-byte boundary, offsets in ints. Int tables, or compact ones
// (every time fits in 8 bits: compact_misfit) with 8-bit times, Johnson orders in the
// permutations' job type (8-bit for n <= 256, else 16-bit) and 16-bit lags, so that
// shared_ints, the shared-memory size and its fit test, count the compact bytes.
// --compact-times on: compact when the instance qualifies; auto: compact only when that is what
// brings the tables into shared memory (policy.hpp, compact_mode).
tables_view device_tables::layout(bool narrow, int& total_ints) const {
  const int np = npairs_;
  const int time_bytes = narrow ? 1 : 4, order_bytes = narrow ? jb_ : 4, lag_bytes = narrow ? 2 : 4;
  tables_view t;
  t.n = n_;
  t.m = m_;
  t.npairs = np;
  t.compact = narrow;
  int off = 0;
  auto place = [&](int count, int bytes) {
    const int at = off;
    off += align4((count * bytes + 3) / 4);
    return at;
  };
  t.off_p = place(n_ * m_, time_bytes);
  t.off_pair_first = place(np, 4);
  t.off_pair_second = place(np, 4);
  t.off_johnson = place(np * n_, order_bytes);
  t.off_lags = place(np * n_, lag_bytes);
  t.shared_ints = off;
  t.off_heads = place(n_ * m_, 4);
  t.off_tails = place(n_ * m_, 4);
  total_ints = off;
  return t;
}

bool device_tables::fits_shared(const tables_view& t) const {
  return static_cast<std::size_t>(t.shared_ints) * sizeof(int) <= dev_.shared_per_block_optin;
}

void device_tables::build(const bound_data& d) {
  int off = 0;
  tables_ = layout(false, off);
  if (policy_.compact_times == compact_mode::on) {
    compact_why_ = compact_misfit(d);
    compact_ = compact_why_.empty();
  } else if (policy_.compact_times == compact_mode::automatic && policy_.memory == memory_placement::shared &&
             uses_plain_kernel(policy_.strategy.kind) && !fits_shared(tables_)) {
    int narrow_ints = 0;
    if (fits_shared(layout(true, narrow_ints))) {
      compact_why_ = compact_misfit(d);
      compact_ = compact_why_.empty();
    } else {
      compact_why_ = "compact tables do not fit in shared memory either";
    }
  }
  if (compact_) tables_ = layout(true, off);
  std::vector<int> blob(static_cast<std::size_t>(off), 0);
  auto put = [&](int at, const auto& v) {
    std::memcpy(blob.data() + at, v.data(), v.size() * sizeof(v[0]));  // within the array's place
  };
  if (compact_) {
    const compact_tables c(d);
    put(tables_.off_p, c.times());
    if (npairs_ > 0 && jb_ == 1) put(tables_.off_johnson, c.johnson8());
    if (npairs_ > 0 && jb_ != 1) put(tables_.off_johnson, c.johnson16());
    if (npairs_ > 0) put(tables_.off_lags, c.lags());
  } else {
    put(tables_.off_p, d.problem().p);
    if (npairs_ > 0) put(tables_.off_johnson, d.johnson());
    if (npairs_ > 0) put(tables_.off_lags, d.lags());
  }
  if (npairs_ > 0) put(tables_.off_pair_first, d.pair_first());
  if (npairs_ > 0) put(tables_.off_pair_second, d.pair_second());
  put(tables_.off_heads, d.heads());
  put(tables_.off_tails, d.tails());
  blob_ = device_buffer<int>(blob.size());
  PFSP_CUDA_TRY(cudaMemcpy(blob_.data(), blob.data(), blob.size() * sizeof(int), cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy returns before its DMA lands, and the kernels that read the
  // tables run on non-blocking streams, which do not wait for the legacy stream: wait here.
  PFSP_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
  tables_.blob = blob_.data();
  const std::size_t bytes = static_cast<std::size_t>(tables_.shared_ints) * sizeof(int);
  shared_ = policy_.memory == memory_placement::shared && bytes <= dev_.shared_per_block_optin;
  smem_bytes_ = shared_ ? bytes : 0;
}

kernel_pair device_tables::select_kernels() const {
  const int v = static_cast<int>(policy_.kernel);
  switch (kind_) {
    case bound_kind::lb1:
      return kernels_for<bound_kind::lb1>(v, shared_, size_class_, compact_);
    case bound_kind::lb2:
      return kernels_for<bound_kind::lb2>(v, shared_, size_class_, compact_);
    case bound_kind::lb1_lb2:
      return kernels_for<bound_kind::lb1_lb2>(v, shared_, size_class_, compact_);
  }
  throw error("unknown bound kind");
}

void device_tables::check_refactoring() const {
  device_buffer<int> bad(1);
  PFSP_CUDA_TRY(cudaMemset(bad.data(), 0, sizeof(int)));
  const int lo = -2 * n_ - 4, hi = 2 * n_ + 4;
  const int count = hi - lo + 1;
  refactor_check_kernel<<<(count + 127) / 128, 128>>>(lo, hi, bad.data());
  PFSP_CUDA_CHECK_LAUNCH("refactor_check_kernel");
  int h = 0;
  PFSP_CUDA_TRY(cudaMemcpy(&h, bad.data(), sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 0)
    throw error("--kernel refactored: __cosf/__expf coefficients are not exact on this device for n = " +
                std::to_string(n_));
}

std::string device_tables::describe() const {
  std::ostringstream s;
  s << "tables in ";
  if (shared_) {
    s << "shared memory (" << (smem_bytes_ + 512) / 1024 << " KiB per block)";
  } else {
    s << "global memory";
    if (policy_.memory == memory_placement::shared)
      s << " (" << tables_.shared_ints * 4 / 1024 << " KiB do not fit in " << dev_.shared_per_block_optin / 1024
        << " KiB of shared memory)";
  }
  if (compact_)
    s << ", compact 8-bit times"
      << (policy_.compact_times == compact_mode::automatic ? " (auto: int tables do not fit)" : "");
  else if (!compact_why_.empty())
    s << ", int tables (no compact copy: " << compact_why_ << ")";
  return s.str();
}

}  // namespace pfsp::gpu
