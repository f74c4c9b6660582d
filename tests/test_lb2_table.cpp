// LB2 from the parent's table (bound/lb2_table.hpp) against the pair walk (bound/lb2.hpp): for
// random instances, pair subsets and nodes (random prefix and suffix), every child in both
// directions gets the same value for every pair, and from lb2_pairs_from_table as from lb2_pairs
// on the child, at
// ub = infinity and at thresholds that stop the pair loop early (then the same value at the same
// pair); on the int tables and on the compact ones. Then the solvers that use it (the expander):
// brute-force optima and the same trees as before on Taillard instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/compact_tables.hpp"
#include "bound/lb2.hpp"
#include "bound/lb2_table.hpp"
#include "bound/pair_learning.hpp"
#include "problem/taillard.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

// Every child of random nodes of `b` (n jobs): table values equal the walk's, and the number of
// children checked.
template <class View>
int expect_table_equals_walk(View b, std::mt19937& rng, int nodes, const std::string& what) {
  const int n = b.inst.n, m = b.inst.m;
  std::vector<int> pm(static_cast<std::size_t>(b.npairs) * n), sm(pm.size()), sums(2 * b.npairs);
  std::vector<int> front(m), back(m), remain(m), child(m);
  std::vector<job_t> perm(n);
  int checked = 0;
  for (int t = 0; t < nodes; ++t) {
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const int prefix = static_cast<int>(rng() % n), suffix = static_cast<int>(rng() % (n - prefix));
    const int limit1 = prefix - 1, limit2 = n - suffix;
    if (limit2 - limit1 < 2) continue;  // no child
    node_parts(b, perm.data(), limit1, limit2, front.data(), back.data(), remain.data());
    std::vector<char> sched(n, 0);
    for (int i = 0; i < n; ++i) sched[perm[i]] = (i <= limit1 || i >= limit2) ? 1 : 0;
    auto parent_scheduled = [&](int j) { return sched[j] != 0; };
    lb2_parent_table(b, parent_scheduled, pm.data(), sm.data(), sums.data());
    for (int i = limit1 + 1; i < limit2; ++i) {
      const int job = perm[i];
      auto child_scheduled = [&](int j) { return j == job || sched[j] != 0; };
      for (const bool forward : {true, false}) {
        const int* cf = front.data();
        const int* cb = back.data();
        if (forward) {
          front_after(b.inst, front.data(), job, child.data());
          cf = child.data();
        } else {
          back_after(b.inst, back.data(), job, child.data());
          cb = child.data();
        }
        for (int q = 0; q < b.npairs; ++q) {  // pair by pair (pair learning's argmax reads them)
          const int walk = detail::lb2_pair_walk<false>(b, cf, cb, child_scheduled, q);
          const int table = lb2_pair_from_table(b, pm.data(), sm.data(), sums.data(), cf, cb, job, q);
          if (walk != table) {
            ADD_FAILURE() << what << ": node " << t << " job " << job << (forward ? " forward" : " backward")
                          << " pair " << q << ": walk " << walk << ", table " << table;
            return checked;
          }
        }
        const int full = lb2_pairs(b, cf, cb, child_scheduled, INT_MAX);
        for (const int ub : {INT_MAX, full + 1, full, full - 1, full / 2, 1}) {
          const int walk = lb2_pairs(b, cf, cb, child_scheduled, ub);
          const int table = lb2_pairs_from_table(b, pm.data(), sm.data(), sums.data(), cf, cb, job, ub);
          if (walk != table) {
            ADD_FAILURE() << what << ": node " << t << " (limit1 " << limit1 << ", limit2 " << limit2 << ") job " << job
                          << (forward ? " forward" : " backward") << " ub " << ub << ": walk " << walk << ", table "
                          << table;
            return checked;
          }
        }
        ++checked;
      }
    }
  }
  return checked;
}

TEST(Lb2Table, EveryChildEqualsThePairWalk) {
  std::mt19937 rng(7);
  int checked = 0;
  for (const auto& [n, m] : {std::pair{2, 2}, {3, 5}, {7, 3}, {12, 8}, {20, 20}, {31, 6}, {50, 20}}) {
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      const instance inst = random_instance(n, m, 100 * seed + static_cast<std::uint32_t>(n), 1, 99);
      const std::string what = "n " + std::to_string(n) + " m " + std::to_string(m) + " seed " + std::to_string(seed);
      const bound_data all(inst);
      checked += expect_table_equals_walk(all.view(), rng, 20, what + ", all pairs");
      if (m >= 3) {
        const bound_data some(inst, {{0, m - 1}, {1, m - 1}, {0, 1}});
        checked += expect_table_equals_walk(some.view(), rng, 20, what + ", three pairs");
      }
      const compact_tables compact(all);
      checked += expect_table_equals_walk(compact.view<std::uint8_t>(), rng, 10, what + ", compact tables");
    }
  }
  EXPECT_GT(checked, 5000);
}

// Taillard's instances with their learned pairs (the solvers' default on the GPU): the same.
TEST(Lb2Table, TaillardWithLearnedPairsEqualsThePairWalk) {
  std::mt19937 rng(11);
  for (const char* name : {"ta021", "ta056", "ta081"}) {
    const instance inst = taillard_instance(name);
    const bound_data data(inst, learn_pairs(inst, inst.m - 1, inst.known->ub).pairs);
    EXPECT_GT(expect_table_equals_walk(data.view(), rng, 10, name), 100);
  }
}

// The sequential solver (whose expander takes LB2 from the table) proves brute-force optima
// with lb2 and lb1-lb2, every branching rule.
TEST(Lb2Table, SolversProveTheBruteForceOptimum) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const instance inst = random_instance(7 + static_cast<int>(seed % 3), 3 + static_cast<int>(seed % 4), seed, 1, 30);
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (bound_kind kind : {bound_kind::lb2, bound_kind::lb1_lb2})
      for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min}) {
        solve_options opt;
        opt.bound = kind;
        opt.branch = rule;
        const solve_result r = solve_sequential(data, opt, incumbent());
        EXPECT_EQ(r.status, solve_status::optimal);
        EXPECT_EQ(r.makespan, optimum) << "seed " << seed;
        EXPECT_EQ(naive_makespan(inst, r.schedule), optimum);
      }
  }
}

}  // namespace
}  // namespace pfsp::test
