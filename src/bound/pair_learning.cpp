#include "bound/pair_learning.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <numeric>

#include "bound/bound_data.hpp"
#include "bound/lb1.hpp"
#include "bound/node_parts.hpp"

namespace pfsp {

namespace {

// The pair attaining LB2's maximum for a node's parts (no early exit); -1 when LB2 is no larger
// than LB1 (no pair gave the bound).
template <class IsScheduled>
int argmax_pair(const bound_view& b, const int* front, const int* back, IsScheduled sched, int lb1, int& value) {
  const int n = b.inst.n;
  int best = -1;
  value = lb1;
  for (int q = 0; q < b.npairs; ++q) {
    const int k = b.pair_first[q], l = b.pair_second[q];
    int t0 = front[k], t1 = front[l];
    for (int r = 0; r < n; ++r) {
      const int j = b.johnson[q * n + r];
      if (sched(j)) continue;
      t0 += b.inst.time(k, j);
      const int ready = t0 + b.lags[q * n + j];
      t1 = std::max(t1, ready) + b.inst.time(l, j);
    }
    const int v = std::max(t0 + back[k], t1 + back[l]);
    if (v > value) {
      value = v;
      best = q;
    }
  }
  return best;
}

}  // namespace

pair_learning learn_pairs(const instance& inst, int k, int ub, std::uint64_t budget) {
  const auto t0 = std::chrono::steady_clock::now();
  const bound_data all(inst);
  const bound_view b = all.view();
  const int n = inst.n, m = inst.m, np = b.npairs;
  k = std::clamp(k, 1, std::max(1, np));
  std::vector<std::uint64_t> wins(static_cast<std::size_t>(np), 0);
  pair_learning out;
  // Depth-first, forward branching, children in increasing bound order (the best first).
  struct node {
    std::vector<int> perm;
    int limit1;
  };
  std::vector<node> stack;
  {
    node root{std::vector<int>(static_cast<std::size_t>(n)), -1};
    std::iota(root.perm.begin(), root.perm.end(), 0);
    stack.push_back(std::move(root));
  }
  std::vector<int> front(static_cast<std::size_t>(m)), back(static_cast<std::size_t>(m)),
      remain(static_cast<std::size_t>(m)), child_front(static_cast<std::size_t>(m));
  std::vector<char> scheduled(static_cast<std::size_t>(n));
  while (!stack.empty() && out.evaluations < budget) {
    node cur = std::move(stack.back());
    stack.pop_back();
    const int limit1 = cur.limit1, limit2 = n;
    if (limit1 + 1 >= n - 1) continue;  // children would be leaves: nothing to learn
    node_parts(b, cur.perm.data(), limit1, limit2, front.data(), back.data(), remain.data());
    for (int i = 0; i < n; ++i) scheduled[static_cast<std::size_t>(cur.perm[static_cast<std::size_t>(i)])] = i <= limit1;
    std::vector<std::pair<int, int>> kids;  // (bound, position)
    for (int pos = limit1 + 1; pos < n; ++pos) {
      const int job = cur.perm[static_cast<std::size_t>(pos)];
      const int lb1 = lb1_forward_child(b.inst, front.data(), back.data(), remain.data(), job);
      if (lb1 >= ub) continue;
      front_after(b.inst, front.data(), job, child_front.data());
      auto sched = [&](int j) { return j == job || scheduled[static_cast<std::size_t>(j)] != 0; };
      int value = 0;
      const int q = argmax_pair(b, child_front.data(), back.data(), sched, lb1, value);
      ++out.evaluations;
      if (q >= 0) ++wins[static_cast<std::size_t>(q)];
      if (value < ub) kids.emplace_back(value, pos);
    }
    std::sort(kids.begin(), kids.end(), [](auto x, auto y) { return x > y; });  // best popped first
    for (const auto& [lb, pos] : kids) {
      node c{cur.perm, limit1 + 1};
      std::swap(c.perm[static_cast<std::size_t>(limit1 + 1)], c.perm[static_cast<std::size_t>(pos)]);
      stack.push_back(std::move(c));
    }
  }
  std::vector<int> order(static_cast<std::size_t>(np));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return wins[static_cast<std::size_t>(x)] > wins[static_cast<std::size_t>(y)];
  });
  for (int i = 0; i < k; ++i) {
    const int q = order[static_cast<std::size_t>(i)];
    out.pairs.emplace_back(b.pair_first[q], b.pair_second[q]);
    out.wins.push_back(wins[static_cast<std::size_t>(q)]);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pfsp
