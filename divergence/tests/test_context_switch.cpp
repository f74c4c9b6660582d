// Task-context switching (Frey et al. Section 3, Listing 1) on the host model: results identical
// to the plain loop for every pool size and deferral, and the managed branch runs with nearly
// full warps instead of being serialised.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "divergence/task_pool_sim.hpp"
#include "divergence/workloads/monte_carlo.hpp"

namespace pfsp::divergence {
namespace {

struct counted_branch : mc_branch {
  std::uint32_t* finishes = nullptr;
  void finish(const context& c) const {
    mc_branch::finish(c);
    ++finishes[c.task];
  }
};

struct branch_buffers {
  std::vector<std::uint32_t> sum, finishes;
  counted_branch b;
  branch_buffers(std::uint32_t n, double p, std::uint32_t outer, std::uint32_t inner)
      : sum(n, 0xdeadbeef), finishes(n, 0) {
    b.tasks = n;
    b.branch_threshold = probability_threshold(p);
    b.outer = outer;
    b.inner = inner;
    b.out_sum = sum.data();
    b.finishes = finishes.data();
  }
};

TEST(context_switch_model, identical_results_exactly_once) {
  const std::uint32_t n = 3001;
  branch_buffers ref(n, 0.1, 40, 16);
  simulate_branch_plain(ref.b);
  for (std::uint32_t pool : {32u, 96u, 160u})
    for (std::uint32_t interval : {1u, 4u})
      for (bool deflt : {false, true})
        for (std::uint32_t warps : {1u, 7u}) {
          SCOPED_TRACE("pool=" + std::to_string(pool) + " interval=" + std::to_string(interval) +
                       " default=" + std::to_string(deflt) + " warps=" + std::to_string(warps));
          branch_buffers got(n, 0.1, 40, 16);
          simulate_context_switch(got.b, {pool, interval, deflt}, warps);
          for (std::uint32_t t = 0; t < n; ++t) {
            ASSERT_EQ(got.finishes[t], 1u) << "task " << t;
            ASSERT_EQ(got.sum[t], ref.sum[t]) << "task " << t;
          }
        }
}

TEST(context_switch_model, rare_branches_run_with_full_warps) {
  const std::uint32_t n = 32 * 64;
  branch_buffers plain(n, 0.05, 100, 50), sw(n, 0.05, 100, 50);
  const sim_stats s_plain = simulate_branch_plain(plain.b);
  const sim_stats s_sw = simulate_context_switch(sw.b, {160, 1, false}, 8);
  // Plain: with p = 0.05 about 80% of warp iterations issue the branch for ~1.6 lanes.
  EXPECT_LT(s_plain.branch_efficiency(), 0.1);
  EXPECT_GT(s_sw.branch_efficiency(), 0.8);
  EXPECT_EQ(s_plain.branch_lanes, s_sw.branch_lanes);  // the same bodies, far fewer issued
  EXPECT_GT(static_cast<double>(s_plain.branch_executions) / static_cast<double>(s_sw.branch_executions), 8.0);
}

TEST(context_switch, consensus_counts_attached_and_pooled) {
  EXPECT_TRUE(consensus(0b0111u, 0b1111u, {0, 0}));   // 3 yes, 1 no
  EXPECT_FALSE(consensus(0b0111u, 0b1111u, {0, 5}));  // 3 yes, 6 no
  EXPECT_TRUE(consensus(0b0001u, 0b1111u, {10, 0}));  // 11 yes, 3 no
  EXPECT_FALSE(consensus(0u, 0u, {2, 2}));            // tie: not taken
}

TEST(context_switch, switch_plan_is_a_consistent_exchange) {
  const lane_mask live = 0xffff0fffu;  // lanes 12..15 have no context
  const lane_mask want = 0x0000f0f0u;  // contexts wanting the branch (of live lanes: 4..7)
  const branch_map_counts k{6, 10};
  for (bool path : {true, false}) {
    SCOPED_TRACE(path);
    std::vector<int> loads(32, 0), stores(32, 0);
    int n_load = 0, n_store = 0;
    for (int l = 0; l < 32; ++l) {
      const lane_switch s = plan_switch(l, live, want, path, k);
      const bool fits = has_lane(live, l) && has_lane(want, l) == path;
      if (fits) {
        EXPECT_FALSE(s.load) << "lane " << l;
      }
      if (s.load) {
        ASSERT_LT(s.load_pos, path ? k.taken : k.not_taken);
        EXPECT_EQ(loads[s.load_pos]++, 0) << "slot read twice";
        ++n_load;
        EXPECT_EQ(s.store, has_lane(live, l));
      }
      if (s.store) {
        ++n_store;
        const std::uint32_t base = path ? k.not_taken : k.taken;
        ASSERT_GE(s.store_pos, base);
        EXPECT_EQ(stores[s.store_pos - base]++, 0) << "slot written twice";
      }
    }
    const branch_map_counts after = counts_after_switch(live, want, path, k);
    const int misfits = popc(~(live & (path ? want : ~want)));
    EXPECT_EQ(n_load, std::min(misfits, static_cast<int>(path ? k.taken : k.not_taken)));
    if (path) {
      EXPECT_EQ(after.taken, k.taken - static_cast<std::uint32_t>(n_load));
      EXPECT_EQ(after.not_taken, k.not_taken + static_cast<std::uint32_t>(n_store));
    } else {
      EXPECT_EQ(after.not_taken, k.not_taken - static_cast<std::uint32_t>(n_load));
      EXPECT_EQ(after.taken, k.taken + static_cast<std::uint32_t>(n_store));
    }
  }
}

TEST(context_switch, deferred_switching_votes_every_nth_iteration) {
  EXPECT_TRUE(vote_now(0, 1));
  EXPECT_TRUE(vote_now(7, 1));
  EXPECT_TRUE(vote_now(0, 4));
  EXPECT_FALSE(vote_now(3, 4));
  EXPECT_TRUE(vote_now(8, 4));
}

}  // namespace
}  // namespace pfsp::divergence
