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
#include <vector>

#include "bound/dominance.hpp"
#include "bound/lb2_table.hpp"
#include "gpu/bound_kernels.cuh"
#include "gpu/loop_state.cuh"
#include "gpu/resident_step.hpp"

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
  // The chain's LB2 pass in 16-bit halves (lb2_pack_kernel): a child packs when the largest of its
  // front plus the largest of its back is at most this (65535 - 2 W - L; pack_limit_of).
  int pack_limit = 0;
  // Its rank table (pack_ranks_of): pair q's rank r at q * n + r, copied into shared memory.
  const uint4* pack_ranks = nullptr;
  // The parents kernels with the LB1 pass (parts_lb1_kernel, parts_lb1_decide_kernel): the
  // children's directions (dirs, backward_only). LB1 alone, decided in the parents kernel
  // (parts_lb1_decide_kernel): what decide_warp_kernel reads and writes (loop_iteration.cuh's
  // loop_view), and the descriptor of a leaf (describe_kernel does not run then).
  device_loop::loop_state* state = nullptr;
  std::uint8_t* forward = nullptr;             // per parent: direction chosen (1 forward)
  std::uint32_t* kept = nullptr;               // per parent: children kept
  std::uint32_t* leaf_desc = nullptr;          // children: make_child, written at leaves only
  unsigned long long* depth_popped = nullptr;  // [depth]: parents popped (tree_estimate.hpp)
  unsigned long long* depth_kept = nullptr;    // [depth]: their children kept
  const double* weights = nullptr;             // (n - d)! / n!
  int dirs = 2;
  bool backward_only = false;
  branching rule = branching::min_min;
  // Swap dominance on the forward children (bound/dominance.hpp), in the LB1 parents kernels.
  bool dominance = false;
};

// The LB1 of a child in the LB1 parents kernels, or kDominatedBound where swap dominance prunes a
// forward child (front_0: the front of the parent's prefix without its last job; only read when
// `swaps`). The same values as the CPU expander's.
template <class View, class Job>
__device__ __forceinline__ int fused_child_lb1(const View& b, const Job* perm, int limit1, const int* front,
                                               const int* back, const int* remain, const int* front_0, bool swaps,
                                               int job, bool forward, int ub, int* scratch) {
  if (forward && swaps && swap_dominated(b.inst, front, front_0, static_cast<int>(perm[limit1]), job))
    return kDominatedBound;
  return child_bound(bound_kind::lb1, b, front, back, remain, no_set{}, job, forward, ub, scratch);
}

// A popped parent's parts into the SoA buffers (remain: where not null), and, when Masks, its
// scheduled set as bit words. m: the machine count (M where M > 0, a compile-time constant). What
// parent_parts_kernel and parts_lb1_kernel store.
template <int M, bool Masks, class Job>
__device__ __forceinline__ void store_parent_parts(const parts_view& v, std::uint32_t p, int n, int m, int limit1,
                                                   int limit2, const Job* perm, const int* front, const int* back,
                                                   const int* remain) {
  PFSP_UNROLL
  for (int k = 0; k < m; ++k) {
    const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
    v.front[at] = front[k];
    v.back[at] = back[k];
    if (remain) v.remain[at] = remain[k];
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
    store_parent_parts<M, Masks>(v, p, n, m, limit1, limit2, perm, front, back, remain);
  }
}

// The parents kernel and the LB1 pass in one (`--lb1-fused on`, decision 013, option Q): one thread
// a popped parent computes its parts, stores front, back and (Masks) the scheduled-set words as
// parent_parts_kernel does (the chain's LB2 pass reads them; nothing reads `remain` after LB1),
// then bounds each of its children by LB1 from the parts in its registers: no child's thread reads
// 3 m parts back from global memory, nor its parent's limits and permutation through the
// descriptor for its job. The same child_bound, so the same values as parts_children_kernel<lb1>.
// M: 5, 10 or 20 (the parts in registers); tables in shared memory (the processing times).
template <class SC, bool Compact, bool Masks, int M>
__global__ void parts_lb1_kernel(tables_view t, parts_view v) {
  static_assert(M > 0, "the parts in registers: a compile-time machine count");
  extern __shared__ int4 smem4[];
  const std::uint32_t P = *v.live_parents;
  if (blockIdx.x * blockDim.x >= P) return;  // the whole block: before load_tables' __syncthreads
  auto b = load_tables<true, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  b.inst.m = M;
  using Job = typename SC::job;
  const int ub = *v.live_ub;
  for (std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < P; p += gridDim.x * blockDim.x) {
    const std::uint32_t lim = v.limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines], front_0[kMaxMachines];
    node_parts(b, perm, limit1, limit2, front, back, remain);
    store_parent_parts<M, Masks>(v, p, t.n, M, limit1, limit2, perm, front, back, nullptr);
    const bool swaps = v.dominance && limit1 >= 0 && (v.dirs == 2 || !v.backward_only);
    if (swaps) completion_times(b.inst, perm, limit1, front_0);
    // Its children in write_children's order (pool_layout.hpp): count forward ones, then (two
    // directions) count backward ones; position and direction from the index, not from the
    // descriptors (a load a child, 40-60 words apart across a warp; option S dropped it first).
    const std::uint32_t total = v.counts[p], first_child = v.offsets[p];
    const int count = limit2 - limit1 - 1;
    for (std::uint32_t i = 0; i < total; ++i) {
      const bool second = v.dirs == 2 && static_cast<int>(i) >= count;
      const int position = static_cast<int>(i) - (second ? count : 0);
      const bool forward = v.dirs == 2 ? !second : !v.backward_only;
      v.bounds[first_child + i] = fused_child_lb1(b, perm, limit1, front, back, remain, front_0, swaps,
                                                  static_cast<int>(perm[limit1 + 1 + position]), forward, ub, scratch);
    }
  }
}

// LB1 alone: option Q's kernel that also decides (decision 013, option S). One thread a popped
// parent computes its parts and bounds each child by LB1 (the same child_bound, so the same values
// as parts_lb1_kernel), writes the bounds (push_warp_kernel ranks them), and tallies each
// direction as it goes (side_tally), so that decide_parent_tallied chooses the direction, counts
// the pruned children and finds the leaf as decide_warp_kernel does from the stored bounds
// (resident_step.hpp; tested equal): that kernel, its reads of every bound, and describe_kernel
// (nothing reads the descriptors but a leaf's) do not run. Nothing reads the parents' parts after
// LB1 alone, so none are stored. The leaf and the counters as decide_warp_kernel: the threshold is
// the iteration's (state->iteration_ub), the per-depth counts gathered in shared memory.
template <class SC, bool Compact, int M>
__global__ void parts_lb1_decide_kernel(tables_view t, parts_view v) {
  static_assert(M > 0, "the parts in registers: a compile-time machine count");
  extern __shared__ int4 smem4[];
  __shared__ unsigned h_popped[kMaxJobs + 1], h_kept[kMaxJobs + 1];
  const std::uint32_t P = *v.live_parents;
  if (blockIdx.x * blockDim.x >= P) return;  // the whole block: before the __syncthreads
  auto b = load_tables<true, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  b.inst.m = M;
  using Job = typename SC::job;
  const int n = t.n;
  device_loop::clear_depths(h_popped, h_kept, n);
  __syncthreads();
  const int live = *v.live_ub, ub = v.state->iteration_ub;
  device_loop::parent_counts mine;
  for (std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < P; p += gridDim.x * blockDim.x) {
    const std::uint32_t lim = v.limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const int count = limit2 - limit1 - 1, depth = (limit1 + 1) + (n - limit2);
    atomicAdd(&h_popped[depth], 1u);
    if (v.counts[p] == 0) {  // pruned when popped
      ++mine.pruned;
      mine.explored += v.weights[depth];
      v.kept[p] = 0;
      continue;
    }
    const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines], front_0[kMaxMachines];
    node_parts(b, perm, limit1, limit2, front, back, remain);
    const bool swaps = v.dominance && limit1 >= 0 && (v.dirs == 2 || !v.backward_only);
    if (swaps) completion_times(b.inst, perm, limit1, front_0);
    const std::uint32_t first_child = v.offsets[p];
    // One direction's children: their bounds stored from `at` on, tallied.
    auto bound_side = [&](bool forward, std::uint32_t at, side_tally& tally) {
      for (int c = 0; c < count; ++c) {
        const int lb = fused_child_lb1(b, perm, limit1, front, back, remain, front_0, swaps,
                                       static_cast<int>(perm[limit1 + 1 + c]), forward, live, scratch);
        v.bounds[at + static_cast<std::uint32_t>(c)] = lb;
        tally.add(lb, ub);
      }
    };
    side_tally fwd, bwd;
    bound_side(v.dirs == 2 || !v.backward_only, first_child, fwd);
    if (v.dirs == 2) bound_side(false, first_child + static_cast<std::uint32_t>(count), bwd);
    const parent_step st = decide_parent_tallied(v.rule, fwd, bwd, count, v.dirs);
    const std::uint32_t kept = count == 1 ? 0u : static_cast<std::uint32_t>(count - st.pruned);
    v.forward[p] = st.forward ? 1 : 0;
    v.kept[p] = kept;
    if (kept) atomicAdd(&h_kept[depth], kept);
    ++mine.branched;
    mine.bounds += static_cast<unsigned long long>(count) * static_cast<unsigned>(v.dirs);
    mine.pruned += static_cast<unsigned long long>(st.pruned);
    mine.leaves += static_cast<unsigned long long>(st.leaves);
    mine.explored += static_cast<double>(st.pruned + st.leaves) * v.weights[depth + 1];
    if (st.leaves) {
      const bool backward = v.dirs == 2 ? !st.forward : v.backward_only;
      const std::uint32_t child = first_child + static_cast<std::uint32_t>(v.dirs == 2 && !st.forward ? count : 0);
      v.leaf_desc[child] = make_child(p, 0, backward);  // what finish_kernel reads
      atomicMin(&v.state->best, st.leaf_makespan);
      atomicMin(&v.state->leaf_key, (static_cast<unsigned long long>(st.leaf_makespan) << 32) | child);
    }
  }
  __syncthreads();
  device_loop::flush_depths(h_popped, h_kept, n, v.depth_popped, v.depth_kept);
  device_loop::add_block_counts(v.state, mine);
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
    // set: the parent's; for the chain's pass the child's own (its job folded in once, not tested
    // at every step of every pair's walk: option K).
    const auto bound = [&](auto set) {
      if constexpr (lb1_known)
        return child_bound_known_lb1_of_set(b, front, back, set, job, forward, ub, scratch, v.bounds[idx]);
      else
        return child_bound(Kind, b, front, back, remain, set, job, forward, ub, scratch);
    };
    int lb;
    if constexpr (Kind == bound_kind::lb1) {
      lb = child_bound(Kind, b, front, back, remain, no_set{}, job, forward, ub, scratch);
    } else if constexpr (SC::max_n <= 64) {
      const std::uint64_t high = t.n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;  // one word up to 32
      std::uint64_t mask = static_cast<std::uint64_t>(v.masks[p]) | (high << 32);
      if constexpr (lb1_known) mask |= std::uint64_t{1} << job;
      lb = bound(mask64_set{mask});
    } else {
      std::uint32_t words[SC::words];
      const int nw = (t.n + 31) >> 5;
      for (int w = 0; w < nw; ++w) words[w] = v.masks[static_cast<std::size_t>(w) * v.stride + p];
      if constexpr (lb1_known) words[job >> 5] |= 1u << (job & 31);
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

// --- The chain's LB2 pass, two children a thread in 16-bit halves (`--lb2-pack`, decision 013,
// option L) ----------------------------------------------------------------------------------------
// Two listed children walk each machine pair together: the rank's job and its three table
// entries are one 16-byte load from the rank table in shared memory (pack_ranks_of, option O),
// once for both children, and the walk's t0 and t1 of the first child sit in the low
// halves of two 32-bit words, the second child's in the high halves; max(t0 + lag, t1) of both is
// one DPX instruction (__viaddmax_u16x2). No half carries into the other: every value a walk
// reaches, kept or masked out, is at most front + back + 2 W + L (W the most work of a machine
// over all jobs, L the largest lag), and a child packs only where its largest front plus its
// largest back is at most 65535 - 2 W - L (v.pack_limit, pack_limit_of); a child that does not is
// bounded by the 32-bit walk. Each child's value is the one-child loop's to the bit: the pairs in
// order, each child leaving at the first pair whose value reaches ub (the thread goes on while
// either walks), then the maximum with LB1. Up to 64 jobs (the masks are one 64-bit word).

// W and L of the comment above, from the host's tables: 65535 - 2 W - L (at most 0: never).
inline int pack_limit_of(const bound_data& data) {
  const bound_view b = data.view();
  long long w = 0, lag = 0;
  for (int k = 0; k < b.inst.m; ++k) {
    long long sum = 0;
    for (int j = 0; j < b.inst.n; ++j) sum += b.inst.time(k, j);
    w = sum > w ? sum : w;
  }
  for (int i = 0; i < b.npairs * b.inst.n; ++i) lag = b.lags[i] > lag ? b.lags[i] : lag;
  const long long limit = 65535 - 2 * w - lag;
  return limit > 0 ? static_cast<int>(limit) : 0;
}

// The packed walk's table: for pair q and rank r of its Johnson order, the rank's job j and its
// three entries p(k, j), lag(j), p(l, j), each in both 16-bit halves (times 0x10001), so that a
// rank step is one 16-byte shared load and no index arithmetic (decision 013, option O). Only
// where pack_limit_of is positive (every entry then fits in 16 bits).
inline std::vector<uint4> pack_ranks_of(const bound_data& data) {
  const bound_view b = data.view();
  const int n = b.inst.n;
  std::vector<uint4> ranks(static_cast<std::size_t>(b.npairs) * static_cast<std::size_t>(n));
  for (int q = 0; q < b.npairs; ++q) {
    const int k = b.pair_first[q], l = b.pair_second[q];
    for (int r = 0; r < n; ++r) {
      const int j = b.johnson[q * n + r];
      const auto twice = [](int x) { return static_cast<unsigned>(x) * 0x10001u; };
      ranks[static_cast<std::size_t>(q) * n + r] = make_uint4(static_cast<unsigned>(j), twice(b.inst.time(k, j)),
                                                              twice(b.lags[q * n + j]), twice(b.inst.time(l, j)));
    }
  }
  return ranks;
}

// A listed child's sides (front, back; parent's parts read from the SoA buffers) and mask.
template <class View, class Job>
__device__ __forceinline__ void listed_child_sides(const View& b, const parts_view& v, std::uint32_t idx, int* front,
                                                   int* back, int* scratch, const int*& child_front,
                                                   const int*& child_back, int& job, bool& forward,
                                                   std::uint64_t& parent_mask) {
  const std::uint32_t d = v.desc[idx];
  const std::uint32_t p = child_parent(d);
  const int first = limit1_of(v.limits[p]) + 1;
  const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
  job = perm[first + child_position(d)];
  forward = !child_backward(d);
  for (int k = 0; k < b.inst.m; ++k) {
    const std::size_t at = static_cast<std::size_t>(k) * v.stride + p;
    front[k] = v.front[at];
    back[k] = v.back[at];
  }
  const std::uint64_t high = b.inst.n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
  parent_mask = static_cast<std::uint64_t>(v.masks[p]) | (high << 32);
  child_sides(b.inst, front, back, job, forward, scratch, child_front, child_back);
}

// A listed child that cannot pack: the one-child pass's 32-bit walk, its bound stored. Out of line,
// so that the packed path's arrays need no address and stay in registers.
template <class View, class Job>
__device__ __noinline__ void listed_child_walk32(const View b, const parts_view v, std::uint32_t idx, int ub) {
  int front[kMaxMachines], back[kMaxMachines], scratch[kMaxMachines];
  const int* cf;
  const int* cb;
  int job;
  bool forward;
  std::uint64_t parent_mask;
  listed_child_sides<View, Job>(b, v, idx, front, back, scratch, cf, cb, job, forward, parent_mask);
  const int lb1 = v.bounds[idx];
  const int pairs = lb2_pairs(b, cf, cb, mask64_set{parent_mask | (std::uint64_t{1} << job)}, ub);
  v.bounds[idx] = pairs > lb1 ? pairs : lb1;
}

// Zero one half of the packed sides (a child absent or not packed): no carry can then cross from
// it into the other half.
template <int M, class View>
__device__ __forceinline__ void clear_half(const View& b, int half, std::uint16_t* F16, std::uint16_t* B16) {
  const int m = M > 0 ? M : b.inst.m;
  PFSP_UNROLL
  for (int k = 0; k < m; ++k) F16[2 * k + half] = B16[2 * k + half] = 0;
}

// One side of a packed child, into the 16-bit halves out[2 k + half] (k < m), from the parent's
// side in the SoA buffers (machine k at parent[k * stride]); returns its largest value. Moved: the
// side `job` passes (front_after going up the machines, back_after going down:
// bound/node_parts.hpp); copied: the parent's side as it is.
template <int M, bool Up, class View>
__device__ __forceinline__ int moved_side16(const View& b, int m, const int* parent, std::size_t stride, int job,
                                            std::uint16_t* out, int half) {
  int t = 0, top = 0;
  const auto step = [&](int k) {
    const int x = parent[k * stride];
    t = (t > x ? t : x) + b.inst.time(k, job);
    out[2 * k + half] = static_cast<std::uint16_t>(t);
    top = t > top ? t : top;
  };
  if constexpr (Up) {
    PFSP_UNROLL
    for (int k = 0; k < m; ++k) step(k);
  } else {
    PFSP_UNROLL
    for (int k = m - 1; k >= 0; --k) step(k);
  }
  return top;
}

template <int M>
__device__ __forceinline__ int copied_side16(int m, const int* parent, std::size_t stride, std::uint16_t* out,
                                             int half) {
  int top = 0;
  PFSP_UNROLL
  for (int k = 0; k < m; ++k) {
    const int x = parent[k * stride];
    out[2 * k + half] = static_cast<std::uint16_t>(x);
    top = x > top ? x : top;
  }
  return top;
}

// A listed child's half of the packed walk's sides: its front and back (the parent's, from the SoA
// buffers, with the direction's side moved past `job`: front_after or back_after of
// bound/node_parts.hpp) stored as 16-bit halves F16[2 k + half], B16[2 k + half], and its
// scheduled set (the parent's and its job). Stores only, every index a compile-time constant
// where M > 0, so the set-up needs no array in registers and no local read-modify-write (a set-up
// through local arrays was half the kernel's stall samples, decision 013 option N). Returns
// false when the child cannot pack (its values could pass 65535): its halves are then zero.
template <int M, class View, class Job>
__device__ __forceinline__ bool pack_listed_child(const View& b, const parts_view& v, std::uint32_t idx, int half,
                                                  std::uint16_t* F16, std::uint16_t* B16, std::uint64_t& mask) {
  const int m = M > 0 ? M : b.inst.m;
  const std::uint32_t d = v.desc[idx];
  const std::uint32_t p = child_parent(d);
  const int first = limit1_of(v.limits[p]) + 1;
  const Job* perm = static_cast<const Job*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
  const int job = perm[first + child_position(d)];
  const std::uint64_t high = b.inst.n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
  mask = (static_cast<std::uint64_t>(v.masks[p]) | (high << 32)) | (std::uint64_t{1} << job);
  const int* front = v.front + p;  // machine k at k * stride
  const int* back = v.back + p;
  int fmax, bmax;
  if (!child_backward(d)) {
    fmax = moved_side16<M, true>(b, m, front, v.stride, job, F16, half);
    bmax = copied_side16<M>(m, back, v.stride, B16, half);
  } else {
    bmax = moved_side16<M, false>(b, m, back, v.stride, job, B16, half);
    fmax = copied_side16<M>(m, front, v.stride, F16, half);
  }
  if (fmax + bmax <= v.pack_limit) return true;
  clear_half<M>(b, half, F16, B16);
  return false;
}

// Pair q's walk (detail::lb2_pair_walk's mask form) for two children at once: F and B their
// packed fronts and backs, mask0 and mask1 their scheduled sets (all ones: a half not walked).
// Returns both values, the first child's in the low half.
__device__ __forceinline__ unsigned packed_word(const std::uint16_t* halves, int k) {
  unsigned w;
  memcpy(&w, __builtin_assume_aligned(halves + 2 * k, 4), sizeof w);  // both halves of machine k: one 32-bit load
  return w;
}

// ranks: the pair's row of the rank table (pack_ranks_of), k and l its machines.
__device__ __forceinline__ unsigned packed_pair_values(const uint4* ranks, int n, int k, int l,
                                                       const std::uint16_t* F16, const std::uint16_t* B16,
                                                       std::uint64_t mask0, std::uint64_t mask1) {
  unsigned t0 = packed_word(F16, k), t1 = packed_word(F16, l);
  for (int r = 0; r < n; ++r) {
    const uint4 e = ranks[r];  // job, p(k, j), lag(j), p(l, j): the entries in both halves
    const int j = static_cast<int>(e.x);
    const unsigned out = (static_cast<unsigned>(mask0 >> j) & 1u) | ((static_cast<unsigned>(mask1 >> j) & 1u) << 16);
    const unsigned keep = ~(out * 0xFFFFu);  // 0xFFFF in each half whose child has j unscheduled
    t0 += e.y & keep;
    const unsigned next = __viaddmax_u16x2(t0, e.z, t1) + e.w;
    t1 = (next & keep) | (t1 & ~keep);
  }
  return __vmaxu2(t0 + packed_word(B16, k), t1 + packed_word(B16, l));
}

// M > 0: the machine count as a compile-time constant (the children's set-up unrolls; decision
// 013, option N). The launch bounds hold it to 40 registers, two blocks of 768 an SM, as the pass
// had before the set-up unrolled (unbounded, the unrolled set-up took up to 194 registers).
// Dynamic shared memory: the instance's tables (when Shared), then the rank table.
template <class SC, bool Compact, bool Shared, int M>
__global__ void __launch_bounds__(768, 2) lb2_pack_kernel(tables_view t, parts_view v) {
  static_assert(SC::max_n <= 64, "one 64-bit mask word a child");
  extern __shared__ int4 smem4[];
  const std::uint32_t C = *v.list_count, threads_needed = (C + 1) / 2;
  if (blockIdx.x * blockDim.x >= threads_needed) return;  // the whole block: before load_tables' __syncthreads
  auto b = load_tables<Shared, kernel_view<Compact, SC>>(t, reinterpret_cast<int*>(smem4));
  if constexpr (M > 0) b.inst.m = M;
  // The rank table after the instance's tables (or alone, when those stay in global memory).
  uint4* ranks = reinterpret_cast<uint4*>(reinterpret_cast<int*>(smem4) + (Shared ? t.shared_ints : 0));
  const int n = t.n;
  for (int r = static_cast<int>(threadIdx.x); r < b.npairs * n; r += static_cast<int>(blockDim.x))
    ranks[r] = v.pack_ranks[r];
  __syncthreads();
  using Job = typename SC::job;
  const int ub = *v.live_ub;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < threads_needed; i += gridDim.x * blockDim.x) {
    const bool two = 2 * i + 1 < C;
    const std::uint32_t idx0 = v.list[2 * i], idx1 = two ? v.list[2 * i + 1] : idx0;
    alignas(16) std::uint16_t F16[2 * kMaxMachines], B16[2 * kMaxMachines];  // machine k: halves 2 k, 2 k + 1
    std::uint64_t mask0, mask1 = ~std::uint64_t{0};
    const bool packed0 = pack_listed_child<M, decltype(b), Job>(b, v, idx0, 0, F16, B16, mask0);
    bool packed1 = false;
    if (two)
      packed1 = pack_listed_child<M, decltype(b), Job>(b, v, idx1, 1, F16, B16, mask1);
    else
      clear_half<M>(b, 1, F16, B16);
    if (!packed0) listed_child_walk32<decltype(b), Job>(b, v, idx0, ub);
    if (two && !packed1) listed_child_walk32<decltype(b), Job>(b, v, idx1, ub);
    if (!packed0 && !packed1) continue;
    // A half not walked: every job masked out, and its bound at ub (the loop then ignores it).
    mask0 = packed0 ? mask0 : ~std::uint64_t{0};
    mask1 = packed1 ? mask1 : ~std::uint64_t{0};
    int lb0 = packed0 ? v.bounds[idx0] : ub, lb1 = packed1 ? v.bounds[idx1] : ub;
    for (int q = 0; q < b.npairs && (lb0 < ub || lb1 < ub); ++q) {
      const unsigned value =
          packed_pair_values(ranks + q * n, n, b.pair_first[q], b.pair_second[q], F16, B16, mask0, mask1);
      const int low = static_cast<int>(value & 0xFFFFu), high = static_cast<int>(value >> 16);
      if (lb0 < ub && low > lb0) lb0 = low;
      if (lb1 < ub && high > lb1) lb1 = high;
    }
    if (packed0) v.bounds[idx0] = lb0;
    if (packed1) v.bounds[idx1] = lb1;
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

using parts_kernel_fn = void (*)(tables_view, parts_view);

// The instantiations one engine uses (loop_kernels.cu).
struct parts_kernels {
  parts_kernel_fn parents = nullptr;  // parent_parts_kernel
  parts_kernel_fn first = nullptr;    // children: LB1, or LB2 for --bound lb2
  parts_kernel_fn second = nullptr;   // lb1-lb2: LB2 on the children LB1 kept (listed); else null
  bool table = false;                 // second is lb2_table_kernel: a warp a parent, no list
  bool pack = false;                  // second is lb2_pack_kernel: two listed children a thread
  bool fused = false;                 // parents is parts_lb1_kernel (LB1 too, tables in shared memory); first null
  bool decides = false;               // parents is parts_lb1_decide_kernel (LB1 alone, fused): no decide kernel
};

// kind: the bound; m: machines (5, 10 and 20 get their own unrolled kernels); size_class_id
// 0/1/2 (small, medium, large); compact tables; shared: whether the tables a kernel needs fit in
// shared memory (per kernel, decided by the caller); lb2_lanes: lanes a child in the chain's LB2
// pass (1, 2, 4, 8 or 16; lb2_lanes_kernel above 1); lb2_table: the chain's LB2 pass from the
// parents' tables (lb2_table_kernel; lb2_lanes then unused).
// lb2_pack: the chain's LB2 pass two children a thread in 16-bit halves (lb2_pack_kernel; the
// small size class only, where the lanes and the table are not asked for).
// lb1_fused: the LB1 pass in the parents kernel (parts_lb1_kernel), where it has an instantiation
// (m 5, 10 or 20, int tables; the caller checks that the processing times fit in shared memory).
parts_kernels select_parts_kernels(bound_kind kind, int m, int size_class_id, bool compact, bool shared_first,
                                   bool shared_second, int lb2_lanes = 1, bool lb2_table = false, bool lb2_pack = false,
                                   bool lb1_fused = false);

}  // namespace pfsp::gpu
