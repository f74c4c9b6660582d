// LB2 over machine-pair subsets (--lb2-pairs: bound/bound_data.hpp, bound/pair_learning.hpp):
// every subset's bound is a lower bound on the best completion of the node (brute force over
// the unscheduled jobs), never above the all-pairs bound nor below LB1; the learned subset is
// deterministic and made of distinct valid pairs; whole solves with each subset prove the
// brute-force optimum on the sequential and multi-threaded solvers.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <set>

#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/pair_learning.hpp"
#include "cpu/parallel.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

// Best makespan over all orders of perm(limit1 .. limit2).
int best_completion(const instance& inst, std::vector<job_t> perm, int limit1, int limit2) {
  std::sort(perm.begin() + limit1 + 1, perm.begin() + limit2);
  int best = INT_MAX;
  do {
    best = std::min(best, naive_makespan(inst, perm));
  } while (std::next_permutation(perm.begin() + limit1 + 1, perm.begin() + limit2));
  return best;
}

int bound_of(const bound_data& data, bound_kind kind, const std::vector<job_t>& perm, int limit1, int limit2) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  std::vector<int> front(m), back(m), remain(m);
  node_parts(b, perm.data(), limit1, limit2, front.data(), back.data(), remain.data());
  std::vector<char> sched(n, 0);
  for (int i = 0; i < n; ++i) sched[perm[i]] = (i <= limit1 || i >= limit2) ? 1 : 0;
  return node_bound(
      kind, b, front.data(), back.data(), remain.data(), [&](int j) { return sched[j] != 0; }, INT_MAX);
}

std::vector<std::vector<std::pair<int, int>>> subsets_of(const instance& inst, std::mt19937& rng) {
  std::vector<std::vector<std::pair<int, int>>> out{bound_data::adjacent_pairs(inst.m),
                                                    learn_pairs(inst, 2, INT_MAX, 2000).pairs};
  std::vector<std::pair<int, int>> all;
  for (int k = 0; k < inst.m; ++k)
    for (int l = k + 1; l < inst.m; ++l) all.emplace_back(k, l);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::max<std::size_t>(1, all.size() / 2));
  out.push_back(all);
  return out;
}

TEST(lb2_pairs, every_subset_is_a_lower_bound_at_random_nodes) {
  std::mt19937 rng(4242);
  int checked = 0;
  for (int t = 0; t < 24; ++t) {
    const int n = 4 + t % 4, m = 2 + t % 5;
    const instance inst = random_instance(n, m, 900 + static_cast<std::uint32_t>(t), 1, t % 3 ? 99 : 9);
    const bound_data full(inst);
    for (const auto& pairs : subsets_of(inst, rng)) {
      const bound_data sub(inst, pairs);
      ASSERT_EQ(sub.view().npairs, static_cast<int>(pairs.size()));
      for (int r = 0; r < 30; ++r) {
        std::vector<job_t> perm(n);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        const int limit1 = static_cast<int>(rng() % static_cast<unsigned>(n)) - 1;
        const int limit2 = limit1 + 1 + static_cast<int>(rng() % static_cast<unsigned>(n - limit1));
        const int best = best_completion(inst, perm, limit1, limit2);
        const int lb1 = bound_of(full, bound_kind::lb1, perm, limit1, limit2);
        const int all = bound_of(full, bound_kind::lb2, perm, limit1, limit2);
        for (bound_kind kind : {bound_kind::lb2, bound_kind::lb1_lb2}) {
          const int v = bound_of(sub, kind, perm, limit1, limit2);
          ASSERT_LE(v, best) << "n " << n << " m " << m << " limits " << limit1 << "," << limit2;
          ASSERT_LE(v, all);
          ASSERT_GE(v, lb1);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 4000);
}

TEST(lb2_pairs, adjacent_and_learned_subsets) {
  EXPECT_EQ(bound_data::adjacent_pairs(5), (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
  const instance inst = generate_taillard(12, 6, 873654221);
  const pair_learning a = learn_pairs(inst, 4, INT_MAX, 5000), b = learn_pairs(inst, 4, INT_MAX, 5000);
  EXPECT_EQ(a.pairs, b.pairs);  // deterministic
  ASSERT_EQ(a.pairs.size(), 4u);
  EXPECT_GT(a.evaluations, 0u);
  EXPECT_TRUE(std::is_sorted(a.wins.rbegin(), a.wins.rend()));  // most frequent first
  std::set<std::pair<int, int>> seen(a.pairs.begin(), a.pairs.end());
  EXPECT_EQ(seen.size(), 4u);
  for (const auto& [k, l] : a.pairs) {
    EXPECT_GE(k, 0);
    EXPECT_LT(k, l);
    EXPECT_LT(l, 6);
  }
  const std::vector<std::pair<int, int>> reversed{{2, 1}}, outside{{0, 6}};
  EXPECT_THROW({ const bound_data d(inst, reversed); }, input_error);
  EXPECT_THROW({ const bound_data d(inst, outside); }, input_error);
}

TEST(lb2_pairs, solves_prove_the_brute_force_optimum_with_every_subset) {
  std::mt19937 rng(77);
  for (int t = 0; t < 6; ++t) {
    const instance inst = random_instance(7 + t % 2, 3 + t % 4, 3100 + static_cast<std::uint32_t>(t), 1, 40);
    const int optimum = brute_force_optimum(inst);
    for (const auto& pairs : subsets_of(inst, rng)) {
      const bound_data data(inst, pairs);
      for (bound_kind kind : {bound_kind::lb2, bound_kind::lb1_lb2}) {
        solve_options opt;
        opt.bound = kind;
        opt.threads = 2;
        const solve_result s = solve_sequential(data, opt, incumbent());
        const solve_result p = solve_parallel(data, opt, incumbent());
        ASSERT_EQ(s.status, solve_status::optimal);
        EXPECT_EQ(s.makespan, optimum);
        EXPECT_EQ(naive_makespan(inst, s.schedule), optimum);
        EXPECT_EQ(p.makespan, optimum);
      }
    }
  }
}

}  // namespace
}  // namespace pfsp::test
