// The GPU solver's host loop (pool selection, two-slot pipeline, sharded store, pruning,
// statistics, limits) with the bounds computed on the host (solve_emulated): needs no device,
// so it runs wherever pfsp_gpu builds.
#include <gtest/gtest.h>

#include <climits>
#include <mutex>

#include "gpu/solver.hpp"
#include "gpu_test_support.hpp"
#include "problem/io.hpp"
#include "problem/taillard.hpp"
#include "search/incumbent_feed.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

TEST(GpuHostLoop, EverySelectionStreamAndThreadCountProvesTheOptimum) {
  const std::vector<instance> cases{random_instance(7, 3, 41, 1, 20), generate_taillard(8, 4, 42),
                                    random_instance(8, 5, 43, 1, 3)};
  int combo = 0;
  for (const instance& inst : cases) {
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (gpu::pool_selection sel : {gpu::pool_selection::hybrid, gpu::pool_selection::depth_first,
                                    gpu::pool_selection::best_first, gpu::pool_selection::breadth_first})
      for (int streams : {1, 2})
        for (int threads : {1, 3})
          for (bound_kind kind : all_kinds()) {
            solve_options opt;
            opt.bound = kind;
            opt.branch = static_cast<branching>(combo++ % 4);
            gpu::gpu_policy p;
            p.select = sel;
            p.streams = streams;
            p.host_threads = threads;
            p.pool_size = combo % 2 ? 64 : 0;
            p.threads_per_block = 32;
            p.hybrid_max = 20;
            p.hybrid_min = 5;
            const solve_result r = gpu::solve_emulated(data, opt, p, incumbent());
            const std::string where = inst.name + " " + std::string(gpu::to_string(sel)) + " streams " +
                                      std::to_string(streams) + " threads " + std::to_string(threads) + " " +
                                      std::string(to_string(kind)) + " " + std::string(to_string(opt.branch));
            ASSERT_EQ(r.status, solve_status::optimal) << where;
            ASSERT_EQ(r.makespan, optimum) << where;
            ASSERT_EQ(naive_makespan(inst, r.schedule), optimum) << where;
            EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << where;
          }
  }
}

TEST(GpuHostLoop, WithTheOptimumAsUbExploresTheCpuTree) {
  const instance inst = load_instance("random:12,6,2");
  const bound_data data(inst);
  solve_options exact;
  exact.bound = bound_kind::lb2;
  const int optimum = solve_sequential(data, exact, incumbent()).makespan;
  int combo = 0;
  for (bound_kind kind : {bound_kind::lb1, bound_kind::lb1_lb2})
    for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min}) {
      solve_options opt;
      opt.bound = kind;
      opt.branch = rule;
      opt.initial_ub = optimum;
      const solve_result cpu = solve_sequential(data, opt, incumbent());
      gpu::gpu_policy p;
      p.select = static_cast<gpu::pool_selection>(combo % 4);
      p.streams = 1 + combo % 2;
      p.host_threads = 1 + combo % 3;
      p.pool_size = 4096;
      p.threads_per_block = 128;
      ++combo;
      const solve_result r = gpu::solve_emulated(data, opt, p, incumbent());
      EXPECT_EQ(r.status, cpu.status);
      EXPECT_EQ(r.lower_bound, cpu.lower_bound);
      expect_same_tree(r, cpu, std::string(to_string(kind)) + " " + std::string(to_string(rule)));
      EXPECT_NEAR(r.stats.explored, cpu.stats.explored, 1e-9);
    }
}

// An incumbent feed for the tests: it holds one schedule (whose claimed makespan may lie) and
// records the seeds it is offered.
class test_feed final : public incumbent_feed {
 public:
  test_feed(std::vector<int> schedule, int claimed) : schedule_(std::move(schedule)), claimed_(claimed) {}
  void offer_seed(const std::vector<int>& schedule, int makespan) override {
    std::lock_guard l(mu_);
    seeds_.emplace_back(schedule, makespan);
  }
  int best_value() const override { return claimed_; }
  std::vector<int> best_schedule() const override { return schedule_; }
  std::vector<std::pair<std::vector<int>, int>> seeds() const {
    std::lock_guard l(mu_);
    return seeds_;
  }

 private:
  std::vector<int> schedule_;
  int claimed_;
  mutable std::mutex mu_;
  std::vector<std::pair<std::vector<int>, int>> seeds_;
};

bool has_note(const solve_result& r, const std::string& part) {
  for (const std::string& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// The host loop takes a better incumbent from solve_options::feed, re-evaluated (a feed that
// claims less than its schedule's makespan cannot lower the bound), and offers its improving
// leaves to the feed as seeds (each seed's makespan is its schedule's).
TEST(GpuHostLoop, TakesAndSeedsTheIncumbentFeed) {
  const instance inst = random_instance(8, 4, 51, 1, 20);
  const int optimum = brute_force_optimum(inst);
  const bound_data data(inst);
  gpu::gpu_policy p;
  p.pool_size = 64;
  p.threads_per_block = 32;
  solve_options opt;
  std::vector<int> identity(static_cast<std::size_t>(inst.n));
  for (int j = 0; j < inst.n; ++j) identity[static_cast<std::size_t>(j)] = j;
  const int identity_cmax = naive_makespan(inst, identity);
  {
    test_feed feed(identity, identity_cmax - 1000);  // claims far less than the truth
    opt.feed = &feed;
    const solve_result r = gpu::solve_emulated(data, opt, p, incumbent());
    ASSERT_EQ(r.status, solve_status::optimal);
    EXPECT_EQ(r.makespan, optimum);
    EXPECT_EQ(r.lower_bound, optimum);
    EXPECT_EQ(naive_makespan(inst, r.schedule), optimum);
    EXPECT_TRUE(has_note(r, "improved 1 times by the incumbent feed"));
    for (const auto& [schedule, cmax] : feed.seeds()) EXPECT_EQ(naive_makespan(inst, schedule), cmax);
  }
  {
    test_feed feed({}, INT_MAX);  // nothing to give: every improving leaf is a seed
    opt.feed = &feed;
    const solve_result r = gpu::solve_emulated(data, opt, p, incumbent());
    ASSERT_EQ(r.makespan, optimum);
    const auto seeds = feed.seeds();
    ASSERT_FALSE(seeds.empty());
    EXPECT_EQ(seeds.back().second, optimum);
    for (const auto& [schedule, cmax] : seeds) EXPECT_EQ(naive_makespan(inst, schedule), cmax);
  }
}

TEST(GpuHostLoop, NodeLimitAndInterrupt) {
  const instance inst = taillard_instance("ta011");
  const bound_data data(inst);
  gpu::gpu_policy p;
  p.pool_size = 512;
  p.threads_per_block = 64;
  solve_options opt;
  opt.bound = bound_kind::lb1;
  opt.node_limit = 300;
  solve_result r = gpu::solve_emulated(data, opt, p, incumbent());
  EXPECT_EQ(r.status, solve_status::node_limit);
  EXPECT_GE(r.stats.branched, 300u);
  EXPECT_LT(r.stats.explored, 1.0);
  std::atomic<bool> stop{true};
  opt.node_limit = 0;
  opt.interrupt = &stop;
  r = gpu::solve_emulated(data, opt, p, incumbent());
  EXPECT_EQ(r.status, solve_status::interrupted);
}

}  // namespace
}  // namespace pfsp::test
