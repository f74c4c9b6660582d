// The distributed search's decomposition without MPI: a breadth-first frontier, then its nodes
// in chunks, each solved as a resumed search by a local solver, starting from the best makespan
// known when the chunk starts. With --ub at the optimum the tree is fixed, so frontier plus
// chunks must branch, bound and prune exactly the sequential search's nodes; from no incumbent
// the chunks must still prove the optimum (brute force).
#include <gtest/gtest.h>

#include "cpu/parallel.hpp"
#include "mpi/frontier.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

// What rank 0 and the workers do, in one process.
solve_result solve_in_chunks(const instance& inst, const solve_options& opt, std::size_t target, std::size_t chunk,
                             bool parallel) {
  const bound_data data(inst);
  incumbent best;
  const int threshold = initial_threshold(opt, best);
  solve_stats total;
  std::deque<dist::frontier_node> frontier = dist::build_frontier(data, opt, threshold, best, target, total);
  while (!frontier.empty()) {
    std::vector<dist::frontier_node> nodes;
    while (!frontier.empty() && nodes.size() < chunk) {
      nodes.push_back(frontier.front());
      frontier.pop_front();
    }
    const search_state state = dist::chunk_state(data, opt, threshold, nodes);
    solve_options o = opt;
    o.resume = &state;
    o.threads = 3;
    const incumbent start(std::min(threshold, best.value()), {});
    const solve_result r = parallel ? solve_parallel(data, o, start) : solve_sequential(data, o, start);
    EXPECT_TRUE(r.status == solve_status::optimal || r.status == solve_status::proven_bound);
    if (!r.schedule.empty()) best.offer(r.makespan, r.schedule.data(), inst.n);
    total += r.stats;
  }
  return finish_result(solve_status::optimal, best, threshold, INT_MAX, total, 0.0);
}

TEST(mpi_frontier, chunks_branch_the_sequential_tree_with_the_optimum_as_ub) {
  for (const auto& smp : small_samples(8, 10, 3, 6, 2, 4400)) {
    const bound_data data(smp.inst);
    solve_options opt;
    opt.bound = bound_kind::lb1;
    opt.branch = branching::min_branch;
    const int optimum = solve_sequential(data, opt, incumbent()).makespan;
    opt.initial_ub = optimum;
    const solve_result whole = solve_sequential(data, opt, incumbent());
    for (std::size_t target : {1u, 7u, 64u})
      for (std::size_t chunk : {1u, 5u}) {
        const solve_result r = solve_in_chunks(smp.inst, opt, target, chunk, chunk == 5);
        const std::string what = smp.what + " frontier " + std::to_string(target) + " chunk " + std::to_string(chunk);
        expect_same_tree(r, whole, what);
        EXPECT_EQ(r.lower_bound, optimum) << what;
        EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << what;
      }
  }
}

TEST(mpi_frontier, chunks_prove_the_brute_force_optimum_from_no_incumbent) {
  for (const auto& smp : small_samples(5, 8, 2, 5, 2, 5500)) {
    for (bound_kind kind : {bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2})
      for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min}) {
        solve_options opt;
        opt.bound = kind;
        opt.branch = rule;
        const solve_result r = solve_in_chunks(smp.inst, opt, 16, 3, rule == branching::min_min);
        const int optimum = brute_force_optimum(smp.inst);
        const std::string what = smp.what + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule));
        ASSERT_EQ(r.status, solve_status::optimal) << what;
        EXPECT_EQ(r.makespan, optimum) << what;
        EXPECT_EQ(naive_makespan(smp.inst, r.schedule), optimum) << what;
        EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << what;
      }
  }
}

TEST(mpi_frontier, a_frontier_past_the_leaves_solves_the_instance_alone) {
  // n = 4: the breadth-first expansion reaches every leaf before 10^6 open nodes.
  const instance inst = random_instance(4, 3, 12, 1, 9);
  const bound_data data(inst);
  solve_options opt;
  incumbent best;
  solve_stats st;
  const auto frontier = dist::build_frontier(data, opt, INT_MAX, best, 1000000, st);
  EXPECT_TRUE(frontier.empty());
  EXPECT_EQ(best.value(), brute_force_optimum(inst));
  EXPECT_NEAR(st.explored, 1.0, 1e-9);
}

}  // namespace
}  // namespace pfsp::test
