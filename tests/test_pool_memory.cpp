// Best- and breadth-first past their memory budget (solve_options::pool_memory): subtrees are
// explored depth-first one at a time from the pool's next node. The search stays exact and the
// pool stops growing (500 x 20 grows it by about 0.75 GB a second otherwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bound/bound_data.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "search/control.hpp"
#include "search/sequential.hpp"
#include "search/types.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

bool mentions(const solve_result& r, const std::string& what) {
  return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(what) != n.npos; });
}

// Small instances against brute force, every budget from "always dive" to "never".
TEST(pool_memory, dives_stay_exact) {
  for (const auto& smp : test::small_samples(5, 8, 2, 5, 2, 9100)) {
    const int optimum = test::brute_force_optimum(smp.inst);
    const bound_data data(smp.inst);
    for (selection sel : {selection::best_first, selection::breadth_first}) {
      for (std::size_t budget : {std::size_t{0}, std::size_t{2000}, std::size_t{2} << 30}) {
        SCOPED_TRACE(smp.what + ", " + std::string(to_string(sel)) + ", pool_memory " + std::to_string(budget));
        solve_options o;
        o.select = sel;
        o.pool_memory = budget;
        const solve_result r = solve_sequential(data, o, incumbent());
        EXPECT_EQ(r.status, solve_status::optimal);
        EXPECT_EQ(r.makespan, optimum);
        EXPECT_EQ(r.lower_bound, optimum);
        EXPECT_EQ(evaluate_schedule(smp.inst, r.schedule), r.makespan);
        EXPECT_NEAR(r.stats.explored, 1.0, 1e-9);
      }
    }
  }
}

// A budget of 0 on ta021 (20 x 20) with a node limit: the root already dives, so the open nodes
// are one depth-first stack, and the bound is still a proven one. With the default budget the
// pool grows past that.
TEST(pool_memory, the_pool_stops_growing) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  const neh_result h = neh(inst);
  for (selection sel : {selection::best_first, selection::breadth_first}) {
    SCOPED_TRACE(std::string(to_string(sel)));
    solve_options o;
    o.select = sel;
    o.node_limit = 5000;
    std::uint64_t most_open = 0;
    o.progress_interval = 0;
    o.on_progress = [&most_open](const progress_info& p) { most_open = std::max(most_open, p.open); };
    o.pool_memory = 0;
    const solve_result capped = solve_sequential(data, o, incumbent(h.makespan, h.schedule));
    EXPECT_EQ(capped.status, solve_status::node_limit);
    EXPECT_TRUE(mentions(capped, "subtrees explored depth-first"));
    EXPECT_LE(capped.lower_bound, 2297);  // ta021's optimum
    // Depth-first dives hold at most the children of one path: n (n + 1) / 2 nodes.
    EXPECT_LE(most_open, static_cast<std::uint64_t>(inst.n * (inst.n + 1) / 2 + inst.n));
    o.pool_memory = std::size_t{2} << 30;
    most_open = 0;
    const solve_result free = solve_sequential(data, o, incumbent(h.makespan, h.schedule));
    EXPECT_FALSE(mentions(free, "subtrees explored depth-first"));
    EXPECT_GT(most_open, static_cast<std::uint64_t>(inst.n * (inst.n + 1) / 2 + inst.n));
  }
}

}  // namespace
}  // namespace pfsp
