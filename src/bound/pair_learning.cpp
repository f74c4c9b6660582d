#include "bound/pair_learning.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <numeric>
#include <optional>
#include <thread>

#include "bound/bound_data.hpp"
#include "bound/lb1.hpp"
#include "bound/lb2_table.hpp"
#include "bound/node_parts.hpp"

namespace pfsp {

namespace {

// The pair attaining LB2's maximum for the child without `job` (no early exit), from its
// parent's table (lb2_table.hpp: the walk's values, O(1) a pair); -1 when LB2 is no larger than
// LB1 (no pair gave the bound). The first pair of the largest value, as the walk over the pairs
// in order found it before the table (the same learned pairs, faster: every child walks every
// pair here).
int argmax_pair(const bound_view& b, const int* pm, const int* sm, const int* sums, const int* child_front,
                const int* child_back, int job, int lb1, int& value) {
  int best = -1;
  value = lb1;
  for (int q = 0; q < b.npairs; ++q) {
    const int v = lb2_pair_from_table(b, pm, sm, sums, child_front, child_back, job, q);
    if (v > value) {
      value = v;
      best = q;
    }
  }
  return best;
}

// One chunk of the learning search: depth-first from the root children at positions p with
// p % chunks == chunk, bounding at most `budget` children; adds to wins.
std::uint64_t learn_chunk(const bound_view& b, int ub, int chunk, int chunks, std::uint64_t budget,
                          std::vector<std::uint64_t>& wins) {
  const int n = b.inst.n, m = b.inst.m;
  std::uint64_t evaluations = 0;
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
  const std::size_t table = static_cast<std::size_t>(b.npairs) * static_cast<std::size_t>(n);
  std::vector<int> pm(table), sm(table), sums(2 * static_cast<std::size_t>(b.npairs));
  while (!stack.empty() && evaluations < budget) {
    node cur = std::move(stack.back());
    stack.pop_back();
    const int limit1 = cur.limit1, limit2 = n;
    if (limit1 + 1 >= n - 1) continue;  // children would be leaves: nothing to learn
    node_parts(b, cur.perm.data(), limit1, limit2, front.data(), back.data(), remain.data());
    for (int i = 0; i < n; ++i)
      scheduled[static_cast<std::size_t>(cur.perm[static_cast<std::size_t>(i)])] = i <= limit1;
    std::vector<std::pair<int, int>> kids;  // (bound, position)
    bool table_filled = false;
    for (int pos = limit1 + 1; pos < n; ++pos) {
      if (limit1 < 0 && pos % chunks != chunk) continue;  // another chunk's root child
      const int job = cur.perm[static_cast<std::size_t>(pos)];
      const int lb1 = lb1_forward_child(b.inst, front.data(), back.data(), remain.data(), job);
      if (lb1 >= ub) continue;
      if (!table_filled) {
        lb2_parent_table(
            b, [&](int j) { return scheduled[static_cast<std::size_t>(j)] != 0; }, pm.data(), sm.data(), sums.data());
        table_filled = true;
      }
      front_after(b.inst, front.data(), job, child_front.data());
      int value = 0;
      const int q = argmax_pair(b, pm.data(), sm.data(), sums.data(), child_front.data(), back.data(), job, lb1, value);
      ++evaluations;
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
  return evaluations;
}

}  // namespace

std::uint64_t scaled_learning_budget(std::uint64_t budget, int n, int pairs) {
  const double full = 50.0 * 190.0, cost = static_cast<double>(n) * static_cast<double>(std::max(1, pairs));
  if (cost <= full) return budget;
  return std::max<std::uint64_t>(kLearnChunks, static_cast<std::uint64_t>(static_cast<double>(budget) * full / cost));
}

pair_learning learn_pairs(const instance& inst, int k, int ub, std::uint64_t budget, const bound_data* all) {
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<bound_data> own;
  const bound_view b = (all ? *all : own.emplace(inst)).view();
  const int np = b.npairs;
  if (np == 0) return {};  // one machine: no pair to learn (LB2 is then LB1's)
  budget = scaled_learning_budget(budget, inst.n, np);
  k = std::clamp(k, 1, std::max(1, np));
  pair_learning out;
  // kLearnChunks searches over disjoint root subtrees, each with its share of the budget, on as
  // many threads: the same pairs on any machine (the chunks do not depend on the core count).
  std::vector<std::vector<std::uint64_t>> wins(kLearnChunks, std::vector<std::uint64_t>(static_cast<std::size_t>(np)));
  std::vector<std::uint64_t> evals(kLearnChunks, 0);
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < kLearnChunks; ++c)
      threads.emplace_back([&, c] {
        evals[static_cast<std::size_t>(c)] = learn_chunk(
            b, ub, c, kLearnChunks, (budget + kLearnChunks - 1) / kLearnChunks, wins[static_cast<std::size_t>(c)]);
      });
    for (auto& t : threads) t.join();
  }
  std::vector<std::uint64_t> total(static_cast<std::size_t>(np), 0);
  for (int c = 0; c < kLearnChunks; ++c) {
    out.evaluations += evals[static_cast<std::size_t>(c)];
    for (int q = 0; q < np; ++q)
      total[static_cast<std::size_t>(q)] += wins[static_cast<std::size_t>(c)][static_cast<std::size_t>(q)];
  }
  std::vector<int> order(static_cast<std::size_t>(np));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return total[static_cast<std::size_t>(x)] > total[static_cast<std::size_t>(y)];
  });
  for (int i = 0; i < k; ++i) {
    const int q = order[static_cast<std::size_t>(i)];
    out.pairs.emplace_back(b.pair_first[q], b.pair_second[q]);
    out.wins.push_back(total[static_cast<std::size_t>(q)]);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pfsp
