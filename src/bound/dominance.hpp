// Adjacent-swap dominance between partial schedules over the same prefix set: a forward child
// P0·a·j (the parent's prefix P0·a, then job j) is pruned when P0·j·a is at least as good on every
// machine, front(P0·j·a) <= front(P0·a·j) componentwise, since every completion of the first is
// then matched by the same completion of the second (max-plus recurrences are monotone).
//
// Ties. Pruning both members of an equal pair would lose them both, so equal fronts are broken by
// a total order on complete schedules: F(S) = (sum of the front after position n, after n-1, ...,
// after 1), compared from position n down, then the jobs read from the last position. A pruned
// P0·a·j always has a witness S' with makespan <= and F(S') < F(S); the F-smallest optimal
// schedule is never pruned, so the search stays exact. Only the prefix side is used: a swap in
// the suffix lowers the mirrored order, not F, and the two together could prune in a cycle.
// (Swap dominance of this kind: Ignall and Schrage 1965, Potts 1980 for the flow shop; the total
// order for ties is ours.) Cost O(m) a child from the parent's front and its prefix's front
// without its last job.
#pragma once

#include "base/hd.hpp"

namespace pfsp {

// The bound a dominated child gets: above every threshold, so every path prunes it, and the same
// on the CPU and the GPU, so the branching rules' sums and minima (search/direction.hpp) agree.
inline constexpr int kDominatedBound = 1 << 30;

// front_a: front(P0·a), the parent's prefix (exact completion times, limit1 >= 0);
// front_0: front(P0), the prefix without its last job a (zeros when P0 is empty); j: the child's
// job. True when the child P0·a·j is dominated by P0·j·a. Inst: any basic_instance_view.
template <class Inst>
PFSP_HD bool swap_dominated(Inst inst, const int* front_a, const int* front_0, int a, int j) {
  int fa = 0, g = 0, fj = 0;  // running fronts of P0·a·j, P0·j, P0·j·a on machine k
  long long sum_a = 0, sum_j = 0;
  bool equal = true;
  for (int k = 0; k < inst.m; ++k) {
    const int pj = inst.time(k, j);
    fa = (fa > front_a[k] ? fa : front_a[k]) + pj;
    g = (g > front_0[k] ? g : front_0[k]) + pj;
    fj = (fj > g ? fj : g) + inst.time(k, a);
    if (fj > fa) return false;
    equal = equal && fj == fa;
    sum_a += front_a[k];
    sum_j += g;
  }
  if (!equal) return true;
  return sum_j < sum_a || (sum_j == sum_a && a < j);
}

}  // namespace pfsp
