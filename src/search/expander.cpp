#include "search/expander.hpp"

#include <limits>

#include "search/direction.hpp"

namespace pfsp {

std::vector<double> subtree_weights(int n) {
  std::vector<double> w(static_cast<std::size_t>(n) + 1);
  w[0] = 1.0;
  for (int d = 1; d <= n; ++d) w[d] = w[d - 1] / static_cast<double>(n - d + 1);
  return w;
}

bool choose_forward(branching rule, const int* fwd, const int* bwd, int count, int ub) {
  return choose_forward_hd(rule, fwd, bwd, count, ub);
}

}  // namespace pfsp
