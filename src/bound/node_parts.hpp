// The three per-machine vectors every bound is built from, computed once per parent node
// (Gmys, Mezmaz, Melab, Tuyttens, EJOR 2020, "incremental" evaluation):
//   front[k]  earliest time machine k is free after the scheduled prefix perm[0..limit1]
//   back[k]   length of the scheduled suffix perm[limit2..n) from machine k to the end
//   remain[k] total work of the unscheduled jobs perm(limit1..limit2) on machine k
// A node is the papers' partial schedule: prefix ends at limit1 (-1 when empty), suffix starts
// at limit2 (n when empty), unscheduled jobs sit in positions limit1+1 .. limit2-1.
// View / Inst: any basic_bound_view / basic_instance_view (deduced; bound_data.hpp).
#pragma once

#include "base/hd.hpp"
#include "bound/bound_data.hpp"
#include "problem/makespan.hpp"

namespace pfsp {

// front[] for a node. With an empty prefix, machine k cannot start before the smallest head
// (sum of a job's times on machines < k) over all jobs of the instance. Taking all jobs rather
// than the unscheduled ones (as Gmys et al. do) makes front[] independent of the unscheduled set,
// so a child's bound computed incrementally from its parent equals its bound from scratch; it is
// still exact at leaves (the first job starts on machine k at its own head). O(n m).
template <class View, class Job>
PFSP_HD void schedule_front(View b, const Job* perm, int limit1, int limit2, int* front) {
  (void)limit2;
  const auto inst = b.inst;
  if (limit1 >= 0) {
    completion_times(inst, perm, limit1 + 1, front);
    return;
  }
  PFSP_UNROLL
  for (int k = 0; k < inst.m; ++k) front[k] = b.heads[k * inst.n];
  for (int j = 1; j < inst.n; ++j) {
    PFSP_UNROLL
    for (int k = 0; k < inst.m; ++k) {
      const int h = b.heads[k * inst.n + j];
      front[k] = h < front[k] ? h : front[k];
    }
  }
}

// back[] for a node: the suffix scheduled backwards (the mirrored problem). With an empty
// suffix, the smallest tail over all jobs (see schedule_front). O(n m).
template <class View, class Job>
PFSP_HD void schedule_back(View b, const Job* perm, int limit1, int limit2, int* back) {
  (void)limit1;
  const auto inst = b.inst;
  const int m = inst.m;
  if (limit2 < inst.n) {
    PFSP_UNROLL
    for (int k = 0; k < m; ++k) back[k] = 0;
    for (int i = inst.n - 1; i >= limit2; --i) {
      const int j = perm[i];
      int t = back[m - 1] + inst.time(m - 1, j);
      back[m - 1] = t;
      PFSP_UNROLL
      for (int k = m - 2; k >= 0; --k) {
        t = (t > back[k] ? t : back[k]) + inst.time(k, j);
        back[k] = t;
      }
    }
    return;
  }
  PFSP_UNROLL
  for (int k = 0; k < m; ++k) back[k] = b.tails[k * inst.n];
  for (int j = 1; j < inst.n; ++j) {
    PFSP_UNROLL
    for (int k = 0; k < m; ++k) {
      const int t = b.tails[k * inst.n + j];
      back[k] = t < back[k] ? t : back[k];
    }
  }
}

template <class Inst, class Job>
PFSP_HD void sum_unscheduled(Inst inst, const Job* perm, int limit1, int limit2, int* remain) {
  PFSP_UNROLL
  for (int k = 0; k < inst.m; ++k) remain[k] = 0;
  for (int i = limit1 + 1; i < limit2; ++i) {
    const int j = perm[i];
    PFSP_UNROLL
    for (int k = 0; k < inst.m; ++k) remain[k] += inst.time(k, j);
  }
}

template <class View, class Job>
PFSP_HD void node_parts(View b, const Job* perm, int limit1, int limit2, int* front, int* back, int* remain) {
  schedule_front(b, perm, limit1, limit2, front);
  schedule_back(b, perm, limit1, limit2, back);
  sum_unscheduled(b.inst, perm, limit1, limit2, remain);
}

// Child's front[] when `job` is appended to the prefix. Exact also when the parent's prefix was
// empty, since then front[] holds the smallest heads, no larger than the job's own. O(m).
template <class Inst>
PFSP_HD void front_after(Inst inst, const int* front, int job, int* child_front) {
  int t = 0;
  PFSP_UNROLL
  for (int k = 0; k < inst.m; ++k) {
    t = (t > front[k] ? t : front[k]) + inst.time(k, job);
    child_front[k] = t;
  }
}

// Child's back[] when `job` is put in front of the suffix (backward branching). O(m).
template <class Inst>
PFSP_HD void back_after(Inst inst, const int* back, int job, int* child_back) {
  int t = 0;
  PFSP_UNROLL
  for (int k = inst.m - 1; k >= 0; --k) {
    t = (t > back[k] ? t : back[k]) + inst.time(k, job);
    child_back[k] = t;
  }
}

}  // namespace pfsp
