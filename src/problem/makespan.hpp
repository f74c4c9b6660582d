// Makespan of a complete or partial permutation: the recurrence C(j,k) = max(C(j-1,k), C(j,k-1)) + p(k,j).
#pragma once

#include "base/hd.hpp"
#include "problem/instance.hpp"

namespace pfsp {

// Completion times of perm[0..len) on every machine, written to front[0..m). O(len * m).
// Inst: any basic_instance_view (deduced).
template <class Inst, class Job>
PFSP_HD void completion_times(Inst inst, const Job* perm, int len, int* front) {
  PFSP_UNROLL
  for (int k = 0; k < inst.m; ++k) front[k] = 0;
  for (int i = 0; i < len; ++i) {
    const int j = perm[i];
    int t = front[0] + inst.time(0, j);
    front[0] = t;
    PFSP_UNROLL
    for (int k = 1; k < inst.m; ++k) {
      t = (t > front[k] ? t : front[k]) + inst.time(k, j);
      front[k] = t;
    }
  }
}

// Makespan of the full permutation perm[0..n). Uses a caller-provided scratch of m ints.
template <class Inst, class Job>
PFSP_HD int makespan(Inst inst, const Job* perm, int* scratch) {
  completion_times(inst, perm, inst.n, scratch);
  return scratch[inst.m - 1];
}

}  // namespace pfsp
