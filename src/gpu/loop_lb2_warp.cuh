// The LB1->LB2 chain's second pass with one warp per parent (`--loop-bound warp-lb2`, issue 23,
// docs/decisions/013-device-loop-roofline.md): LB2 for every child of the parent that LB1 kept,
// in O(pairs) a child instead of O(pairs x n).
//
// Why it is exact. For a machine pair (k, l), lb2_pairs walks the pair's Johnson order and, per
// unscheduled job j, maps the state (t0, t1) to (t0 + a, max(t1 + b, t0 + a + lag + b)) with
// a = p(k, j), b = p(l, j). Such a map is a max-plus lower-triangular matrix, written here as the
// triple (A, B, C): (t0, t1) -> (t0 + A, max(t1 + B, t0 + C)); a scheduled job is the identity
// (0, 0, -inf). Maps compose exactly in integers (then(x, y): A = x.A + y.A, B = x.B + y.B,
// C = max(x.C + y.B, x.A + y.C)), so the whole walk of a child is the composition of its parent's
// walk before the child's job and after it (the child's job is the one more scheduled job). The
// warp computes, for each pair, every rank's exclusive prefix and suffix composition by two
// warp scans (n <= 64: two adjacent ranks a lane), and then each child's pair value from its start state
// (its front at k and l, front_after for a forward child) and its back (back_after for a backward
// child) in O(1). The pairs are visited in the same order with the same early exit (a child whose
// value reached ub takes no later pair), so every bound equals child_bound's bit for bit,
// including the values of pruned children that the branching rules sum. The warp leaves the
// pair loop when every child of the parent is done.
//
// Applies where n <= 64 (size_small) and m <= kWarpLb2MaxMachines; loop_engine falls back to the
// list-based second kernel (loop_bound.cuh) elsewhere.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/bound_kernels.cuh"
#include "gpu/loop_bound.cuh"

namespace pfsp::gpu {

inline constexpr int kWarpLb2MaxJobs = 64;
inline constexpr int kWarpLb2MaxMachines = 20;
inline constexpr int kWarpLb2Warps = 4;  // warps a block

// One warp's shared memory for its parent.
struct warp_lb2_scratch {
  int child_front[kWarpLb2MaxJobs * kWarpLb2MaxMachines];  // [position * M + k]: front_after
  int child_back[kWarpLb2MaxJobs * kWarpLb2MaxMachines];   // [position * M + k]: back_after
  int lb[2 * kWarpLb2MaxJobs];  // [dir * 64 + position]: the pairs' running max (>= ub: done)
  int front[kWarpLb2MaxMachines];
  int back[kWarpLb2MaxMachines];
  std::uint8_t position[kWarpLb2MaxJobs];  // [job]: its position among the parent's unscheduled jobs
};

// Dynamic shared memory of the kernel: the tables (when shared) and the warps' scratch.
inline std::size_t warp_lb2_smem(std::size_t table_bytes) {
  return table_bytes + kWarpLb2Warps * sizeof(warp_lb2_scratch);
}

namespace maxplus {

constexpr int kNeg = -(1 << 28);  // -inf: far below any makespan, no overflow over 64 compositions

struct map {
  int a, b, c;  // (t0, t1) -> (t0 + a, max(t1 + b, t0 + c))
};

__device__ __forceinline__ map identity() { return {0, 0, kNeg}; }

// x first, then y.
__device__ __forceinline__ map then(const map& x, const map& y) {
  const int c1 = x.c + y.b, c2 = x.a + y.c;
  return {x.a + y.a, x.b + y.b, c1 > c2 ? c1 : c2};
}

__device__ __forceinline__ map shfl_up(const map& x, int d) {
  return {__shfl_up_sync(0xffffffffu, x.a, d), __shfl_up_sync(0xffffffffu, x.b, d),
          __shfl_up_sync(0xffffffffu, x.c, d)};
}
__device__ __forceinline__ map shfl_down(const map& x, int d) {
  return {__shfl_down_sync(0xffffffffu, x.a, d), __shfl_down_sync(0xffffffffu, x.b, d),
          __shfl_down_sync(0xffffffffu, x.c, d)};
}
__device__ __forceinline__ map shfl(const map& x, int lane) {
  return {__shfl_sync(0xffffffffu, x.a, lane), __shfl_sync(0xffffffffu, x.b, lane),
          __shfl_sync(0xffffffffu, x.c, lane)};
}

// Exclusive prefix (ranks before) and suffix (ranks after) compositions of the 64 ranks, lane L
// holding ranks 2L (e0) and 2L + 1 (e1): the lane's two composed, one warp scan each way over the
// lanes (5 steps, 3 shuffles a step), then each rank's own before/after.
struct around {
  map before0, after0, before1, after1;
};

__device__ __forceinline__ around scan(const map& e0, const map& e1, int lane) {
  const map both = then(e0, e1);
  map p = both, s = both;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const map u = shfl_up(p, d), w = shfl_down(s, d);
    if (lane >= d) p = then(u, p);
    if (lane + d < 32) s = then(s, w);
  }
  map before = shfl_up(p, 1), after = shfl_down(s, 1);
  if (lane == 0) before = identity();
  if (lane == 31) after = identity();
  around r;
  r.before0 = before;
  r.after0 = then(e1, after);
  r.before1 = then(before, e0);
  r.after1 = after;
  return r;
}

// One pair's value for a child: start (s0, s1) at machines k and l, the pair's walk w, then the
// backs (b0, b1); the child's running max lb takes it (the caller skips a child whose lb reached ub:
// lb2_pairs' early exit).
__device__ __forceinline__ void take(int& lb, const map& w, int s0, int s1, int b0, int b1) {
  const int t0 = s0 + w.a;
  const int x = s1 + w.b, y = s0 + w.c;
  const int t1 = x > y ? x : y;
  const int u = t0 + b0, v = t1 + b1;
  const int val = u > v ? u : v;
  if (val > lb) lb = val;
}

}  // namespace maxplus

// One warp a popped parent (grid-stride); the parent's children at offsets[p] ..: forward
// positions first, then backward (write_children). Reads the LB1 bounds the first kernel wrote
// and overwrites those below ub with max(LB1, pairs), as child_bound(lb1_lb2) gives them.
template <class View, bool Shared>
__global__ void __launch_bounds__(kWarpLb2Warps * 32) warp_lb2_kernel(tables_view t, parts_view v) {
  extern __shared__ int4 smem4[];
  int* smem = reinterpret_cast<int*>(smem4);
  const std::uint32_t P = *v.live_parents;
  const unsigned warp = threadIdx.x >> 5;
  if (blockIdx.x * kWarpLb2Warps >= P) return;  // the whole block: before load_tables' __syncthreads
  const View b = load_tables<Shared, View>(t, smem);
  warp_lb2_scratch& w = reinterpret_cast<warp_lb2_scratch*>(smem + (Shared ? t.shared_ints : 0))[warp];
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int ub = *v.live_ub;
  const int n = t.n, m = t.m;
  const bool has_f = v.dirs == 2 || !v.backward_only, has_b = v.dirs == 2 || v.backward_only;
  for (std::uint32_t p = blockIdx.x * kWarpLb2Warps + warp; p < P; p += gridDim.x * kWarpLb2Warps) {
    const std::uint32_t lim = v.limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const int count = limit2 - limit1 - 1;
    const std::uint32_t first_f = v.offsets[p], first_b = first_f + (v.dirs == 2 ? static_cast<unsigned>(count) : 0u);
    bool any = false;
    for (int c = lane; c < count; c += 32)
      any |= (has_f && v.bounds[first_f + c] < ub) || (has_b && v.bounds[first_b + c] < ub);
    if (!__any_sync(0xffffffffu, any)) continue;  // LB1 pruned every child (warp-uniform)
    for (int k = lane; k < m; k += 32) {
      w.front[k] = v.front[static_cast<std::size_t>(k) * v.stride + p];
      w.back[k] = v.back[static_cast<std::size_t>(k) * v.stride + p];
    }
    const std::uint8_t* perm = static_cast<const std::uint8_t*>(v.perms) + static_cast<std::size_t>(p) * static_cast<unsigned>(v.ld);
    __syncwarp();
    for (int c = lane; c < count; c += 32) {
      const int job = perm[limit1 + 1 + c];
      w.position[job] = static_cast<std::uint8_t>(c);
      const bool f = has_f && v.bounds[first_f + c] < ub, bk = has_b && v.bounds[first_b + c] < ub;
      if (f) front_after(b.inst, w.front, job, w.child_front + c * kWarpLb2MaxMachines);
      if (bk) back_after(b.inst, w.back, job, w.child_back + c * kWarpLb2MaxMachines);
      w.lb[c] = f ? 0 : ub;  // ub: no pair is taken (LB1 decided, or no such child)
      w.lb[kWarpLb2MaxJobs + c] = bk ? 0 : ub;
    }
    const std::uint64_t high = n > 32 ? v.masks[static_cast<std::size_t>(v.stride) + p] : 0u;
    const std::uint64_t scheduled = static_cast<std::uint64_t>(v.masks[p]) | (high << 32);
    __syncwarp();
    for (int q = 0; q < b.npairs; ++q) {
      // Every child done (its value reached ub, or LB1 decided it): the rest of the pairs change
      // nothing (lb2_pairs' early exit, taken by the whole parent at once).
      bool open = false;
      for (int c = lane; c < count; c += 32) open |= (w.lb[c] < ub) | (w.lb[kWarpLb2MaxJobs + c] < ub);
      if (!__any_sync(0xffffffffu, open)) break;
      const int k = b.pair_first[q], l = b.pair_second[q];
      const auto* order = b.johnson + q * n;
      const auto* lag = b.lags + q * n;
      int job[2] = {-1, -1};
      maxplus::map e[2] = {maxplus::identity(), maxplus::identity()};
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = 2 * lane + h;
        if (r < n) {
          const int j = static_cast<int>(order[r]);
          if (!((scheduled >> j) & 1u)) {
            const int a = static_cast<int>(b.inst.time(k, j)), c = static_cast<int>(b.inst.time(l, j));
            e[h] = {a, c, a + static_cast<int>(lag[j]) + c};
            job[h] = j;
          }
        }
      }
      const maxplus::around s = maxplus::scan(e[0], e[1], lane);
      const maxplus::map walk[2] = {maxplus::then(s.before0, s.after0), maxplus::then(s.before1, s.after1)};
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (job[h] < 0) continue;
        const int c = w.position[job[h]];
        const int* cf = w.child_front + c * kWarpLb2MaxMachines;
        const int* cb = w.child_back + c * kWarpLb2MaxMachines;
        if (w.lb[c] < ub) maxplus::take(w.lb[c], walk[h], cf[k], cf[l], w.back[k], w.back[l]);
        int& lbb = w.lb[kWarpLb2MaxJobs + c];
        if (lbb < ub) maxplus::take(lbb, walk[h], w.front[k], w.front[l], cb[k], cb[l]);
      }
      __syncwarp();
    }
    for (int c = lane; c < count; c += 32) {
      if (has_f) {
        const int lb1 = v.bounds[first_f + c];
        if (lb1 < ub) v.bounds[first_f + c] = w.lb[c] > lb1 ? w.lb[c] : lb1;
      }
      if (has_b) {
        const int lb1 = v.bounds[first_b + c];
        if (lb1 < ub) v.bounds[first_b + c] = w.lb[kWarpLb2MaxJobs + c] > lb1 ? w.lb[kWarpLb2MaxJobs + c] : lb1;
      }
    }
    __syncwarp();
  }
}

// The instantiation for the tables' layout and placement (loop_kernels.cu); null where the
// instance is outside the kernel's sizes.
parts_kernel_fn select_warp_lb2_kernel(int n, int m, bool compact, bool shared);

}  // namespace pfsp::gpu
