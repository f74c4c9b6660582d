#include "search/expander.hpp"

#include <limits>

namespace pfsp {

std::vector<double> subtree_weights(int n) {
  std::vector<double> w(static_cast<std::size_t>(n) + 1);
  w[0] = 1.0;
  for (int d = 1; d <= n; ++d) w[d] = w[d - 1] / static_cast<double>(n - d + 1);
  return w;
}

namespace {

struct side_summary {
  int survivors = 0;
  long long sum = 0;
  int min = std::numeric_limits<int>::max();
};

side_summary summarize(const int* lbs, int count, int ub) {
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
bool min_branch_forward(const side_summary& f, const side_summary& b) {
  if (f.survivors != b.survivors) return f.survivors < b.survivors;
  return f.sum >= b.sum;
}

}  // namespace

bool choose_forward(branching rule, const int* fwd, const int* bwd, int count, int ub) {
  switch (rule) {
    case branching::forward:
      return true;
    case branching::backward:
      return false;
    case branching::min_branch:
      return min_branch_forward(summarize(fwd, count, ub), summarize(bwd, count, ub));
    case branching::min_min: {
      // MinMin: the smallest bound over both sides is where the search would go next; choose the
      // side where it occurs fewer times (fewer weakest children), then MinBranch.
      const side_summary f = summarize(fwd, count, ub), b = summarize(bwd, count, ub);
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
