// The bounding kernels: one thread per child (CCPE section 5, PPAM Fig. 1). Each thread rebuilds
// its parent's parts with node_parts and calls child_bound, the very functions the CPU solvers
// call (src/bound), so the GPU bounds equal the CPU bounds bit for bit. The strategies (kernel
// variant, table placement, bound kind, size class) are template parameters; bounder.cu picks
// the instantiation with one switch at the host boundary.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "gpu/pool_layout.hpp"

namespace pfsp::gpu {

// Device copy of bound_data's tables in one blob of ints, each array starting on a 16-byte
// boundary. [0, shared_ints) holds what the shared placement copies: processing times, machine
// pairs, Johnson orders and lags. Heads and tails (used only by nodes with an empty prefix or
// suffix) stay in global memory. With compact tables (--compact-times) the times are 8-bit, the
// Johnson orders 8- or 16-bit (the size class's job type) and the lags 16-bit entries; offsets
// stay in ints (4-byte units) and every array still starts on a 16-byte boundary.
struct tables_view {
  int n = 0;
  int m = 0;
  int npairs = 0;
  const int* blob = nullptr;
  int off_p = 0, off_pair_first = 0, off_pair_second = 0, off_johnson = 0, off_lags = 0;
  int off_heads = 0, off_tails = 0;
  int shared_ints = 0;   // multiple of 4 (16 bytes: the int4 copy of load_tables)
  bool compact = false;  // narrow element types: read through compact_bound_view (kernel_view)
};

// One pool on the device (pool_layout.hpp).
struct pool_view {
  const void* perms = nullptr;             // parents x n jobs (uint8 or uint16 by size class)
  const std::uint32_t* limits = nullptr;   // pack_limits, per parent
  const std::uint32_t* offsets = nullptr;  // parents + 1: first child of each parent
  std::uint32_t* desc = nullptr;           // children: make_child
  std::uint32_t* keys = nullptr;           // children: child_key (device sort only)
  std::uint32_t* values = nullptr;         // children: identity (device sort only)
  const std::uint32_t* order = nullptr;    // children: which child thread t evaluates; null = t
  int* bounds = nullptr;                   // children (or parents, for node bounds)
  std::uint32_t parents = 0;
  std::uint32_t children = 0;
  int ub = 0;
  int directions = 2;          // 2: forward then backward children; 1: one direction
  bool backward_only = false;  // with directions == 1
  // The device-resident loop (loop_engine.cuh) launches for its largest pool and keeps the live
  // count and the incumbent in device memory: when set, they replace `children` (whole blocks
  // past it return before loading the tables) and tighten `ub`.
  const std::uint32_t* live_children = nullptr;
  const int* live_ub = nullptr;
};

// Size classes: job type of the permutations and the largest n of the per-thread flag storage.
template <int MaxN, class Job>
struct size_class {
  using job = Job;
  static constexpr int max_n = MaxN;
  static constexpr int words = (MaxN + 31) / 32;
};
using size_small = size_class<64, std::uint8_t>;         // n <= 64: 64-bit masks in registers
using size_medium = size_class<256, std::uint8_t>;       // n <= 256
using size_large = size_class<kMaxJobs, std::uint16_t>;  // n <= 1024

// --- The papers' branch refactoring (CCPE equations 1 and 2) ---------------------------------
// Equation 1: f(x) = 1 if x == 0 else 0, read off cos(x) truncated to int.
__device__ __forceinline__ int eq1_is_zero(int x) { return static_cast<int>(__cosf(static_cast<float>(x))); }
// Equation 2: f(x, y) = 1 if x > y else 0, as min(1, exp(x - y - 1)) truncated to int.
__device__ __forceinline__ int eq2_greater(int x, int y) {
  return static_cast<int>(fminf(1.0f, __expf(static_cast<float>(x - y - 1))));
}

// --- Scheduled-job sets: the IsScheduled argument of child_bound / node_bound ---------------
// Storage lives in the kernel's frame; the functor passed by value is a pointer or a register.
struct flags_set {
  const unsigned char* flags;
  __host__ __device__ bool operator()(int j) const { return flags[j] != 0; }
};
struct mask64_set {
  std::uint64_t mask;
  __host__ __device__ bool operator()(int j) const { return ((mask >> j) & 1u) != 0; }
};
struct mask_words_set {
  const std::uint32_t* words;
  __host__ __device__ bool operator()(int j) const { return ((words[j >> 5] >> (j & 31)) & 1u) != 0; }
};

// plain: the CPU expander's code, flags in a byte array.
struct plain_variant {
  template <class SC, bool Shared = false>
  struct storage {
    unsigned char flags[SC::max_n];
  };
  template <class SC, bool Shared = false, class Job>
  static __device__ __forceinline__ flags_set build(storage<SC, Shared>& s, const Job* perm, int n, int first,
                                                    int limit2) {
    for (int i = 0; i < n; ++i) s.flags[perm[i]] = (i < first || i >= limit2) ? 1 : 0;
    return {s.flags};
  }
  static __device__ __forceinline__ bool forward(std::uint32_t d) {
    if (child_backward(d)) return false;
    return true;
  }
};

// refactored: the conditions computed as arithmetic coefficients (equations 1 and 2).
struct refactored_variant {
  template <class SC, bool Shared = false>
  struct storage {
    std::uint32_t words[SC::words];
  };
  // scheduled(i) = [first > i] + [i > limit2 - 1]  (equation 2 twice).
  static __device__ __forceinline__ std::uint32_t outside(int i, int first, int limit2) {
    return static_cast<std::uint32_t>(eq2_greater(first, i) + eq2_greater(i, limit2 - 1));
  }
  template <class SC, bool Shared = false, class Job>
  static __device__ __forceinline__ auto build(storage<SC, Shared>& s, const Job* perm, int n, int first, int limit2) {
    if constexpr (SC::max_n <= 64) {
      std::uint64_t mask = 0;
      for (int i = 0; i < n; ++i) mask |= static_cast<std::uint64_t>(outside(i, first, limit2)) << perm[i];
      return mask64_set{mask};
    } else {
      const int nw = (n + 31) >> 5;
      for (int w = 0; w < nw; ++w) s.words[w] = 0;
      for (int i = 0; i < n; ++i) s.words[perm[i] >> 5] |= outside(i, first, limit2) << (perm[i] & 31);
      return mask_words_set{s.words};
    }
  }
  // forward = [backward bit == 0]  (equation 1).
  static __device__ __forceinline__ bool forward(std::uint32_t d) {
    return eq1_is_zero(static_cast<int>(d >> 31)) != 0;
  }
};

// branchless: one unsigned comparison per position. The scheduled set: a 64-bit mask in
// registers where n <= 64; above, byte flags when the kernel reads its tables from shared memory
// (Shared: 1-2 blocks an SM, few warps to hide latency, and each flag is an independent store
// where the word form is a read-modify-write chain through local memory), else 32-bit words (many
// warps an SM: 8-32 words a thread stay in L1 where 256-1024 flags a thread would not).
struct branchless_variant {
  template <class SC, bool Shared = false>
  struct storage {
    static constexpr bool use_flags = SC::max_n > 64 && Shared;
    unsigned char flags[use_flags ? SC::max_n : 1];
    std::uint32_t words[use_flags ? 1 : SC::words];
  };
  template <class SC, bool Shared = false, class Job>
  static __device__ __forceinline__ auto build(storage<SC, Shared>& s, const Job* perm, int n, int first, int limit2) {
    const unsigned width = static_cast<unsigned>(limit2 - first);
    if constexpr (SC::max_n <= 64) {
      std::uint64_t mask = 0;
      for (int i = 0; i < n; ++i)
        mask |= static_cast<std::uint64_t>(static_cast<unsigned>(i - first) >= width) << perm[i];
      return mask64_set{mask};
    } else if constexpr (storage<SC, Shared>::use_flags) {
      for (int i = 0; i < n; ++i)
        s.flags[perm[i]] = static_cast<unsigned char>(static_cast<unsigned>(i - first) >= width);
      return flags_set{s.flags};
    } else {
      const int nw = (n + 31) >> 5;
      for (int w = 0; w < nw; ++w) s.words[w] = 0;
      for (int i = 0; i < n; ++i)
        s.words[perm[i] >> 5] |= static_cast<std::uint32_t>(static_cast<unsigned>(i - first) >= width)
                                 << (perm[i] & 31);
      return mask_words_set{s.words};
    }
  }
  static __device__ __forceinline__ bool forward(std::uint32_t d) { return (d >> 31) == 0; }
};

// Never called: LB1 does not look at the scheduled set.
struct no_set {
  __host__ __device__ bool operator()(int) const { return false; }
};

// The view a kernel reads the tables through: the int tables, or the compact ones
// (src/bound/compact_tables.hpp) with the Johnson orders in the size class's job type.
template <bool Compact, class SC>
using kernel_view = std::conditional_t<Compact, compact_bound_view<typename SC::job>, bound_view>;

// The kernel's view of the tables: in shared memory (copied by the block) or global memory.
// View: bound_view for the int blob, compact_bound_view<Job> for the compact one.
template <bool Shared, class View = bound_view>
__device__ __forceinline__ View load_tables(const tables_view& t, int* smem) {
  const int* base = t.blob;
  if constexpr (Shared) {
    const int4* src = reinterpret_cast<const int4*>(t.blob);
    int4* dst = reinterpret_cast<int4*>(smem);
    const int vecs = t.shared_ints >> 2;
    for (int i = static_cast<int>(threadIdx.x); i < vecs; i += static_cast<int>(blockDim.x)) dst[i] = src[i];
    __syncthreads();
    base = smem;
  }
  View b;
  b.inst.n = t.n;
  b.inst.m = t.m;
  b.inst.p = reinterpret_cast<const typename View::time_type*>(base + t.off_p);
  b.heads = t.blob + t.off_heads;
  b.tails = t.blob + t.off_tails;
  b.npairs = t.npairs;
  b.pair_first = base + t.off_pair_first;
  b.pair_second = base + t.off_pair_second;
  b.johnson = reinterpret_cast<const typename View::job_type*>(base + t.off_johnson);
  b.lags = reinterpret_cast<const typename View::lag_type*>(base + t.off_lags);
  return b;
}

// One thread per child: the bound of child order[t] (or t) written at its natural index.
template <class Variant, bool Shared, bound_kind Kind, class SC, bool Compact = false>
__global__ void bound_children_kernel(tables_view t, pool_view pool) {
  extern __shared__ int4 smem4[];
  std::uint32_t children = pool.children;
  if (pool.live_children) {
    children = *pool.live_children;
    if (blockIdx.x * blockDim.x >= children) return;  // the whole block: before its __syncthreads
    const int live = *pool.live_ub;
    pool.ub = live < pool.ub ? live : pool.ub;
  }
  const auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= children) return;
  using Job = typename SC::job;
  const std::uint32_t idx = pool.order ? pool.order[tid] : tid;
  const std::uint32_t d = pool.desc[idx];
  const std::uint32_t parent = child_parent(d);
  const std::uint32_t lim = pool.limits[parent];
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const Job* perm = static_cast<const Job*>(pool.perms) + static_cast<std::size_t>(parent) * t.n;

  int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];
  node_parts(b, perm, limit1, limit2, front, back, remain);
  const int first = limit1 + 1;
  const int job = perm[first + child_position(d)];
  const bool forward = Variant::forward(d);
  int lb;
  if constexpr (Kind == bound_kind::lb1) {
    lb = child_bound(Kind, b, front, back, remain, no_set{}, job, forward, pool.ub, scratch);
  } else {
    typename Variant::template storage<SC, Shared> st;
    const auto set = Variant::template build<SC, Shared>(st, perm, t.n, first, limit2);
    lb = child_bound(Kind, b, front, back, remain, set, job, forward, pool.ub, scratch);
  }
  pool.bounds[idx] = lb;
}

// One thread per node: node_bound of parent t (the root, or checks).
template <class Variant, bool Shared, bound_kind Kind, class SC, bool Compact = false>
__global__ void bound_nodes_kernel(tables_view t, pool_view pool) {
  extern __shared__ int4 smem4[];
  const auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= pool.parents) return;
  using Job = typename SC::job;
  const std::uint32_t lim = pool.limits[tid];
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const Job* perm = static_cast<const Job*>(pool.perms) + static_cast<std::size_t>(tid) * t.n;
  int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines];
  node_parts(b, perm, limit1, limit2, front, back, remain);
  int lb;
  if constexpr (Kind == bound_kind::lb1) {
    lb = node_bound(Kind, b, front, back, remain, no_set{}, pool.ub);
  } else {
    typename Variant::template storage<SC, Shared> st;
    const auto set = Variant::template build<SC, Shared>(st, perm, t.n, limit1 + 1, limit2);
    lb = node_bound(Kind, b, front, back, remain, set, pool.ub);
  }
  pool.bounds[tid] = lb;
}

using bound_kernel_fn = void (*)(tables_view, pool_view);

struct kernel_pair {
  bound_kernel_fn children = nullptr;
  bound_kernel_fn nodes = nullptr;
};

// size_class_id: 0 small, 1 medium, 2 large; compact: the compact tables' layout. Defined in
// kernels_<kind>.cu (one file per bound kind, so the instantiations compile in parallel).
template <bound_kind Kind>
kernel_pair kernels_for(int variant, bool shared, int size_class_id, bool compact);
template <>
kernel_pair kernels_for<bound_kind::lb1>(int variant, bool shared, int size_class_id, bool compact);
template <>
kernel_pair kernels_for<bound_kind::lb2>(int variant, bool shared, int size_class_id, bool compact);
template <>
kernel_pair kernels_for<bound_kind::lb1_lb2>(int variant, bool shared, int size_class_id, bool compact);

// 3 variants x 2 placements x 3 size classes x 2 table layouts = 36 kernel pairs per bound kind.
template <bound_kind Kind>
kernel_pair make_kernels(int variant, bool shared, int size_class_id, bool compact) {
  auto by_size = [&](auto variant_tag, auto shared_tag, auto compact_tag) -> kernel_pair {
    using V = decltype(variant_tag);
    constexpr bool S = decltype(shared_tag)::value;
    constexpr bool C = decltype(compact_tag)::value;
    switch (size_class_id) {
      case 0:
        return {bound_children_kernel<V, S, Kind, size_small, C>, bound_nodes_kernel<V, S, Kind, size_small, C>};
      case 1:
        return {bound_children_kernel<V, S, Kind, size_medium, C>, bound_nodes_kernel<V, S, Kind, size_medium, C>};
      default:
        return {bound_children_kernel<V, S, Kind, size_large, C>, bound_nodes_kernel<V, S, Kind, size_large, C>};
    }
  };
  auto by_compact = [&](auto variant_tag, auto shared_tag) -> kernel_pair {
    if (compact) return by_size(variant_tag, shared_tag, std::true_type{});
    return by_size(variant_tag, shared_tag, std::false_type{});
  };
  auto by_shared = [&](auto variant_tag) -> kernel_pair {
    if (shared) return by_compact(variant_tag, std::true_type{});
    return by_compact(variant_tag, std::false_type{});
  };
  switch (variant) {
    case 0:
      return by_shared(plain_variant{});
    case 1:
      return by_shared(refactored_variant{});
    default:
      return by_shared(branchless_variant{});
  }
}

}  // namespace pfsp::gpu
