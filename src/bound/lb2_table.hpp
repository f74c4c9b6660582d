// LB2 of a parent's children in O(pairs) each, from a table the parent fills once in
// O(pairs x n): the same values as lb2_pairs over each child (tests/test_lb2_table.cpp).
//
// Pair q's Johnson walk (lb2.hpp) over the unscheduled jobs in the pair's order, from the
// machines' release times fk = front[k], fl = front[l], with a_j = p(k, j), b_j = p(l, j):
//   t0 += a_j;  t1 = max(t1, t0 + lag_j) + b_j
// ends at t0 = fk + A and, unrolled (max-plus),
//   t1 = max(fl + B, fk + max_i T_i),   T_i = sum_{i' <= i} a + lag_i + sum_{i' >= i} b,
// i over the walk's positions, A and B the sums of a and b. A child drops one job r from its
// parent's unscheduled set (forward or backward, the order of the others unchanged): every T_i
// before r loses b_r, every T_i after r loses a_r, T_r goes. So with the parent's largest T
// before r (pm_r) and after r (sm_r), the child's walk ends at
//   t0' = fk' + A - a_r,   t1' = max(fl' + B - b_r, fk' + max(pm_r - b_r, sm_r - a_r))
// (fk', fl': the child's release times) and the pair's value is max(t0' + back[k], t1' + back[l])
// as lb2_pair_walk returns it. Exact integer arithmetic: the same value, not an approximation.
// The table stores T - B (no total needed in its first pass) and the child adds B back.
// Measured on the CPU (the expander, search/expander.hpp): 2.3-3.0x the LB1->LB2 chain's rate.
#pragma once

#include <climits>

#include "base/hd.hpp"
#include "bound/bound_kind.hpp"
#include "bound/lb1.hpp"

namespace pfsp {

// "No position" in pm and sm: far below any value, far from overflow.
inline constexpr int kLb2NoPosition = INT_MIN / 4;

// The parent's table, pair q's part: for each job j the parent has unscheduled, pm[q * n + j] and
// sm[q * n + j], the largest T - B before and after j in the pair's order (kLb2NoPosition where
// none; T - B = sum_{i' <= i} a + lag_i - sum_{i' < i} b needs no total), and sums[2 q] = A,
// sums[2 q + 1] = B. pm, sm: npairs x n ints (entries of scheduled jobs are left undefined);
// sums: 2 x npairs. parent_scheduled(j): j is in the parent's prefix or suffix. Two branchless
// passes over the pair's order (a branch on scheduled jobs mispredicts at mid depth, as the
// walk's skip form did: decision 004).
//
// lb2_parent_pair_into fills pair q's part wherever its caller keeps it: before and after (n ints
// each, indexed by job) and sums (A, B). lb2_parent_pair places it at row q of the parent's table;
// the device loop's table pass (gpu/loop_bound.cuh, --lb2-table) at a warp's row in shared memory.
template <class View, class IsScheduled>
PFSP_HD void lb2_parent_pair_into(View b, IsScheduled parent_scheduled, int q, int* before, int* after, int* sums) {
  const auto inst = b.inst;
  const int n = inst.n;
  const int k = b.pair_first[q], l = b.pair_second[q];
  const auto* order = b.johnson + q * n;
  const auto* lag = b.lags + q * n;
  // Forward: T - B of each position (kept in `after` for the backward pass), the largest before.
  int sum_a = 0, sum_b = 0, largest = kLb2NoPosition;
  for (int r = 0; r < n; ++r) {
    const int j = static_cast<int>(order[r]);
    const int keep = parent_scheduled(j) ? 0 : -1;
    sum_a += static_cast<int>(inst.time(k, j)) & keep;
    const int t = sum_a + static_cast<int>(lag[j]) - sum_b;
    before[j] = largest;
    after[j] = t;
    const int grown = t > largest ? t : largest;
    largest = (grown & keep) | (largest & ~keep);
    sum_b += static_cast<int>(inst.time(l, j)) & keep;
  }
  // Backward: the largest after each position.
  largest = kLb2NoPosition;
  for (int r = n - 1; r >= 0; --r) {
    const int j = static_cast<int>(order[r]);
    const int keep = parent_scheduled(j) ? 0 : -1;
    const int t = after[j];
    after[j] = largest;
    const int grown = t > largest ? t : largest;
    largest = (grown & keep) | (largest & ~keep);
  }
  sums[0] = sum_a;
  sums[1] = sum_b;
}

template <class View, class IsScheduled>
PFSP_HD void lb2_parent_pair(View b, IsScheduled parent_scheduled, int q, int* pm, int* sm, int* sums) {
  const int n = b.inst.n;
  lb2_parent_pair_into(b, parent_scheduled, q, pm + q * n, sm + q * n, sums + 2 * q);
}

// Every pair's part of the table.
template <class View, class IsScheduled>
PFSP_HD void lb2_parent_table(View b, IsScheduled parent_scheduled, int* pm, int* sm, int* sums) {
  for (int q = 0; q < b.npairs; ++q) lb2_parent_pair(b, parent_scheduled, q, pm, sm, sums);
}

// The child without `job` (one of the parent's unscheduled jobs), with sides child_front and
// child_back: max over the pairs in their order, stopping as soon as the value reaches ub, as
// lb2_pairs does (the same value at the same pair). ensure_pair(q) runs before pair q's part of
// the table is read: a caller that fills the table pair by pair, as children first reach them,
// fills only the pairs some child reaches (the early stop leaves most unread at 20x20).
struct lb2_table_filled {
  PFSP_HD void operator()(int) const {}
};
// Pair q's value for the child without `job` (lb2_pair_walk's), from pair q's part wherever it
// is kept (lb2_parent_pair_into's before, after and sums).
template <class View>
PFSP_HD int lb2_pair_from_part(View b, const int* before, const int* after, const int* sums, const int* child_front,
                               const int* child_back, int job, int q) {
  const auto inst = b.inst;
  const int k = b.pair_first[q], l = b.pair_second[q];
  const int a = static_cast<int>(inst.time(k, job)), c = static_cast<int>(inst.time(l, job));
  const int fk = child_front[k], fl = child_front[l];
  const int t0 = fk + sums[0] - a;
  const int drop_before = before[job] - c, drop_after = after[job] - a;
  const int inner = drop_before > drop_after ? drop_before : drop_after;  // T - B: add B back
  const int via_k = fk + sums[1] + inner, via_l = fl + sums[1] - c;
  const int t1 = via_k > via_l ? via_k : via_l;
  const int v0 = t0 + child_back[k], v1 = t1 + child_back[l];
  return v0 > v1 ? v0 : v1;
}

// The same from the parent's table (lb2_parent_pair's rows).
template <class View>
PFSP_HD int lb2_pair_from_table(View b, const int* pm, const int* sm, const int* sums, const int* child_front,
                                const int* child_back, int job, int q) {
  const int n = b.inst.n;
  return lb2_pair_from_part(b, pm + q * n, sm + q * n, sums + 2 * q, child_front, child_back, job, q);
}

template <class View, class EnsurePair = lb2_table_filled>
PFSP_HD int lb2_pairs_from_table(View b, const int* pm, const int* sm, const int* sums, const int* child_front,
                                 const int* child_back, int job, int ub, EnsurePair ensure_pair = {}) {
  int lb = 0;
  for (int q = 0; q < b.npairs; ++q) {
    ensure_pair(q);
    const int v = lb2_pair_from_table(b, pm, sm, sums, child_front, child_back, job, q);
    if (v > lb) {
      lb = v;
      if (lb >= ub) return lb;
    }
  }
  return lb;
}

}  // namespace pfsp
