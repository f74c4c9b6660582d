// The adjacent-swap dominance rule (bound/dominance.hpp) against brute force:
//   - the rule: wherever it prunes a child P0·a·j with suffix Q, the best completion of P0·j·a
//     with Q is no worse (every (prefix, suffix) node of small instances, ties included);
//   - the search: with the rule on, every CPU solver proves the brute-force optimum, also from an
//     upper bound one above it (it must then find an optimal schedule, which a rule pruning every
//     optimum would lose), on instances with many ties (times 1..3 and 50..60);
//   - the rule prunes: the checks above see it fire (a test that cannot fail proves nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/dominance.hpp"
#include "cpu/parallel.hpp"
#include "problem/makespan.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

// Best makespan over every completion of (prefix, middle in any order, suffix). O(|middle|! m n).
int best_completion(const instance& inst, std::vector<int> prefix, std::vector<int> middle,
                    const std::vector<int>& suffix) {
  std::sort(middle.begin(), middle.end());
  int best = INT_MAX;
  do {
    std::vector<int> s = prefix;
    s.insert(s.end(), middle.begin(), middle.end());
    s.insert(s.end(), suffix.begin(), suffix.end());
    best = std::min(best, naive_makespan(inst, s));
  } while (std::next_permutation(middle.begin(), middle.end()));
  return best;
}

struct rule_counts {
  long checked = 0, pruned = 0;
};

// Every node P0·a·j with suffix Q (|P0| >= 0, any disjoint Q): when the rule prunes it, P0·j·a
// completes at least as well.
void check_rule_on_every_node(const instance& inst, const std::string& what, rule_counts& counts) {
  const int n = inst.n, m = inst.m;
  const instance_view view = bound_data(inst).view().inst;
  std::vector<int> prefix, suffix;
  std::vector<char> used(n, 0);
  auto middle_of = [&] {
    std::vector<int> mid;
    for (int j = 0; j < n; ++j)
      if (!used[j]) mid.push_back(j);
    return mid;
  };
  std::function<void()> prefixes = [&] {
    if (prefix.size() >= 2) {
      const int len = static_cast<int>(prefix.size());
      const int a = prefix[len - 2], j = prefix[len - 1];
      std::vector<int> front_a(m), front_0(m);
      completion_times(view, prefix.data(), len - 1, front_a.data());
      completion_times(view, prefix.data(), len - 2, front_0.data());
      ++counts.checked;
      if (swap_dominated(view, front_a.data(), front_0.data(), a, j)) {
        ++counts.pruned;
        std::vector<int> swapped = prefix;
        std::swap(swapped[len - 2], swapped[len - 1]);
        const std::vector<int> mid = middle_of();
        EXPECT_LE(best_completion(inst, swapped, mid, suffix), best_completion(inst, prefix, mid, suffix))
            << what << ": the rule pruned a prefix whose swap completes worse";
      }
    }
    for (int j = 0; j < n; ++j) {
      if (used[j]) continue;
      used[j] = 1;
      prefix.push_back(j);
      prefixes();
      prefix.pop_back();
      used[j] = 0;
    }
  };
  // Suffixes of length 0 .. 2, then every prefix beside them.
  std::function<void(int)> suffixes = [&](int left) {
    prefixes();
    if (left == 0) return;
    for (int j = 0; j < n; ++j) {
      if (used[j]) continue;
      used[j] = 1;
      suffix.insert(suffix.begin(), j);
      suffixes(left - 1);
      suffix.erase(suffix.begin());
      used[j] = 0;
    }
  };
  suffixes(2);
}

TEST(dominance_rule, a_pruned_child_never_completes_better_than_its_swap) {
  rule_counts counts;
  for (const sample& c : small_samples(4, 6, 2, 4, 4, 4100)) check_rule_on_every_node(c.inst, c.what, counts);
  EXPECT_GT(counts.pruned, counts.checked / 100) << "the rule should fire on a share of the nodes";
}

TEST(dominance_rule, equal_fronts_prune_exactly_one_of_the_two_orders) {
  // Two identical jobs: P0·a·b and P0·b·a have the same fronts; the tie-break keeps one.
  instance inst = random_instance(3, 3, 7, 5, 5);
  const instance_view view = bound_data(inst).view().inst;
  const int zero[3] = {0, 0, 0};
  int front_0[3] = {}, front_1[3] = {};
  const int p0[1] = {0}, p1[1] = {1};
  completion_times(view, p0, 1, front_0);
  completion_times(view, p1, 1, front_1);
  const bool prune_01 = swap_dominated(view, front_0, zero, 0, 1);  // child 0·1, witness 1·0
  const bool prune_10 = swap_dominated(view, front_1, zero, 1, 0);  // child 1·0, witness 0·1
  EXPECT_NE(prune_01, prune_10);
}

// One solve with the rule on; its optimum and schedule checked.
solve_result solve_with_dominance(const bound_data& data, solve_options o, const std::string& backend) {
  o.dominance = true;
  if (backend == "cpu") return solve_sequential(data, o, incumbent());
  o.threads = 3;
  return solve_parallel(data, o, incumbent());
}

TEST(dominance_search, every_cpu_solver_proves_the_brute_force_optimum) {
  std::uint64_t dominated = 0;
  for (const sample& c : small_samples(5, 8, 2, 5, 2, 4200)) {
    const bound_data data(c.inst);
    const int optimum = brute_force_optimum(c.inst);
    for (const std::string backend : {"cpu", "cpu-mt"})
      for (bound_kind bound : {bound_kind::lb1, bound_kind::lb1_lb2})
        for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min})
          for (int slack : {0, 1}) {
            solve_options o;
            o.bound = bound;
            o.branch = rule;
            o.initial_ub = optimum + slack;
            const solve_result r = solve_with_dominance(data, o, backend);
            const std::string what = c.what + " " + backend + " " + std::string(to_string(bound)) + " " +
                                     std::string(to_string(rule)) + " ub optimum+" + std::to_string(slack);
            expect_proves_optimum(c.inst, r, optimum, slack, what);
            dominated += r.stats.dominated;
          }
  }
  EXPECT_GT(dominated, 0u) << "the rule never fired: these checks proved nothing";
}

// With a static direction and the optimum as the threshold, the rule only removes subtrees: fewer
// nodes, the same bound. (Under MinBranch or MinMin it also changes the directions chosen, and
// the tree may grow: ta014 with LB1 and MinBranch, 19,301 nodes off, 19,315 on.)
TEST(dominance_search, cuts_the_forward_tree_of_ta014_at_the_same_optimum) {
  const instance inst = taillard_instance("ta014");
  const bound_data data(inst);
  solve_options o;
  o.bound = bound_kind::lb1;
  o.branch = branching::forward;
  o.initial_ub = inst.known->ub;
  const solve_result off = solve_sequential(data, o, incumbent());
  o.dominance = true;
  const solve_result on = solve_sequential(data, o, incumbent());
  EXPECT_EQ(off.lower_bound, inst.known->ub);
  EXPECT_EQ(on.lower_bound, inst.known->ub);
  EXPECT_LT(on.stats.branched, off.stats.branched);
  EXPECT_GT(on.stats.dominated, 0u);
  EXPECT_EQ(off.stats.dominated, 0u);
}

}  // namespace
}  // namespace pfsp::test
