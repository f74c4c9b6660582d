// LB2: Lageweg, Lenstra and Rinnooy Kan's two-machine bound (the papers' LB). For each pair of
// machines (k, l), the unscheduled jobs are sequenced in the pair's Johnson order with time lags
// (optimal for the relaxed two-machine problem with lags), started when k and l are free and
// followed by the suffix. The bound is the largest over all m(m-1)/2 pairs, and never below LB1.
// O(m^2 n / 2) per node: this is the part the papers move to the GPU.
#pragma once

#include "base/hd.hpp"
#include "bound/bound_data.hpp"
#include "bound/bound_kind.hpp"
#include "bound/lb1.hpp"

namespace pfsp {

namespace detail {

// The pair loop, in one of two forms with the same arithmetic, the same early exit and the same
// result (docs/decisions/004-lb2-loop-forms.md):
//   Skip:  `if (is_scheduled(j)) continue;` -- cheapest when the branch is predictable, i.e. on
//          the CPU at nodes where almost every job is unscheduled.
//   masks: a scheduled job adds 0 to t0 and leaves t1 as it was. The CPU mispredicted the skip
//          at about every other job at mid depth (lb2-nobranch: 2.5-4.7x), and on the GPU it
//          was a divergent branch (1.1-1.6x kernel time).
// One pair's value: pair q's Johnson walk over the unscheduled jobs from the node's front,
// then the node's back: max(t0 + back[k], t1 + back[l]).
template <bool Skip, class View, class IsScheduled>
PFSP_HD int lb2_pair_walk(View b, const int* front, const int* back, IsScheduled is_scheduled, int q) {
  const auto inst = b.inst;
  const int n = inst.n;
  const int k = b.pair_first[q], l = b.pair_second[q];
  const auto* order = b.johnson + q * n;
  const auto* lag = b.lags + q * n;
  int t0 = front[k], t1 = front[l];
  for (int r = 0; r < n; ++r) {
    const int j = static_cast<int>(order[r]);
    if constexpr (Skip) {
      if (is_scheduled(j)) continue;
      t0 += inst.time(k, j);
      const int ready = t0 + static_cast<int>(lag[j]);
      t1 = (t1 > ready ? t1 : ready) + inst.time(l, j);
    } else {
      const int keep = is_scheduled(j) ? 0 : -1;
      t0 += static_cast<int>(inst.time(k, j)) & keep;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      // max(t0 + lag, t1) in one DPX instruction (Hopper's VIADDMNMX), the same integer.
      const int next = __viaddmax_s32(t0, static_cast<int>(lag[j]), t1) + static_cast<int>(inst.time(l, j));
#else
      const int ready = t0 + static_cast<int>(lag[j]);
      const int next = (t1 > ready ? t1 : ready) + static_cast<int>(inst.time(l, j));
#endif
      t1 = (next & keep) | (t1 & ~keep);
    }
  }
  const int a = t0 + back[k], c = t1 + back[l];
  return a > c ? a : c;
}

template <bool Skip, class View, class IsScheduled>
PFSP_HD int lb2_pairs_form(View b, const int* front, const int* back, IsScheduled is_scheduled, int ub) {
  int lb = 0;
  for (int q = 0; q < b.npairs; ++q) {
    const int v = lb2_pair_walk<Skip>(b, front, back, is_scheduled, q);
    if (v > lb) {
      lb = v;
      if (lb >= ub) return lb;
    }
  }
  return lb;
}

// The form device code takes (lb2_pairs below).
#if defined(PFSP_DEVICE_LB2_SKIP)
inline constexpr bool kDeviceLb2Skip = true;
#else
inline constexpr bool kDeviceLb2Skip = false;
#endif

}  // namespace detail

// Max over machine pairs. `is_scheduled(j)` says whether job j is in the prefix or suffix.
// Stops early and returns the value reached as soon as it is >= ub (the node is pruned anyway).
// View: any basic_bound_view (deduced); table entries are widened to int as they are read.
// Device code takes the masks (the skip only with -DPFSP_DEVICE_LB2_SKIP=ON, to reproduce the
// measurements taken before commit ac865fa); the host takes the skip at nodes with under 1/8 of
// their jobs scheduled (an O(n) count against the O(m^2 n) loops), the masks otherwise.
template <class View, class IsScheduled>
PFSP_HD int lb2_pairs(View b, const int* front, const int* back, IsScheduled is_scheduled, int ub) {
#if defined(__CUDA_ARCH__)
  return detail::lb2_pairs_form<detail::kDeviceLb2Skip>(b, front, back, is_scheduled, ub);
#else
  const int n = b.inst.n;
  int scheduled = 0;
  for (int j = 0; j < n; ++j) scheduled += is_scheduled(j) ? 1 : 0;
  if (8 * scheduled < n) return detail::lb2_pairs_form<true>(b, front, back, is_scheduled, ub);
  return detail::lb2_pairs_form<false>(b, front, back, is_scheduled, ub);
#endif
}

// Bound of one child from the parent's parts: the definition the GPU kernels call; the CPU
// expander computes the same value with LB2 from the parent's table (lb2_table.hpp, tested
// against this). `forward` appends `job` to the prefix, else puts it before the suffix.
// parent_scheduled(j) covers the parent's prefix and suffix. Scratch: m ints.
//   lb1:     LB1 only.
//   lb2:     max(LB1, pairs), pairs always evaluated.
//   lb1_lb2: LB1; pairs only if LB1 < ub (the papers' chain: LB2 for survivors of LB1).
template <class View, class IsScheduled>
PFSP_HD int child_bound(bound_kind kind, View b, const int* front, const int* back, const int* remain,
                        IsScheduled parent_scheduled, int job, bool forward, int ub, int* scratch) {
  const auto inst = b.inst;
  int lb1;
  if (forward) {
    lb1 = lb1_forward_child(inst, front, back, remain, job);
  } else {
    lb1 = lb1_backward_child(inst, front, back, remain, job, scratch);
  }
  if (kind == bound_kind::lb1 || (kind == bound_kind::lb1_lb2 && lb1 >= ub)) return lb1;
#if defined(__CUDA_ARCH__) && defined(PFSP_DEVICE_LB2_SKIP)
  auto sched = [&](int j) { return j == job || parent_scheduled(j); };
#else
  auto sched = [&](int j) { return (j == job) | parent_scheduled(j); };  // no short circuit, no branch
#endif
  // One call of the pair loop for both directions, on pointers chosen by the direction: two calls
  // would inline two copies of the loop, and a warp holding forward and backward children (LB1's
  // survivors of many parents) would run both, half its lanes idle in each (decision 013, E).
  if (forward) front_after(inst, front, job, scratch);  // backward: scratch holds the child's back
  const int* child_front = forward ? scratch : front;
  const int* child_back = forward ? back : scratch;
  const int pairs = lb2_pairs(b, child_front, child_back, sched, ub);
  return pairs > lb1 ? pairs : lb1;
}

// A child's sides from its parent's: the child's front (forward: `job` appended) or back
// (backward: `job` put before the suffix) into scratch (m ints), the other side the parent's.
template <class Inst>
PFSP_HD void child_sides(Inst inst, const int* front, const int* back, int job, bool forward, int* scratch,
                         const int*& child_front, const int*& child_back) {
  if (forward) {
    front_after(inst, front, job, scratch);
  } else {
    back_after(inst, back, job, scratch);
  }
  child_front = forward ? scratch : front;
  child_back = forward ? back : scratch;
}

// The chain's second pass (decision 013, option G): a child's bound when its LB1 is known (the
// first pass stored it), without recomputing LB1 or reading the parent's `remain`: the child's
// front (forward) or back (backward) into scratch, then the pairs, then max(LB1, pairs), the
// value child_bound(lb2 or lb1_lb2) gives for a child with LB1 < ub.
// child_scheduled: the child's set (the parent's and `job`), where a caller can build it once a
// child instead of testing `job` at every step of every pair's walk (the GPU's mask words);
// child_bound_known_lb1 below takes the parent's.
template <class View, class IsScheduled>
PFSP_HD int child_bound_known_lb1_of_set(View b, const int* front, const int* back, IsScheduled child_scheduled,
                                         int job, bool forward, int ub, int* scratch, int lb1) {
  const int* child_front;
  const int* child_back;
  child_sides(b.inst, front, back, job, forward, scratch, child_front, child_back);
  const int pairs = lb2_pairs(b, child_front, child_back, child_scheduled, ub);
  return pairs > lb1 ? pairs : lb1;
}

template <class View, class IsScheduled>
PFSP_HD int child_bound_known_lb1(View b, const int* front, const int* back, IsScheduled parent_scheduled, int job,
                                  bool forward, int ub, int* scratch, int lb1) {
  auto sched = [&](int j) { return (j == job) | parent_scheduled(j); };
  return child_bound_known_lb1_of_set(b, front, back, sched, job, forward, ub, scratch, lb1);
}

// Bound of a node from its own parts (root, or a pool node evaluated from scratch).
template <class View, class IsScheduled>
PFSP_HD int node_bound(bound_kind kind, View b, const int* front, const int* back, const int* remain,
                       IsScheduled is_scheduled, int ub) {
  const int lb1 = lb1_from_parts(b.inst.m, front, back, remain);
  if (kind == bound_kind::lb1 || (kind == bound_kind::lb1_lb2 && lb1 >= ub)) return lb1;
  const int pairs = lb2_pairs(b, front, back, is_scheduled, ub);
  return pairs > lb1 ? pairs : lb1;
}

}  // namespace pfsp
