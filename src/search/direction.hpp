// The choice of direction for a node under the bidirectional branching rules, as a host+device
// function: the CPU expander, the GPU backend's host pruning and the device-resident loop's
// decide kernel all call this one implementation, so they branch the same way on the same
// bounds. fwd/bwd hold the children's bounds by position (limit1+1 .. limit2-1), only for the
// directions that were evaluated.
#pragma once

#include "base/hd.hpp"
#include "search/types.hpp"

namespace pfsp {

struct side_summary {
  int survivors = 0;
  long long sum = 0;
  int min = 0x7fffffff;
};

PFSP_HD side_summary summarize_side(const int* lbs, int count, int ub) {
  side_summary s;
  for (int c = 0; c < count; ++c) {
    s.survivors += lbs[c] < ub ? 1 : 0;
    s.sum += lbs[c];
    s.min = lbs[c] < s.min ? lbs[c] : s.min;
  }
  return s;
}

// MinBranch: fewer surviving children; ties go to the larger sum of bounds (the tighter side),
// then forward.
PFSP_HD bool min_branch_forward(const side_summary& f, const side_summary& b) {
  if (f.survivors != b.survivors) return f.survivors < b.survivors;
  return f.sum >= b.sum;
}

PFSP_HD bool choose_forward_hd(branching rule, const int* fwd, const int* bwd, int count, int ub) {
  switch (rule) {
    case branching::forward:
      return true;
    case branching::backward:
      return false;
    case branching::min_branch:
      return min_branch_forward(summarize_side(fwd, count, ub), summarize_side(bwd, count, ub));
    case branching::min_min: {
      // MinMin: the smallest bound over both sides is where the search would go next; choose the
      // side where it occurs fewer times (fewer weakest children), then MinBranch.
      const side_summary f = summarize_side(fwd, count, ub), b = summarize_side(bwd, count, ub);
      const int lo = f.min < b.min ? f.min : b.min;
      int cf = 0, cb = 0;
      for (int c = 0; c < count; ++c) {
        cf += fwd[c] == lo ? 1 : 0;
        cb += bwd[c] == lo ? 1 : 0;
      }
      if (cf != cb) return cf < cb;
      return min_branch_forward(f, b);
    }
  }
  return true;
}

}  // namespace pfsp
