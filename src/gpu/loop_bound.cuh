// The device loop's bounding step with the parents' parts computed once per parent
// (`--loop-bound parts`, the default): a parent kernel runs node_parts once for each popped
// parent (one thread a parent, O(n m)) and stores front, back and remain (and, for LB2, the
// parent's scheduled set as bit words) in structure-of-arrays buffers; one thread a child then
// reads its parent's parts and calls child_bound (the CPU expander gets the same values with LB2
// from the parent's table, bound/lb2_table.hpp). The papers' kernel
// (`--loop-bound recompute`, bound_kernels.cuh) rebuilds node_parts in every child's thread: at
// 50x20 that is about n m = 1000 table reads and max-adds for a child whose LB1 needs 3 m.
//
// Same functions, same bounds: node_parts, child_bound and the set functors are the ones every
// other path calls, so the bounds equal the CPU's bit for bit (tests/gpu check it).
//
// The children kernel is grid-stride (a grid of one wave of resident blocks), so each block
// copies its tables into shared memory once per launch, not once per 256 children; LB1 copies
// only the processing times (the pair tables are LB2's).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "bound/lb2_listed.hpp"
#include "bound/lb2_table.hpp"
#include "gpu/bound_kernels.cuh"
#include "gpu/policy.hpp"

namespace pfsp::gpu {

// Buffers of one pool of the device loop (loop_engine.cuh) as the parts kernels see them.
struct parts_view {
  const void* perms = nullptr;                   // parents x ld jobs (8- or 16-bit by size class)
  const std::uint32_t* limits = nullptr;         // pack_limits, per parent
  const std::uint32_t* desc = nullptr;           // children: make_child
  int* bounds = nullptr;                         // children, natural order
  int* front = nullptr;                          // [k * stride + parent]
  int* back = nullptr;                           // [k * stride + parent]
  int* remain = nullptr;                         // [k * stride + parent]
  std::uint32_t* masks = nullptr;                // [w * stride + parent]: bit j of word w = job 32 w + j scheduled
  std::uint32_t stride = 0;                      // parents the buffers hold
  int ld = 0;                                    // jobs a stored permutation takes (n padded to 16 bytes)
  const std::uint32_t* live_parents = nullptr;   // parents popped this iteration
  const std::uint32_t* live_children = nullptr;  // their children
  const int* live_ub = nullptr;                  // pruning threshold
  // Second pass of the LB1->LB2 chain: bound only the children listed (list[0 .. *list_count)).
  const std::uint32_t* list = nullptr;
  const std::uint32_t* list_count = nullptr;
  // The chain's LB2 pass from the parents' tables (lb2_table_kernel): each parent's children.
  const std::uint32_t* offsets = nullptr;  // first child of each popped parent
  const std::uint32_t* counts = nullptr;   // its children (0: pruned at pop time)
  // The chain's LB2 pass over listed orders (lb2_orders_kernel): parents' slots a block holds;
  // (lb2_lists_fill_kernel, lb2_listed_walk_kernel) the parents' lists in global memory.
  int order_slots = 0;
  std::uint8_t* lists = nullptr;  // [parent * npairs * n + pair * n + rank]
};

// One thread a popped parent: its parts (and scheduled-set words when Masks).
// M > 0: the machine count as a compile-time constant (node_parts' loops unroll, the parts stay
// in registers); 0: any m.
template <class Job, bool Compact, bool Masks, int M>
__global__ void parent_parts_kernel(tables_view t, parts_view v) {
  using View = std::conditional_t<Compact, compact_bound_view<Job>, bound_view>;
  View b = load_tables<false, View>(t, nullptr);
  if constexpr (M > 0) b.inst.m = M;
  const std::uint32_t P = *v.live_parents;
  const int n = t.n, m = M > 0 ? M : t.m;
  for (std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < P; p += gridDim.x * blockDim.x) {
    const std::uint32_t lim = v.limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines];
    node_parts(b, perm, limit1, limit2, front, back, remain);
    PFSP_UNROLL
    for (int k = 0; k < m; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
      v.front[at] = front[k];
      v.back[at] = back[k];
      v.remain[at] = remain[k];
    }
    if constexpr (Masks) {
      // The same membership as branchless_variant::build: position i is scheduled iff it lies
      // outside [limit1 + 1, limit2).
      constexpr int kWords = (kMaxJobs + 31) / 32;
      std::uint32_t words[kWords];
      const int nw = (n + 31) >> 5;
      for (int w = 0; w < nw; ++w) words[w] = 0;
      const unsigned width = static_cast<unsigned>(limit2 - limit1 - 1);
      for (int i = 0; i < n; ++i) {
        const int j = perm[i];
        words[j >> 5] |= static_cast<std::uint32_t>(static_cast<unsigned>(i - limit1 - 1) >= width) << (j & 31);
      }
      for (int w = 0; w < nw; ++w) v.masks[static_cast<std::size_t>(w) * v.stride + p] = words[w];
    }
  }
}

// One thread a child (grid-stride): child_bound from the parent's stored parts.
// M > 0: the machine count as a compile-time constant (t.m == M): the per-machine loops unroll
// and front/back/remain stay in registers (LB1); 0: any m, arrays in local memory.
template <bound_kind Kind, class SC, bool Compact, bool Shared, int M>
__global__ void parts_children_kernel(tables_view t, parts_view v) {
  extern __shared__ int4 smem4[];
  const std::uint32_t C = v.list ? *v.list_count : *v.live_children;
  if (blockIdx.x * blockDim.x >= C) return;  // the whole block: before load_tables' __syncthreads
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  if constexpr (M > 0) b.inst.m = M;
  using Job = typename SC::job;
  const int ub = *v.live_ub;
  const int m = M > 0 ? M : t.m;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < C; i += gridDim.x * blockDim.x) {
    const std::uint32_t idx = v.list ? v.list[i] : i;
    const std::uint32_t d = v.desc[idx];
    const std::uint32_t p = child_parent(d);
    const int first = limit1_of(v.limits[p]) + 1;
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    const int job = perm[first + child_position(d)];
    // Kind lb1_lb2: the chain's LB2 pass over the listed LB1 survivors, LB1 the first pass's value
    // in bounds[idx] (decision 013, option G); lb2: LB1 and the pairs, every child.
    constexpr bool lb1_known = Kind == bound_kind::lb1_lb2;
    int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];
    PFSP_UNROLL
    for (int k = 0; k < m; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
      front[k] = v.front[at];
      back[k] = v.back[at];
      if constexpr (!lb1_known) remain[k] = v.remain[at];
    }
    const bool forward = !child_backward(d);
    const auto bound = [&](auto set) {
      if constexpr (lb1_known)
        return child_bound_known_lb1(b, front, back, set, job, forward, ub, scratch, v.bounds[idx]);
      else
        return child_bound(Kind, b, front, back, remain, set, job, forward, ub, scratch);
    };
    int lb;
    if constexpr (Kind == bound_kind::lb1) {
      lb = child_bound(Kind, b, front, back, remain, no_set{}, job, forward, ub, scratch);
    } else if constexpr (SC::max_n <= 64) {
      const std::uint64_t high = t.n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;  // one word up to 32
      const std::uint64_t mask = static_cast<std::uint64_t>(v.masks[p]) | (high << 32);
      lb = bound(mask64_set{mask});
    } else {
      std::uint32_t words[SC::words];
      const int nw = (t.n + 31) >> 5;
      for (int w = 0; w < nw; ++w) words[w] = v.masks[static_cast<std::size_t>(w) * v.stride + p];
      lb = bound(mask_words_set{words});
    }
    v.bounds[idx] = lb;
  }
}

// The chain's LB2 pass with G lanes a listed child (`--lb2-lanes G`, decision 013, option H).
// The list holds fewer children than one wave of the one-lane kernel has threads, so there each
// thread bounds at most one child. Here the G lanes of a group walk the child's pairs in rounds,
// pair r G + s on lane s, and stop after the first round holding a pair whose value reaches ub.
// The bound is the one-lane loop's to the bit: the maximum of LB1 and of the pairs up to the
// first one that reaches ub (lanes at or below the first hitting lane of that round), or of all
// pairs when none does. Measured on 50x20 (H100): 4 lanes at the one-lane rate, 8 and 16 slower;
// the default is 1.
template <class SC, bool Compact, bool Shared, int G>
__global__ void lb2_lanes_kernel(tables_view t, parts_view v) {
  static_assert(G == 2 || G == 4 || G == 8 || G == 16, "G lanes: a power of two below a warp");
  extern __shared__ int4 smem4[];
  const std::uint32_t C = *v.list_count;
  if (blockIdx.x * blockDim.x / G >= C) return;  // the whole block: before load_tables' __syncthreads
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  using Job = typename SC::job;
  const int ub = *v.live_ub;
  const int m = t.m;
  const unsigned lane = threadIdx.x & 31u, sub = lane & (G - 1u), base = lane - sub;
  constexpr unsigned kLow = (1u << G) - 1u;
  const unsigned group_mask = kLow << base;
  const std::uint32_t groups = gridDim.x * blockDim.x / G;
  for (std::uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / G; i < C; i += groups) {
    const std::uint32_t idx = v.list[i];
    const std::uint32_t d = v.desc[idx];
    const std::uint32_t p = child_parent(d);
    const int first = limit1_of(v.limits[p]) + 1;
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    const int job = perm[first + child_position(d)];
    int front[kMaxMachines], back[kMaxMachines], scratch[kMaxMachines];
    for (int k = 0; k < m; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
      front[k] = v.front[at];
      back[k] = v.back[at];
    }
    const int* child_front;
    const int* child_back;
    child_sides(b.inst, front, back, job, !child_backward(d), scratch, child_front, child_back);
    const int lb1 = v.bounds[idx];
    const auto pairs_max = [&](auto parent_scheduled) {
      const auto sched = [&](int j) { return (j == job) | parent_scheduled(j); };
      int best = 0;
      for (int r0 = 0; r0 < b.npairs; r0 += G) {
        const int q = r0 + static_cast<int>(sub);
        const bool valid = q < b.npairs;
        const int value =
            valid ? detail::lb2_pair_walk<detail::kDeviceLb2Skip>(b, child_front, child_back, sched, q) : 0;
        const unsigned hits = (__ballot_sync(group_mask, valid && value >= ub) >> base) & kLow;
        const unsigned last = hits ? static_cast<unsigned>(__ffs(hits)) - 1u : G - 1u;  // lanes counted this round
        int mine = valid && sub <= last ? value : 0;
        PFSP_UNROLL
        for (int off = G / 2; off > 0; off /= 2) {
          const int other = __shfl_xor_sync(group_mask, mine, off, G);
          mine = other > mine ? other : mine;
        }
        best = mine > best ? mine : best;
        if (hits) break;
      }
      return best;
    };
    int pairs;
    if constexpr (SC::max_n <= 64) {
      const std::uint64_t high = t.n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
      pairs = pairs_max(mask64_set{static_cast<std::uint64_t>(v.masks[p]) | (high << 32)});
    } else {
      std::uint32_t words[SC::words];
      const int nw = (t.n + 31) >> 5;
      for (int w = 0; w < nw; ++w) words[w] = v.masks[static_cast<std::size_t>(w) * v.stride + p];
      pairs = pairs_max(mask_words_set{words});
    }
    if (sub == 0) v.bounds[idx] = pairs > lb1 ? pairs : lb1;
  }
}

// --- The chain's LB2 pass from the parent's table (`--lb2-table`, decision 013, option I) -----
// A warp a popped parent. The lanes fill the parent's table (bound/lb2_table.hpp), one machine
// pair a lane, 32 pairs at a time, into the warp's rows of shared memory; then each lane bounds
// LB1 survivors of that parent (bounds[idx] < ub) from the table, O(1) a pair instead of the
// O(n) walk. The value is the walk's to the bit: the pairs in their order, stopping at the first
// one that reaches ub, and the maximum with LB1 (bounds[idx] holds LB1, then the running maximum
// from one round of 32 pairs to the next). The survivors need no list: the warp reads its
// parent's children's LB1, so the compaction between the passes goes too.

// Pairs a round of the table holds, and the ints a warp's part of shared memory takes: the
// round's before and after rows (n ints a pair), its sums (2 a pair) and the parent's front and
// back (m each), rounded up to 16 bytes.
__host__ __device__ constexpr int lb2_table_rows(int npairs) { return npairs < 32 ? npairs : 32; }
__host__ __device__ constexpr int lb2_table_warp_ints(int n, int m, int npairs) {
  return (2 * lb2_table_rows(npairs) * (n + 1) + 2 * m + 3) / 4 * 4;
}

template <class SC, bool Compact, bool Shared>
__global__ void lb2_table_kernel(tables_view t, parts_view v) {
  extern __shared__ int4 smem4[];
  const std::uint32_t P = *v.live_parents;
  const unsigned warps_a_block = blockDim.x >> 5;
  if (blockIdx.x * warps_a_block >= P) return;  // the whole block: before load_tables' __syncthreads
  int* smem = reinterpret_cast<int*>(smem4);
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, smem);
  using Job = typename SC::job;
  const int n = t.n, m = t.m, npairs = b.npairs, rows = lb2_table_rows(npairs);
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  int* mine = smem + (Shared ? t.shared_ints : 0) + warp * lb2_table_warp_ints(n, m, npairs);
  int* before = mine;                   // rows x n
  int* after = before + rows * n;       // rows x n
  int* sums = after + rows * n;         // rows x 2
  int* parent_front = sums + 2 * rows;  // m
  int* parent_back = parent_front + m;  // m
  const int ub = *v.live_ub;
  const std::uint32_t warps = gridDim.x * warps_a_block;
  for (std::uint32_t p = blockIdx.x * warps_a_block + warp; p < P; p += warps) {
    const std::uint32_t total = v.counts[p], first_child = v.offsets[p];
    bool any = false;
    for (std::uint32_t i = lane; i < total; i += 32) any |= v.bounds[first_child + i] < ub;
    if (!__any_sync(0xffffffffu, any)) continue;  // LB1 pruned every child: no table
    __syncwarp();                                 // the previous parent's reads of the warp's rows are done
    for (int k = static_cast<int>(lane); k < m; k += 32) {
      parent_front[k] = v.front[static_cast<std::size_t>(k) * v.stride + p];
      parent_back[k] = v.back[static_cast<std::size_t>(k) * v.stride + p];
    }
    const int first = limit1_of(v.limits[p]) + 1;
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    const auto rounds = [&](auto parent_scheduled) {
      for (int q0 = 0; q0 < npairs; q0 += rows) {
        const int q = q0 + static_cast<int>(lane);
        __syncwarp();
        if (lane < static_cast<unsigned>(rows) && q < npairs)
          lb2_parent_pair_into(b, parent_scheduled, q, before + lane * n, after + lane * n, sums + 2 * lane);
        __syncwarp();
        const int q_end = q0 + rows < npairs ? q0 + rows : npairs;
        for (std::uint32_t i = lane; i < total; i += 32) {
          const std::uint32_t idx = first_child + i;
          int lb = v.bounds[idx];
          if (lb >= ub) continue;  // pruned by LB1, or by an earlier round's pair
          const std::uint32_t d = v.desc[idx];
          const int job = perm[first + child_position(d)];
          int scratch[kMaxMachines];
          const int* child_front;
          const int* child_back;
          child_sides(b.inst, parent_front, parent_back, job, !child_backward(d), scratch, child_front, child_back);
          for (int r = q0; r < q_end; ++r) {
            const int s = r - q0;
            const int value =
                lb2_pair_from_part(b, before + s * n, after + s * n, sums + 2 * s, child_front, child_back, job, r);
            if (value > lb) {
              lb = value;
              if (lb >= ub) break;
            }
          }
          v.bounds[idx] = lb;
        }
      }
    };
    if constexpr (SC::max_n <= 64) {
      const std::uint64_t high = n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
      rounds(mask64_set{static_cast<std::uint64_t>(v.masks[p]) | (high << 32)});
    } else {
      std::uint32_t words[SC::words];
      const int nw = (n + 31) >> 5;
      for (int w = 0; w < nw; ++w) words[w] = v.masks[static_cast<std::size_t>(w) * v.stride + p];
      rounds(mask_words_set{words});
    }
  }
}

// --- The chain's LB2 pass over each parent's listed orders (`--lb2-orders`, decision 013, J) ---
// A block takes the list (LB1's survivors, in child order: a parent's are consecutive) in tiles
// of kOrdersBlock children. The tile's distinct parents get slots in shared memory, order_slots
// at a time (rounds where a tile has more); a warp a slot writes the parent's unscheduled jobs in
// every pair's Johnson order (a ballot and a population count per 32 ranks); then each child
// walks its parent's lists without its own job (lb2_listed.hpp) instead of all n ranks behind a
// mask. The same pairs, order and early exit: the walk's bound, bit for bit.
constexpr int kOrdersBlock = 256;

// A parent's scheduled set read from the parts buffers' mask words ([w * stride + parent]).
struct mask_words_global {
  const std::uint32_t* first;  // word 0 of the parent
  std::uint32_t stride;
  __device__ bool operator()(int j) const {
    return ((first[static_cast<std::size_t>(j >> 5) * stride] >> (j & 31)) & 1u) != 0;
  }
};

// Slot bytes: a parent's lists, npairs x n one-byte jobs (the small and medium size classes).
__host__ __device__ constexpr int lb2_orders_slot_bytes(int n, int npairs) { return npairs * n; }

// The warp writes parent p's lists into dst (npairs rows of n; each row's first n - depth used).
template <class SC, class View, class Scheduled>
__device__ void lb2_orders_fill(const View& b, Scheduled parent_scheduled, std::uint8_t* dst, unsigned lane) {
  const int n = b.inst.n;
  const unsigned below = (1u << lane) - 1u;
  for (int q = 0; q < b.npairs; ++q) {
    const auto* order = b.johnson + q * n;
    std::uint8_t* row = dst + q * n;
    int count = 0;
    for (int r0 = 0; r0 < n; r0 += 32) {
      const int r = r0 + static_cast<int>(lane);
      const int j = r < n ? static_cast<int>(order[r]) : 0;
      const bool keep = r < n && !parent_scheduled(j);
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (keep) row[count + __popc(ballot & below)] = static_cast<std::uint8_t>(j);
      count += __popc(ballot);
    }
  }
}

template <class SC, bool Compact, bool Shared>
__global__ void __launch_bounds__(kOrdersBlock) lb2_orders_kernel(tables_view t, parts_view v) {
  static_assert(SC::max_n <= 256, "one-byte jobs in the lists");
  extern __shared__ int4 smem4[];
  using scan_t = cub::BlockScan<int, kOrdersBlock>;
  __shared__ typename scan_t::TempStorage scan_temp;
  __shared__ std::uint32_t tile_parent[kOrdersBlock];
  __shared__ std::uint32_t slot_parent[kOrdersBlock];
  const std::uint32_t C = *v.list_count;
  if (blockIdx.x * kOrdersBlock >= C) return;  // the whole block: before load_tables' __syncthreads
  int* smem = reinterpret_cast<int*>(smem4);
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, smem);
  using Job = typename SC::job;
  std::uint8_t* lists = reinterpret_cast<std::uint8_t*>(smem + (Shared ? t.shared_ints : 0));
  const int n = t.n, m = t.m, slots = v.order_slots, slot_bytes = lb2_orders_slot_bytes(n, b.npairs);
  const int ub = *v.live_ub;
  const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
  constexpr unsigned kWarps = kOrdersBlock / 32;
  const auto scheduled_of = [&](std::uint32_t p, auto&& use) {
    if constexpr (SC::max_n <= 64) {
      const std::uint64_t high = n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
      use(mask64_set{static_cast<std::uint64_t>(v.masks[p]) | (high << 32)});
    } else {
      use(mask_words_global{v.masks + p, v.stride});
    }
  };
  for (std::uint32_t base = blockIdx.x * kOrdersBlock; base < C; base += gridDim.x * kOrdersBlock) {
    const std::uint32_t i = base + tid;
    const bool valid = i < C;
    const std::uint32_t idx = valid ? v.list[i] : 0u;
    const std::uint32_t d = valid ? v.desc[idx] : 0u;
    const std::uint32_t p = valid ? child_parent(d) : 0xffffffffu;
    __syncthreads();  // the previous tile is done with tile_parent, the scan's storage and the slots
    tile_parent[tid] = p;
    __syncthreads();
    const int first = valid && (tid == 0 || tile_parent[tid - 1] != p) ? 1 : 0;
    int before = 0, distinct = 0;
    scan_t(scan_temp).ExclusiveSum(first, before, distinct);
    const int mine = before + first - 1;  // this child's parent among the tile's distinct parents
    for (int s0 = 0; s0 < distinct; s0 += slots) {
      const int here = distinct - s0 < slots ? distinct - s0 : slots;
      if (first && mine >= s0 && mine < s0 + here) slot_parent[mine - s0] = p;
      __syncthreads();
      for (int s = static_cast<int>(warp); s < here; s += kWarps)
        scheduled_of(slot_parent[s], [&](auto set) { lb2_orders_fill<SC>(b, set, lists + s * slot_bytes, lane); });
      __syncthreads();
      if (valid && mine >= s0 && mine < s0 + here) {
        const std::uint32_t lim = v.limits[p];
        const int first_pos = limit1_of(lim) + 1, len = limit2_of(lim) - first_pos;
        const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
        const int job = perm[first_pos + child_position(d)];
        int front[kMaxMachines], back[kMaxMachines], scratch[kMaxMachines];
        for (int k = 0; k < m; ++k) {
          const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
          front[k] = v.front[at];
          back[k] = v.back[at];
        }
        const int* child_front;
        const int* child_back;
        child_sides(b.inst, front, back, job, !child_backward(d), scratch, child_front, child_back);
        v.bounds[idx] = lb2_pairs_listed(b, child_front, child_back, lists + (mine - s0) * slot_bytes, n, len, job, ub,
                                         v.bounds[idx]);
      }
      __syncthreads();  // before the next round's parents take the slots
    }
  }
}

// The lists in global memory (`--lb2-orders global`): a warp a popped parent writes them before
// the LB2 pass (its tables in shared memory where they fit); then one thread a listed child, as
// the walk's kernel, walks its parent's lists. No tiles, no barriers, the walk's occupancy.
template <class SC, bool Compact, bool Shared>
__global__ void lb2_lists_fill_kernel(tables_view t, parts_view v) {
  static_assert(SC::max_n <= 256, "one-byte jobs in the lists");
  extern __shared__ int4 smem4[];
  const std::uint32_t P = *v.live_parents;
  const unsigned warps_a_block = blockDim.x >> 5;
  if (blockIdx.x * warps_a_block >= P) return;  // the whole block: before load_tables' __syncthreads
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  const int n = t.n, slot_bytes = lb2_orders_slot_bytes(n, b.npairs);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint32_t warps = gridDim.x * warps_a_block;
  for (std::uint32_t p = blockIdx.x * warps_a_block + (threadIdx.x >> 5); p < P; p += warps) {
    if (v.counts[p] == 0) continue;  // pruned when popped: no child
    std::uint8_t* dst = v.lists + static_cast<std::size_t>(p) * static_cast<unsigned>(slot_bytes);
    if constexpr (SC::max_n <= 64) {
      const std::uint64_t high = n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
      lb2_orders_fill<SC>(b, mask64_set{static_cast<std::uint64_t>(v.masks[p]) | (high << 32)}, dst, lane);
    } else {
      lb2_orders_fill<SC>(b, mask_words_global{v.masks + p, v.stride}, dst, lane);
    }
  }
}

template <class SC, bool Compact, bool Shared>
__global__ void lb2_listed_walk_kernel(tables_view t, parts_view v) {
  extern __shared__ int4 smem4[];
  const std::uint32_t C = *v.list_count;
  if (blockIdx.x * blockDim.x >= C) return;  // the whole block: before load_tables' __syncthreads
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  using Job = typename SC::job;
  const int ub = *v.live_ub;
  const int n = t.n, m = t.m, slot_bytes = lb2_orders_slot_bytes(n, b.npairs);
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < C; i += gridDim.x * blockDim.x) {
    const std::uint32_t idx = v.list[i];
    const std::uint32_t d = v.desc[idx];
    const std::uint32_t p = child_parent(d);
    const std::uint32_t lim = v.limits[p];
    const int first_pos = limit1_of(lim) + 1, len = limit2_of(lim) - first_pos;
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    const int job = perm[first_pos + child_position(d)];
    int front[kMaxMachines], back[kMaxMachines], scratch[kMaxMachines];
    for (int k = 0; k < m; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
      front[k] = v.front[at];
      back[k] = v.back[at];
    }
    const int* child_front;
    const int* child_back;
    child_sides(b.inst, front, back, job, !child_backward(d), scratch, child_front, child_back);
    const std::uint8_t* lists = v.lists + static_cast<std::size_t>(p) * static_cast<unsigned>(slot_bytes);
    v.bounds[idx] = lb2_pairs_listed(b, child_front, child_back, lists, n, len, job, ub, v.bounds[idx]);
  }
}

using parts_kernel_fn = void (*)(tables_view, parts_view);

// The instantiations one engine uses (loop_kernels.cu).
struct parts_kernels {
  parts_kernel_fn parents = nullptr;  // parent_parts_kernel
  parts_kernel_fn first = nullptr;    // children: LB1, or LB2 for --bound lb2
  parts_kernel_fn second = nullptr;   // lb1-lb2: LB2 on the children LB1 kept (listed); else null
  bool table = false;                 // second is lb2_table_kernel: a warp a parent, no list
  bool orders = false;                // second is lb2_orders_kernel: blocks of kOrdersBlock, lists in shared memory
  parts_kernel_fn fill = nullptr;     // lb2_lists_fill_kernel (second: lb2_listed_walk_kernel), lists in global memory
};

// kind: the bound; m: machines (5, 10 and 20 get their own unrolled kernels); size_class_id
// 0/1/2 (small, medium, large); compact tables; shared: whether the tables a kernel needs fit in
// shared memory (per kernel, decided by the caller); lb2_lanes: lanes a child in the chain's LB2
// pass (1, 2, 4, 8 or 16; lb2_lanes_kernel above 1); lb2_table: the chain's LB2 pass from the
// parents' tables (lb2_table_kernel; lb2_lanes then unused); lb2_orders: over the parents' listed
// orders (lb2_orders_kernel; small and medium size classes, lb2_lanes 1, not with lb2_table).
parts_kernels select_parts_kernels(bound_kind kind, int m, int size_class_id, bool compact, bool shared_first,
                                   bool shared_second, int lb2_lanes = 1, bool lb2_table = false,
                                   lb2_orders_mode lb2_orders = lb2_orders_mode::off);

}  // namespace pfsp::gpu
