// Frey et al.'s task pools on the host model: the bookkeeping the kernels run, checked for
// exactly-once execution and identical results on every pool and fetch control, plus the SIMT
// efficiency the paper's argument predicts.
#include <gtest/gtest.h>

#include <vector>

#include "divergence/sweep.hpp"
#include "divergence/task_pool_sim.hpp"
#include "divergence/workloads/julia.hpp"
#include "divergence/workloads/monte_carlo.hpp"

namespace pfsp::divergence {
namespace {

// mc_termination that also counts how often each task's result is written.
struct counted_mc : mc_termination {
  std::uint32_t* finishes = nullptr;
  void finish(const state& s) const {
    mc_termination::finish(s);
    ++finishes[s.task];
  }
};

struct mc_buffers {
  std::vector<std::uint32_t> iterations, sum, finishes;
  counted_mc w;
  mc_buffers(std::uint32_t n, double kill) : iterations(n, 0xdeadbeef), sum(n, 0xdeadbeef), finishes(n, 0) {
    w.tasks = n;
    w.kill_threshold = probability_threshold(kill);
    w.out_iterations = iterations.data();
    w.out_sum = sum.data();
    w.finishes = finishes.data();
  }
};

std::vector<task_pool_params> all_params() {
  std::vector<task_pool_params> out;
  for (pool_kind pool : {pool_kind::global, pool_kind::local, pool_kind::hybrid, pool_kind::persistent})
    for (fetch_control c : {fetch_control::any, fetch_control::all, fetch_control::ballot, fetch_control::atomic}) {
      const std::vector<std::uint32_t> chunks = pool == pool_kind::local    ? std::vector<std::uint32_t>{32, 256, 1000}
                                                : pool == pool_kind::global ? std::vector<std::uint32_t>{1, 3, 8}
                                                                            : std::vector<std::uint32_t>{0, 5, 64};
      for (std::uint32_t chunk : chunks)
        for (std::uint32_t k : {1u, 7u, 32u}) out.push_back({pool, c, chunk, k});
    }
  return out;
}

std::string describe(const task_pool_params& p) {
  return std::string(to_string(p.pool)) + "/" + to_string(p.control) + " chunk=" + std::to_string(p.chunk) +
         " k=" + std::to_string(p.idle_threshold);
}

TEST(task_pool_model, every_task_exactly_once_with_plain_results) {
  const std::uint32_t n = 5003;  // not a multiple of 32 or of any chunk
  mc_buffers ref(n, 0.05);
  simulate_plain(ref.w, sim_config{});
  for (const auto& p : all_params()) {
    SCOPED_TRACE(describe(p));
    mc_buffers got(n, 0.05);
    sim_config cfg;
    cfg.resident_warps = 12;
    cfg.warps_per_block = 3;
    simulate_task_pool(got.w, p, cfg);
    for (std::uint32_t t = 0; t < n; ++t) {
      ASSERT_EQ(got.finishes[t], 1u) << "task " << t;
      ASSERT_EQ(got.iterations[t], ref.iterations[t]) << "task " << t;
      ASSERT_EQ(got.sum[t], ref.sum[t]) << "task " << t;
    }
  }
}

TEST(task_pool_model, deferred_votes_keep_exactly_once) {
  const std::uint32_t n = 3001;
  mc_buffers ref(n, 0.05);
  simulate_plain(ref.w, sim_config{});
  for (std::uint32_t u : {2u, 8u})
    for (const task_pool_params base : {task_pool_params{pool_kind::hybrid, fetch_control::any, 8, 1, 1},
                                        task_pool_params{pool_kind::global, fetch_control::ballot, 2, 5, 1},
                                        task_pool_params{pool_kind::local, fetch_control::atomic, 100, 3, 1},
                                        task_pool_params{pool_kind::persistent, fetch_control::all, 0, 1, 1}}) {
      task_pool_params p = base;
      p.check_interval = u;
      SCOPED_TRACE(describe(p) + " u=" + std::to_string(u));
      mc_buffers got(n, 0.05);
      const sim_stats st = simulate_task_pool(got.w, p, sim_config{});
      EXPECT_EQ(got.finishes, std::vector<std::uint32_t>(n, 1u));
      EXPECT_EQ(got.sum, ref.sum);
      EXPECT_EQ(st.lane_work, simulate_plain(ref.w, sim_config{}).lane_work);
    }
}

TEST(task_pool_model, julia_results_match_direct_evaluation) {
  const std::uint32_t w = 64, h = 32;
  for (int offset : {0, 1, 2}) {
    std::vector<std::uint32_t> ref(w * h), got(w * h, 0);
    const julia direct = julia::make(w, h, offset, 300, ref.data());
    for (std::uint32_t t = 0; t < direct.size(); ++t) {
      auto s = direct.init(t);
      while (direct.step(s)) {
      }
      direct.finish(s);
    }
    const julia pooled = julia::make(w, h, offset, 300, got.data());
    simulate_task_pool(pooled, {pool_kind::hybrid, fetch_control::any, 8, 1}, sim_config{});
    EXPECT_EQ(got, ref) << "offset " << offset;
  }
}

TEST(task_pool_model, fetching_on_finish_removes_termination_divergence) {
  const std::uint32_t n = 32 * 2048;
  sim_config cfg;
  cfg.resident_warps = 32;
  mc_buffers plain(n, 0.01), any(n, 0.01), all(n, 0.01), persistent(n, 0.01);
  const sim_stats s_plain = simulate_plain(plain.w, cfg);
  const sim_stats s_any = simulate_task_pool(any.w, {pool_kind::hybrid, fetch_control::any, 8, 1}, cfg);
  const sim_stats s_all = simulate_task_pool(all.w, {pool_kind::hybrid, fetch_control::all, 8, 1}, cfg);
  const sim_stats s_pers = simulate_task_pool(persistent.w, {pool_kind::persistent, fetch_control::all, 0, 1}, cfg);
  // Geometric iteration counts: a warp of 32 runs ~4x the mean (Frey Fig. 5, "4 to 5").
  EXPECT_LT(s_plain.simt_efficiency(), 0.35);
  EXPECT_GT(s_any.simt_efficiency(), 0.85);  // the tail, when pools run dry, costs the rest
  EXPECT_LT(s_all.simt_efficiency(), 0.35);
  EXPECT_LT(s_pers.simt_efficiency(), 0.35);
  EXPECT_EQ(s_plain.lane_work, s_any.lane_work);  // same work, fewer issue slots
  EXPECT_GT(static_cast<double>(s_plain.warp_iterations) / static_cast<double>(s_any.warp_iterations), 3.0);
}

TEST(task_pool_model, plain_cost_is_the_sum_of_warp_maxima) {
  const std::uint32_t n = 32 * 10 + 5;
  mc_buffers b(n, 0.1);
  const sim_stats s = simulate_plain(b.w, sim_config{});
  std::uint64_t expect = 0;
  for (std::uint32_t w0 = 0; w0 < n; w0 += 32) {
    std::uint32_t mx = 0;
    for (std::uint32_t t = w0; t < std::min(n, w0 + 32); ++t) mx = std::max(mx, b.iterations[t]);
    expect += mx;
  }
  EXPECT_EQ(s.warp_iterations, expect);
}

TEST(task_pool, leave_loop_rules) {
  EXPECT_TRUE(leave_computation_loop(fetch_control::any, 1, 31, 1));
  EXPECT_FALSE(leave_computation_loop(fetch_control::any, 0, 32, 1));
  EXPECT_FALSE(leave_computation_loop(fetch_control::all, 31, 1, 1));
  EXPECT_TRUE(leave_computation_loop(fetch_control::all, 32, 0, 1));
  EXPECT_FALSE(leave_computation_loop(fetch_control::ballot, 3, 29, 4));
  EXPECT_TRUE(leave_computation_loop(fetch_control::atomic, 4, 28, 4));
  // Retired lanes count as neither: a threshold that can no longer be reached does not hang.
  EXPECT_TRUE(leave_computation_loop(fetch_control::ballot, 2, 0, 16));
}

TEST(task_pool, ranges_from_counters_clip_at_total) {
  EXPECT_EQ(range_from_counter(0, 8, 100).next, 0u);
  EXPECT_EQ(range_from_counter(0, 8, 100).end, 8u);
  EXPECT_EQ(range_from_counter(96, 8, 100).end, 100u);
  EXPECT_TRUE(range_from_counter(104, 8, 100).empty());
  EXPECT_EQ(range_from_counter(0xfffffff0u, 64, 0xffffffffu).end, 0xffffffffu);  // no wrap-around
  EXPECT_EQ(local_block_range(3, 10, 35).next, 30u);
  EXPECT_EQ(local_block_range(3, 10, 35).end, 35u);
}

TEST(task_pool, hybrid_fetch_lane_is_the_first_overflowing_lane) {
  const task_range local{10, 13};       // 3 tasks left in the warp's pool
  const lane_mask need = 0b1011'0110u;  // lanes 1, 2, 4, 5, 7
  const hybrid_fetch f = plan_hybrid_fetch(local, need, 4);
  EXPECT_EQ(f.from_local, 3u);
  EXPECT_EQ(f.refill, 5u + 4u);  // idle threads + chunk
  EXPECT_EQ(f.fetch_lane, 5);    // ranks 0,1,2 = lanes 1,2,4 are served locally
  const task_range refilled{100, 109};
  std::uint32_t t = 0;
  EXPECT_TRUE(hybrid_lane_task(local, need, 4, f, refilled, &t));
  EXPECT_EQ(t, 12u);
  EXPECT_TRUE(hybrid_lane_task(local, need, 7, f, refilled, &t));
  EXPECT_EQ(t, 101u);
  const task_range after = hybrid_pool_after(local, need, f, refilled);
  EXPECT_EQ(after.next, 102u);
  EXPECT_EQ(after.end, 109u);
  // Enough left: no global fetch.
  const hybrid_fetch g = plan_hybrid_fetch({0, 40}, need, 4);
  EXPECT_EQ(g.refill, 0u);
  EXPECT_EQ(g.fetch_lane, -1);
}

TEST(sweep, host_model_prefers_immediate_fetching_under_strong_divergence) {
  const std::uint32_t n = 32 * 256;
  sweep_grid grid;
  grid.local_chunks = {256, 2048};
  grid.idle_thresholds = {1, 16};
  sim_config cfg;
  cfg.resident_warps = 16;
  const auto points = sweep(grid, [&](const task_pool_params& p) {
    mc_buffers b(n, 0.01);
    return static_cast<double>(simulate_task_pool(b.w, p, cfg).makespan);
  });
  ASSERT_EQ(points.size(), sweep_candidates(grid).size());
  for (std::size_t i = 1; i < points.size(); ++i) EXPECT_LE(points[i - 1].seconds, points[i].seconds);
  const auto& best = points.front().params;
  EXPECT_NE(best.control, fetch_control::all) << describe(best);
  EXPECT_NE(best.pool, pool_kind::persistent) << describe(best);
}

}  // namespace
}  // namespace pfsp::divergence
