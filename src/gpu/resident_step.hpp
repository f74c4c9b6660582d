// One parent's step of the device-resident loop (loop_iteration.cuh), host+device so that the CPU
// tests check it against the expander: choose the direction (search/direction.hpp), prune the
// chosen children at ub, report leaves, and rank the surviving inner children by decreasing
// bound (ties by position), the order in which the expander pushes them onto its stack, so the
// smallest bound ends on top and is popped first.
#pragma once

#include "base/hd.hpp"
#include "search/direction.hpp"

namespace pfsp::gpu {

struct parent_step {
  bool forward = true;
  int survivors = 0;       // inner children kept (ranked)
  int pruned = 0;          // chosen-direction children with bound >= ub
  int leaves = 0;          // complete schedules with makespan < ub (count == 1 only)
  int leaf_makespan = 0;   // of the leaf, when leaves == 1
  int leaf_position = -1;  // its position among the unscheduled (0 when count == 1)
};

// The step without the ranks: direction, pruned children, the leaf. bounds: the parent's
// children in natural order (pool_layout.hpp): count forward children then count backward ones
// when dirs == 2, else count children of the one direction.
PFSP_HD parent_step decide_parent_counts(branching rule, const int* bounds, int count, int dirs, int ub) {
  parent_step s;
  const int* fwd = bounds;
  const int* bwd = dirs == 2 ? bounds + count : bounds;
  s.forward = dirs == 2 ? choose_forward_hd(rule, fwd, bwd, count, ub) : rule != branching::backward;
  const int* lbs = bounds + (dirs == 2 && !s.forward ? count : 0);
  for (int c = 0; c < count; ++c) {
    const int lb = lbs[c];
    if (lb >= ub) {
      ++s.pruned;
    } else if (count == 1) {
      ++s.leaves;
      s.leaf_makespan = lb;
      s.leaf_position = c;
    } else {
      ++s.survivors;
    }
  }
  return s;
}

// One direction's children seen one at a time (the thread that bounds them: the LB1 parents
// kernel that decides, parts_lb1_decide_kernel): summarize_side's sums, and how many children
// have the smallest bound, for MinMin's tie count. No child's bound is read back.
struct side_tally {
  side_summary s;
  int at_min = 0;  // children whose bound equals s.min
  PFSP_HD void add(int lb, int ub) {
    s.survivors += lb < ub ? 1 : 0;
    s.sum += lb;
    if (lb < s.min) {
      s.min = lb;
      at_min = 1;
    } else if (lb == s.min) {
      ++at_min;
    }
  }
};

// decide_parent_counts from the tallies (fwd; bwd where dirs == 2): the same direction (the
// sums are choose_forward_hd's, and MinMin's count of the smallest bound on a side is at_min when
// that side holds it, else 0), pruned children and leaf (when count == 1 its bound is the side's
// min). leaf_position is 0 for the leaf; survivors as decide_parent_counts.
PFSP_HD parent_step decide_parent_tallied(branching rule, const side_tally& fwd, const side_tally& bwd, int count,
                                          int dirs) {
  parent_step st;
  if (dirs == 2) {
    switch (rule) {
      case branching::forward:
        st.forward = true;
        break;
      case branching::backward:
        st.forward = false;
        break;
      case branching::min_branch:
        st.forward = min_branch_forward(fwd.s, bwd.s);
        break;
      case branching::min_min: {
        const int lo = fwd.s.min < bwd.s.min ? fwd.s.min : bwd.s.min;
        const int cf = fwd.s.min == lo ? fwd.at_min : 0, cb = bwd.s.min == lo ? bwd.at_min : 0;
        st.forward = cf != cb ? cf < cb : min_branch_forward(fwd.s, bwd.s);
        break;
      }
    }
  } else {
    st.forward = rule != branching::backward;
  }
  const side_tally& chosen = dirs == 2 && !st.forward ? bwd : fwd;
  st.pruned = count - chosen.s.survivors;
  if (count == 1 && st.pruned == 0) {
    st.leaves = 1;
    st.leaf_makespan = chosen.s.min;
    st.leaf_position = 0;
  } else if (count > 1) {
    st.survivors = chosen.s.survivors;
  }
  return st;
}

// Rank of the kept child c (lbs[c] < ub, count > 1) among the kept children of the chosen
// direction lbs[0 .. count): those with a larger bound, or an equal bound and a smaller
// position, come before it. O(count): the device loop computes it in each child's thread.
PFSP_HD int child_rank(const int* lbs, int count, int c, int ub) {
  const int lb = lbs[c];
  int r = 0;
  for (int o = 0; o < count; ++o) {
    const int v = lbs[o];
    r += (v < ub && (v > lb || (v == lb && o < c))) ? 1 : 0;
  }
  return r;
}

// The whole step. rank (same layout as bounds): rank of each kept child among the kept (0 =
// largest bound), -1 for every other child.
PFSP_HD parent_step decide_parent(branching rule, const int* bounds, int count, int dirs, int ub, int* rank) {
  const parent_step s = decide_parent_counts(rule, bounds, count, dirs, ub);
  const int chosen = dirs == 2 && !s.forward ? count : 0;
  for (int i = 0; i < count * dirs; ++i) rank[i] = -1;
  if (count > 1)
    for (int c = 0; c < count; ++c)
      if (bounds[chosen + c] < ub) rank[chosen + c] = child_rank(bounds + chosen, count, c, ub);
  return s;
}

}  // namespace pfsp::gpu
