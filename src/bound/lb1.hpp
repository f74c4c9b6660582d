// LB1, the one-machine bound: machine k cannot finish before it is free (front), has processed
// all remaining work (remain) and the suffix has run from k to the end (back). Chained across
// machines, since machine k cannot start its remaining work before machine k-1 could have
// finished its own: end_k = max(end_{k-1}, front_k + remain_k), bound = max_k end_k + back_k.
// (The chained form of Gmys et al. 2020.) O(m) from the parts.
#pragma once

#include "base/hd.hpp"
#include "bound/node_parts.hpp"

namespace pfsp {

PFSP_HD int lb1_from_parts(int m, const int* front, const int* back, const int* remain) {
  int tmp = 0, lb = 0;
  PFSP_UNROLL
  for (int k = 0; k < m; ++k) {
    const int e = front[k] + remain[k];
    tmp = tmp > e ? tmp : e;
    const int v = tmp + back[k];
    lb = v > lb ? v : lb;
  }
  return lb;
}

// LB1 of the child that appends `job` to the parent's prefix, from the parent's parts in O(m)
// without materialising the child. Equals the makespan when the child is a complete schedule.
// Inst: any basic_instance_view (deduced).
template <class Inst>
PFSP_HD int lb1_forward_child(Inst inst, const int* front, const int* back, const int* remain, int job) {
  int f = 0, tmp = 0, lb = 0;
  PFSP_UNROLL
  for (int k = 0; k < inst.m; ++k) {
    const int p = inst.time(k, job);
    f = (f > front[k] ? f : front[k]) + p;  // child's front[k]
    const int e = f + remain[k] - p;
    tmp = tmp > e ? tmp : e;
    const int v = tmp + back[k];
    lb = v > lb ? v : lb;
  }
  return lb;
}

// LB1 of the child that puts `job` in front of the parent's suffix. Writes the child's back[]
// to child_back (m ints), which LB2 reuses. O(m).
template <class Inst>
PFSP_HD int lb1_backward_child(Inst inst, const int* front, const int* back, const int* remain, int job,
                               int* child_back) {
  back_after(inst, back, job, child_back);
  int tmp = 0, lb = 0;
  PFSP_UNROLL
  for (int k = 0; k < inst.m; ++k) {
    const int e = front[k] + remain[k] - inst.time(k, job);
    tmp = tmp > e ? tmp : e;
    const int v = tmp + child_back[k];
    lb = v > lb ? v : lb;
  }
  return lb;
}

}  // namespace pfsp
