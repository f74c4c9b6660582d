// LB2's pair walk over a listed order: the parent's unscheduled jobs in the pair's Johnson order,
// written once a parent, walked by each child without its own job. The walk of lb2.hpp steps over
// all n ranks and masks the scheduled jobs out (no-ops at depth d: d + 1 of n steps, each paying
// the mask test); this one steps over the n - d jobs left. The same arithmetic in the same order:
// the same value as detail::lb2_pair_walk, bit for bit (tests/test_lb2_table.cpp checks it pair by
// pair). The device loop's chain takes it with the lists in shared memory (`--lb2-orders`,
// gpu/loop_bound.cuh; docs/decisions/013, option J).
#pragma once

#include "base/hd.hpp"

namespace pfsp {

// Pair q's Johnson order without the jobs the parent has scheduled, into out (at most n entries);
// returns how many (the parent's unscheduled jobs: the same count for every pair).
template <class View, class IsScheduled, class J>
PFSP_HD int lb2_unscheduled_in_order(View b, int q, IsScheduled parent_scheduled, J* out) {
  const int n = b.inst.n;
  const auto* order = b.johnson + q * n;
  int count = 0;
  for (int r = 0; r < n; ++r) {
    const int j = static_cast<int>(order[r]);
    if (!parent_scheduled(j)) out[count++] = static_cast<J>(j);
  }
  return count;
}

// Pair q's value for the child without `job`, from the parent's listed order of pair q (len jobs,
// `job` among them) and the child's front and back: lb2_pair_walk's value. `job` is skipped by
// masks (each lane of a warp meets it at its own step: no divergent branch).
template <class View, class J>
PFSP_HD int lb2_pair_walk_listed(View b, const int* front, const int* back, int q, const J* listed, int len, int job) {
  const auto inst = b.inst;
  const int n = inst.n;
  const int k = b.pair_first[q], l = b.pair_second[q];
  const auto* lag = b.lags + q * n;
  int t0 = front[k], t1 = front[l];
  for (int r = 0; r < len; ++r) {
    const int j = static_cast<int>(listed[r]);
    const int keep = j == job ? 0 : -1;
    t0 += inst.time(k, j) & keep;
    const int ready = t0 + static_cast<int>(lag[j]);
    const int next = (t1 > ready ? t1 : ready) + inst.time(l, j);
    t1 = (next & keep) | (t1 & ~keep);
  }
  const int a = t0 + back[k], c = t1 + back[l];
  return a > c ? a : c;
}

// The chain's LB2 for a listed child: max(lb1, pairs) with the pairs in order from the parent's
// listed orders (pair q's at listed + q * stride), stopping at the first pair whose value reaches
// ub: what child_bound_known_lb1 returns for a child with lb1 < ub (the running maximum starts at
// lb1, below ub, so it reaches ub at the same pair as the pairs' own maximum).
template <class View, class J>
PFSP_HD int lb2_pairs_listed(View b, const int* front, const int* back, const J* listed, int stride, int len, int job,
                             int ub, int lb1) {
  int lb = lb1;
  for (int q = 0; q < b.npairs; ++q) {
    const int v = lb2_pair_walk_listed(b, front, back, q, listed + q * stride, len, job);
    if (v > lb) {
      lb = v;
      if (lb >= ub) return lb;
    }
  }
  return lb;
}

}  // namespace pfsp
