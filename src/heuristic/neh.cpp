#include "heuristic/neh.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

#include "problem/error.hpp"
#include "problem/makespan.hpp"

namespace pfsp {

neh_result neh(const instance& inst) {
  const int n = inst.n, m = inst.m;
  std::vector<int> total(n, 0);
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j) total[j] += inst.time(k, j);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return total[a] > total[b]; });

  std::vector<int> seq{order[0]};
  seq.reserve(n);
  // e[i][k]: completion of the job at position i on machine k (i = 0 is a zero row);
  // q[i][k]: time from start of position i on machine k to the end (i = L is a zero row);
  // f[i][k]: completion of the new job inserted at position i.
  std::vector<int> e(static_cast<std::size_t>(n + 1) * (m + 1)), q(e.size()), f(e.size());
  auto at = [m](std::vector<int>& v, int i, int k) -> int& { return v[static_cast<std::size_t>(i) * (m + 1) + k]; };
  for (int step = 1; step < n; ++step) {
    const int job = order[step];
    const int L = static_cast<int>(seq.size());
    for (int k = 0; k <= m; ++k) at(e, 0, k) = 0;
    for (int i = 1; i <= L; ++i) {
      at(e, i, 0) = 0;
      for (int k = 1; k <= m; ++k) at(e, i, k) = std::max(at(e, i - 1, k), at(e, i, k - 1)) + inst.time(k - 1, seq[i - 1]);
    }
    for (int k = 0; k <= m; ++k) at(q, L + 1, k) = 0;
    for (int i = L; i >= 1; --i) {
      at(q, i, m) = 0;
      for (int k = m - 1; k >= 0; --k) at(q, i, k) = std::max(at(q, i + 1, k), at(q, i, k + 1)) + inst.time(k, seq[i - 1]);
    }
    int best = INT_MAX, best_pos = 0;
    for (int i = 1; i <= L + 1; ++i) {  // insert before position i (1-based)
      at(f, i, 0) = 0;
      int cmax = 0;
      for (int k = 1; k <= m; ++k) {
        at(f, i, k) = std::max(at(f, i, k - 1), at(e, i - 1, k)) + inst.time(k - 1, job);
        cmax = std::max(cmax, at(f, i, k) + at(q, i, k - 1));
      }
      if (cmax < best) {
        best = cmax;
        best_pos = i - 1;
      }
    }
    seq.insert(seq.begin() + best_pos, job);
  }
  return {seq, evaluate_schedule(inst, seq)};
}

int evaluate_schedule(const instance& inst, const std::vector<int>& schedule) {
  if (static_cast<int>(schedule.size()) != inst.n)
    throw error("schedule has " + std::to_string(schedule.size()) + " jobs, expected " + std::to_string(inst.n));
  std::vector<char> seen(inst.n, 0);
  for (int j : schedule) {
    if (j < 0 || j >= inst.n || seen[j]) throw error("schedule is not a permutation of the jobs");
    seen[j] = 1;
  }
  std::vector<int> front(inst.m);
  return makespan(inst.view(), schedule.data(), front.data());
}

}  // namespace pfsp
