// The solution-guided child order (child_order::incumbent, expander::follow):
//   - every CPU solver proves the brute-force optimum with it, under each bound and branching
//     rule, from an upper bound (optimum, optimum + 1) and from a start schedule above the optimum
//     that the search follows and must improve, with and without the memo;
//   - below a fixed upper bound that no leaf can improve it branches exactly the tree of the
//     bound's order (the order decides when a better schedule is met, not which nodes exist);
//   - it changes the search: from NEH on ta016 it meets the optimum in fewer nodes (a test that
//     cannot fail proves nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "cpu/parallel.hpp"
#include "heuristic/neh.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

solve_result solve_cpu(const bound_data& data, solve_options o, const std::string& backend, const incumbent& start) {
  if (backend == "cpu") return solve_sequential(data, o, start);
  o.threads = 3;
  return solve_parallel(data, o, start);
}

// A start schedule above the optimum: the identity or its reverse, whichever is worse (none when
// both are optimal).
incumbent worse_start(const instance& inst, int optimum) {
  std::vector<int> s(inst.n);
  std::iota(s.begin(), s.end(), 0);
  std::vector<int> r(s.rbegin(), s.rend());
  const int a = naive_makespan(inst, s), b = naive_makespan(inst, r);
  if (std::max(a, b) <= optimum) return incumbent();
  return a >= b ? incumbent(a, s) : incumbent(b, r);
}

TEST(child_order, every_cpu_solver_following_the_incumbent_proves_the_brute_force_optimum) {
  int followed = 0;
  for (const sample& c : small_samples(5, 8, 2, 5, 2, 4700)) {
    const bound_data data(c.inst);
    const int optimum = brute_force_optimum(c.inst);
    const incumbent start = worse_start(c.inst, optimum);
    for (const std::string backend : {"cpu", "cpu-mt"})
      for (const std::size_t memo : {std::size_t{0}, std::size_t{1} << 20})
        for (bound_kind bound : {bound_kind::lb1, bound_kind::lb1_lb2})
          for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min}) {
            solve_options o;
            o.bound = bound;
            o.branch = rule;
            o.dominance = true;
            o.memo_bytes = memo;
            o.order = child_order::incumbent;
            const std::string what = c.what + " " + backend + " memo " + std::to_string(memo) + " " +
                                     std::string(to_string(bound)) + " " + std::string(to_string(rule));
            for (int slack : {0, 1}) {
              o.initial_ub = optimum + slack;
              expect_proves_optimum(c.inst, solve_cpu(data, o, backend, incumbent()), optimum, slack,
                                    what + " ub optimum+" + std::to_string(slack));
            }
            if (start.value() == INT_MAX) continue;
            o.initial_ub.reset();
            const solve_result r = solve_cpu(data, o, backend, start);
            expect_proves_optimum(c.inst, r, optimum, 1, what + " from a start of " + std::to_string(start.value()));
            ++followed;
          }
  }
  EXPECT_GT(followed, 500) << "too few searches started from a schedule to follow";
}

// With ub = the optimum no leaf is below ub, so the incumbent never changes: both orders expand
// the same nodes, whatever schedule the search follows. Without the memo, whose prunes depend on
// which node over the same sets came first.
TEST(child_order, branches_the_same_tree_below_a_fixed_upper_bound) {
  for (const sample& c : small_samples(7, 9, 3, 5, 2, 4800)) {
    const bound_data data(c.inst);
    const int optimum = brute_force_optimum(c.inst);
    const incumbent start = worse_start(c.inst, optimum);
    for (branching rule : {branching::forward, branching::min_branch, branching::min_min})
      for (bool dominance : {false, true}) {
        solve_options o;
        o.bound = bound_kind::lb1;
        o.branch = rule;
        o.dominance = dominance;
        o.initial_ub = optimum;
        const solve_result by_bound = solve_sequential(data, o, start);
        o.order = child_order::incumbent;
        const solve_result following = solve_sequential(data, o, start);
        const std::string what = c.what + " " + std::string(to_string(rule)) + (dominance ? " swap rule" : "");
        EXPECT_EQ(following.stats.branched, by_bound.stats.branched) << what;
        EXPECT_EQ(following.stats.pruned, by_bound.stats.pruned) << what;
        EXPECT_EQ(following.lower_bound, optimum) << what;
      }
  }
}

// ta016 from NEH (1431 against the optimum 1397), LB1, sequential, no memo: following the
// incumbent proves the optimum in fewer nodes than the bound's order.
TEST(child_order, following_the_incumbent_proves_ta016_from_neh_in_fewer_nodes) {
  const instance inst = taillard_instance("ta016");
  const bound_data data(inst);
  const neh_result h = neh(inst);
  solve_options o;
  o.bound = bound_kind::lb1;
  o.branch = branching::min_branch;
  const solve_result by_bound = solve_sequential(data, o, incumbent(h.makespan, h.schedule));
  o.order = child_order::incumbent;
  const solve_result following = solve_sequential(data, o, incumbent(h.makespan, h.schedule));
  ASSERT_EQ(by_bound.makespan, inst.known->ub);
  ASSERT_EQ(following.makespan, inst.known->ub);
  EXPECT_EQ(naive_makespan(inst, following.schedule), inst.known->ub);
  EXPECT_LT(following.stats.branched * 2, by_bound.stats.branched)
      << following.stats.branched << " nodes following, " << by_bound.stats.branched << " by the bound";
}

}  // namespace
}  // namespace pfsp::test
