#include "heuristic/neh.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

#include "base/error.hpp"
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
  insertion_workspace ws;
  for (int step = 1; step < n; ++step) {
    const int job = order[step];
    seq.insert(seq.begin() + best_insertion(inst, seq, job, ws).first, job);
  }
  return {seq, evaluate_schedule(inst, seq)};
}

std::pair<int, int> best_insertion(const instance& inst, const std::vector<int>& seq, int job,
                                   insertion_workspace& ws) {
  const int m = inst.m;
  const int L = static_cast<int>(seq.size());
  const std::size_t size = static_cast<std::size_t>(L + 2) * (m + 1);
  if (ws.e.size() < size) {
    ws.e.resize(size);
    ws.q.resize(size);
    ws.f.resize(size);
  }
  // e(i, k): completion of the job at position i on machine k (row 0 and column 0 are zeros);
  // q(i, k): time from the start of position i on machine k to the end (row L+1 is zeros);
  // f(i, k): completion of `job` inserted before position i.
  auto at = [m](std::vector<int>& v, int i, int k) -> int& { return v[static_cast<std::size_t>(i) * (m + 1) + k]; };
  for (int k = 0; k <= m; ++k) at(ws.e, 0, k) = 0;
  for (int i = 1; i <= L; ++i) {
    at(ws.e, i, 0) = 0;
    for (int k = 1; k <= m; ++k)
      at(ws.e, i, k) = std::max(at(ws.e, i - 1, k), at(ws.e, i, k - 1)) + inst.time(k - 1, seq[i - 1]);
  }
  for (int k = 0; k <= m; ++k) at(ws.q, L + 1, k) = 0;
  for (int i = L; i >= 1; --i) {
    at(ws.q, i, m) = 0;
    for (int k = m - 1; k >= 0; --k)
      at(ws.q, i, k) = std::max(at(ws.q, i + 1, k), at(ws.q, i, k + 1)) + inst.time(k, seq[i - 1]);
  }
  int best = INT_MAX, best_pos = 0;
  for (int i = 1; i <= L + 1; ++i) {
    at(ws.f, i, 0) = 0;
    int cmax = 0;
    for (int k = 1; k <= m; ++k) {
      at(ws.f, i, k) = std::max(at(ws.f, i, k - 1), at(ws.e, i - 1, k)) + inst.time(k - 1, job);
      cmax = std::max(cmax, at(ws.f, i, k) + at(ws.q, i, k - 1));
    }
    if (cmax < best) {
      best = cmax;
      best_pos = i - 1;
    }
  }
  return {best_pos, best};
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
