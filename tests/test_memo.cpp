// Memo dominance (search/memo_table.hpp) against brute force:
//   - the table: it prunes only over the same prefix and suffix sets, only when the stored node is
//     no worse on every machine at both ends, and a better node replaces a worse one;
//   - the rule: whenever one node over the same sets is no worse than another on every machine,
//     its best completion is no worse (every pair of nodes over the same sets of small instances);
//   - the search: with memo tables of several sizes (one bucket: replacement on every store) every
//     CPU solver proves the brute-force optimum under each branching rule, also from an upper bound
//     one above it (it must then find an optimal schedule), on instances with many ties;
//   - the rule prunes: the searches above see it fire (a test that cannot fail proves nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/node_parts.hpp"
#include "cpu/parallel.hpp"
#include "problem/makespan.hpp"
#include "search/memo_table.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

// A node of n = 6 jobs: prefix perm[0..limit1], suffix perm[limit2..n).
struct memo_node {
  std::vector<job_t> perm;
  int limit1, limit2;
};

TEST(memo_table, prunes_only_over_the_same_sets_and_a_no_worse_front_and_back) {
  memo_table t(6, 2, 1 << 12);
  memo_probe p = t.probe();
  const memo_node a{{0, 1, 2, 3, 4, 5}, 1, 4};  // prefix {0, 1}, suffix {4, 5}
  const memo_node b{{1, 0, 3, 2, 5, 4}, 1, 4};  // the same sets, other orders
  const memo_node c{{0, 2, 1, 3, 4, 5}, 1, 4};  // prefix {0, 2}: other sets
  const int front[2] = {10, 20}, back[2] = {15, 5};
  EXPECT_FALSE(t.dominated(p, a.perm.data(), a.limit1, a.limit2, front, back));
  t.store(p, front, back);
  const int worse_front[2] = {10, 21}, better_front[2] = {9, 20}, mixed_back[2] = {14, 6};
  EXPECT_TRUE(t.dominated(p, b.perm.data(), b.limit1, b.limit2, front, back)) << "equal: the stored node was expanded";
  EXPECT_TRUE(t.dominated(p, b.perm.data(), b.limit1, b.limit2, worse_front, back));
  EXPECT_FALSE(t.dominated(p, c.perm.data(), c.limit1, c.limit2, worse_front, back)) << "other sets";
  EXPECT_FALSE(t.dominated(p, b.perm.data(), b.limit1, b.limit2, better_front, back));
  EXPECT_FALSE(t.dominated(p, b.perm.data(), b.limit1, b.limit2, front, mixed_back)) << "better on one machine";
  // The suffix side counts: the same jobs split the other way are other sets.
  const memo_node d{{0, 1, 4, 3, 2, 5}, 1, 4};  // prefix {0, 1}, suffix {2, 5}
  EXPECT_FALSE(t.dominated(p, d.perm.data(), d.limit1, d.limit2, worse_front, back));
  // A better node over the same sets replaces the stored one.
  EXPECT_FALSE(t.dominated(p, b.perm.data(), b.limit1, b.limit2, better_front, back));
  t.store(p, better_front, back);
  const int between[2] = {9, 20};
  EXPECT_TRUE(t.dominated(p, a.perm.data(), a.limit1, a.limit2, between, back));
}

// Best makespan over every completion of (prefix, middle in any order, suffix). O(|middle|! m n).
int best_completion(const instance& inst, const std::vector<int>& s, int limit1, int limit2) {
  std::vector<int> middle(s.begin() + limit1 + 1, s.begin() + limit2);
  std::sort(middle.begin(), middle.end());
  int best = INT_MAX;
  std::vector<int> full = s;
  do {
    std::copy(middle.begin(), middle.end(), full.begin() + limit1 + 1);
    best = std::min(best, naive_makespan(inst, full));
  } while (std::next_permutation(middle.begin(), middle.end()));
  return best;
}

// Every pair of nodes over the same prefix set {0..p-1} and suffix set {n-s..n-1} (all orders
// of each): when one is no worse on every machine, its best completion is no worse.
void check_rule(const instance& inst, int p, int s, const std::string& what, long& pairs) {
  const int n = inst.n, m = inst.m;
  const bound_data data(inst);
  struct node {
    std::vector<int> order;
    std::vector<int> front, back;
    int best;
  };
  std::vector<node> nodes;
  std::vector<int> pre(p), suf(s), mid;
  for (int i = 0; i < p; ++i) pre[i] = i;
  for (int i = 0; i < s; ++i) suf[i] = n - s + i;
  for (int j = p; j < n - s; ++j) mid.push_back(j);
  do {
    std::sort(suf.begin(), suf.end());
    do {
      node x;
      x.order = pre;
      x.order.insert(x.order.end(), mid.begin(), mid.end());
      x.order.insert(x.order.end(), suf.begin(), suf.end());
      std::vector<job_t> perm(x.order.begin(), x.order.end());
      x.front.resize(m);
      x.back.resize(m);
      std::vector<int> remain(m);
      node_parts(data.view(), perm.data(), p - 1, n - s, x.front.data(), x.back.data(), remain.data());
      x.best = best_completion(inst, x.order, p - 1, n - s);
      nodes.push_back(std::move(x));
    } while (std::next_permutation(suf.begin(), suf.end()));
  } while (std::next_permutation(pre.begin(), pre.end()));
  for (const node& a : nodes)
    for (const node& b : nodes) {
      std::vector<job_t> pa(a.order.begin(), a.order.end()), pb(b.order.begin(), b.order.end());
      memo_table one(n, m, 1 << 10);
      memo_probe probe = one.probe();
      one.dominated(probe, pa.data(), p - 1, n - s, a.front.data(), a.back.data());
      one.store(probe, a.front.data(), a.back.data());
      if (!one.dominated(probe, pb.data(), p - 1, n - s, b.front.data(), b.back.data())) continue;
      ++pairs;
      EXPECT_LE(a.best, b.best) << what << ": a node the table prunes completes better than the one it points at";
    }
}

TEST(memo_rule, a_pruned_node_never_completes_better_than_the_stored_one) {
  long pairs = 0;
  for (const sample& c : small_samples(6, 7, 2, 4, 4, 4400))
    for (const auto& [p, s] : {std::pair{2, 0}, std::pair{3, 0}, std::pair{2, 2}, std::pair{0, 3}, std::pair{3, 1}})
      check_rule(c.inst, p, s, c.what, pairs);
  EXPECT_GT(pairs, 1000) << "the rule should fire on many pairs";
}

// One solve with memo tables of `bytes` in all; cpu or cpu-mt (3 threads).
solve_result solve_with_memo(const bound_data& data, solve_options o, const std::string& backend, std::size_t bytes) {
  o.memo_bytes = bytes;
  if (backend == "cpu") return solve_sequential(data, o, incumbent());
  o.threads = 3;
  return solve_parallel(data, o, incumbent());
}

TEST(memo_search, every_cpu_solver_proves_the_brute_force_optimum) {
  std::uint64_t memo_pruned = 0;
  for (const sample& c : small_samples(5, 8, 2, 5, 2, 4500)) {
    const bound_data data(c.inst);
    const int optimum = brute_force_optimum(c.inst);
    for (const std::string backend : {"cpu", "cpu-mt"})
      for (const std::size_t bytes : {std::size_t{1}, std::size_t{1} << 20})
        for (bound_kind bound : {bound_kind::lb1, bound_kind::lb1_lb2})
          for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min})
            for (int slack : {0, 1}) {
              solve_options o;
              o.bound = bound;
              o.branch = rule;
              o.dominance = true;  // ignored beside the memo (expander::enable_memo)
              o.initial_ub = optimum + slack;
              const solve_result r = solve_with_memo(data, o, backend, bytes);
              const std::string what = c.what + " " + backend + " table " + std::to_string(bytes) + " B " +
                                       std::string(to_string(bound)) + " " + std::string(to_string(rule)) +
                                       " ub optimum+" + std::to_string(slack);
              expect_proves_optimum(c.inst, r, optimum, slack, what);
              EXPECT_EQ(r.stats.dominated, 0u) << what << ": the swap rule ran beside the memo";
              memo_pruned += r.stats.memo_pruned;
            }
  }
  EXPECT_GT(memo_pruned, 100u) << "the memo never fired: these checks proved nothing";
}

// ta014 from its optimum, LB1, forward branching: the memo removes whole subtrees (a static
// direction, so the tree with the memo is a part of the tree without).
TEST(memo_search, cuts_the_tree_of_ta014_at_the_same_optimum) {
  const instance inst = taillard_instance("ta014");
  const bound_data data(inst);
  solve_options o;
  o.bound = bound_kind::lb1;
  o.branch = branching::forward;
  o.initial_ub = inst.known->ub;
  const solve_result off = solve_sequential(data, o, incumbent());
  o.memo_bytes = std::size_t{16} << 20;
  const solve_result on = solve_sequential(data, o, incumbent());
  EXPECT_EQ(off.lower_bound, inst.known->ub);
  EXPECT_EQ(on.lower_bound, inst.known->ub);
  EXPECT_LT(on.stats.branched * 4, off.stats.branched * 3);  // 1.6x fewer: 1,597,112 against 2,573,653
  EXPECT_GT(on.stats.memo_pruned, 0u);
}

}  // namespace
}  // namespace pfsp::test
