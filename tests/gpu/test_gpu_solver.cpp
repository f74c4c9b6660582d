// The GPU solver proves the optimum for every combination of its strategy switches (kernel
// variant, table placement, sort, pool selection, streams, host threads) and every bound and
// branching rule, against brute force on small random instances and Taillard's ta001..ta010;
// with the optimum as initial ub it explores exactly the CPU solver's tree; limits and
// interrupts end it with the right status.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "gpu/solver.hpp"
#include "gpu_test_support.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "problem/taillard.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

const std::vector<branching>& all_rules() {
  static const std::vector<branching> v{branching::forward, branching::backward, branching::min_branch,
                                        branching::min_min};
  return v;
}
const std::vector<gpu::pool_selection>& all_selections() {
  static const std::vector<gpu::pool_selection> v{gpu::pool_selection::hybrid, gpu::pool_selection::depth_first,
                                                  gpu::pool_selection::best_first, gpu::pool_selection::breadth_first};
  return v;
}

std::string describe(const solve_options& opt, const gpu::gpu_policy& p) {
  return std::string(to_string(opt.bound)) + " " + std::string(to_string(opt.branch)) + " kernel " +
         std::string(gpu::to_string(p.kernel)) + " memory " + std::string(gpu::to_string(p.memory)) + " sort " +
         std::string(gpu::to_string(p.sort)) + " selection " + std::string(gpu::to_string(p.select)) + " streams " +
         std::to_string(p.streams) + " host threads " + std::to_string(p.host_threads) + " pool " +
         std::to_string(p.pool_size) + " tpb " + std::to_string(p.threads_per_block);
}

void expect_optimal(const instance& inst, const solve_result& r, int optimum, const std::string& where) {
  ASSERT_EQ(r.status, solve_status::optimal) << where;
  ASSERT_EQ(r.makespan, optimum) << where;
  ASSERT_EQ(r.lower_bound, optimum) << where;
  ASSERT_EQ(naive_makespan(inst, r.schedule), optimum) << where;
  EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << where;
}

// All 144 combinations of the GPU switches on each instance; bound kind and branching rule
// rotate with them, so every (bound, rule) pair meets many strategy combinations.
TEST(GpuSolver, EveryStrategyCombinationProvesTheBruteForceOptimum) {
  PFSP_REQUIRE_GPU();
  const std::vector<instance> cases{random_instance(7, 3, 21, 1, 20), generate_taillard(8, 4, 22),
                                    random_instance(6, 5, 23, 1, 3)};
  int combo = 0;
  for (const instance& inst : cases) {
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (gpu::kernel_variant kv : all_variants())
      for (gpu::memory_placement mp : all_placements())
        for (gpu::pool_sort ps : all_sorts())
          for (gpu::pool_selection sel : all_selections())
            for (int streams : {1, 2}) {
              ++combo;
              solve_options opt;
              opt.bound = all_kinds()[static_cast<std::size_t>(combo % 3)];
              opt.branch = all_rules()[static_cast<std::size_t>((combo / 3) % 4)];
              gpu::gpu_policy p;
              p.kernel = kv;
              p.memory = mp;
              p.sort = ps;
              p.select = sel;
              p.streams = streams;
              p.host_threads = 1 + combo % 3;
              p.pool_size = 64;  // many small pools: exercises the pipeline and the store
              p.threads_per_block = 32;
              const solve_result r = gpu::solve(data, opt, p, incumbent());
              expect_optimal(inst, r, optimum, inst.name + ": " + describe(opt, p));
            }
  }
}

TEST(GpuSolver, EveryBoundAndRuleWithAutoTuning) {
  PFSP_REQUIRE_GPU();
  const instance inst = generate_taillard(9, 4, 31);
  const int optimum = brute_force_optimum(inst);
  const bound_data data(inst);
  for (bound_kind kind : all_kinds())
    for (branching rule : all_rules()) {
      solve_options opt;
      opt.bound = kind;
      opt.branch = rule;
      gpu::gpu_policy p;  // defaults: auto-tuned pool and block size
      p.host_threads = 2;
      const solve_result r = gpu::solve(data, opt, p, incumbent());
      expect_optimal(inst, r, optimum, describe(opt, p));
      EXPECT_FALSE(r.notes.empty());
    }
}

// Papers' protocol (CCPE 6.1): with the optimum as initial ub and no incumbent, every solver
// explores the same tree, whatever the selection order.
TEST(GpuSolver, WithTheOptimumAsUbExploresTheCpuTree) {
  PFSP_REQUIRE_GPU();
  const instance inst = load_instance("random:12,6,2");
  const bound_data data(inst);
  solve_options exact;
  exact.bound = bound_kind::lb2;
  const int optimum = solve_sequential(data, exact, incumbent()).makespan;
  int combo = 0;
  for (bound_kind kind : all_kinds())
    for (branching rule : all_rules()) {
      solve_options opt;
      opt.bound = kind;
      opt.branch = rule;
      opt.initial_ub = optimum;
      const solve_result cpu = solve_sequential(data, opt, incumbent());
      gpu::gpu_policy p;
      p.select = all_selections()[static_cast<std::size_t>(combo % 4)];
      p.sort = all_sorts()[static_cast<std::size_t>(combo % 3)];
      p.host_threads = 1 + combo % 4;
      p.pool_size = 4096;
      p.threads_per_block = 128;
      ++combo;
      const solve_result gpu = gpu::solve(data, opt, p, incumbent());
      const std::string where = describe(opt, p);
      EXPECT_EQ(gpu.status, cpu.status) << where;
      EXPECT_EQ(gpu.lower_bound, cpu.lower_bound) << where;
      expect_same_tree(gpu, cpu, where);
      EXPECT_NEAR(gpu.stats.explored, cpu.stats.explored, 1e-9) << where;
    }
}

// ta001..ta010 (20 x 5) with the optimum + 1 as initial ub and no incumbent, so that the
// search itself must find an optimal schedule; strategies rotate over the instances.
TEST(GpuSolver, ProvesTaillardTa001ToTa010) {
  PFSP_REQUIRE_GPU();
  for (int i = 1; i <= 10; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "ta%03d", i);
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = all_kinds()[static_cast<std::size_t>(i % 3)];
    opt.branch = i % 2 ? branching::min_min : branching::min_branch;
    opt.initial_ub = inst.known->ub + 1;
    gpu::gpu_policy p;
    p.kernel = all_variants()[static_cast<std::size_t>(i % 3)];
    p.memory = all_placements()[static_cast<std::size_t>(i % 2)];
    p.sort = all_sorts()[static_cast<std::size_t>((i / 2) % 3)];
    p.select = all_selections()[static_cast<std::size_t>(i % 4)];
    p.streams = 1 + i % 2;
    p.host_threads = 1 + i % 4;
    const solve_result r = gpu::solve(data, opt, p, incumbent());
    ASSERT_TRUE(inst.known && inst.known->optimal);
    expect_optimal(inst, r, inst.known->ub, std::string(name) + ": " + describe(opt, p));
  }
}

// --compact-times: the known optima of ta001..ta006 (20 x 5) and ta014 (20 x 10, LB2) with compact
// tables, kernel variants and placements rotating; and with the optimum as ub, the CPU's tree.
TEST(GpuSolver, CompactTimesProveTheKnownOptima) {
  PFSP_REQUIRE_GPU();
  for (const char* name : {"ta001", "ta002", "ta003", "ta004", "ta005", "ta006", "ta014"}) {
    const int i = std::atoi(name + 2);
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = i == 14 ? bound_kind::lb2 : all_kinds()[static_cast<std::size_t>(i % 3)];
    opt.branch = i % 2 ? branching::min_min : branching::min_branch;
    opt.initial_ub = inst.known->ub + 1;
    gpu::gpu_policy p;
    p.compact_times = gpu::compact_mode::on;
    p.kernel = all_variants()[static_cast<std::size_t>(i % 3)];
    p.memory = all_placements()[static_cast<std::size_t>((i / 3) % 2)];
    p.host_threads = 2;
    const solve_result r = gpu::solve(data, opt, p, incumbent());
    ASSERT_TRUE(inst.known && inst.known->optimal);
    expect_optimal(inst, r, inst.known->ub, std::string(name) + " compact: " + describe(opt, p));
    EXPECT_NE(r.backend.find("compact 8-bit times"), std::string::npos) << r.backend;
  }
  const instance inst = load_instance("random:12,6,3");
  const bound_data data(inst);
  solve_options opt;
  opt.bound = bound_kind::lb2;
  opt.branch = branching::min_min;
  opt.initial_ub = solve_sequential(data, opt, incumbent()).makespan;
  const solve_result cpu = solve_sequential(data, opt, incumbent());
  gpu::gpu_policy p;
  p.compact_times = gpu::compact_mode::on;
  p.pool_size = 4096;
  p.threads_per_block = 128;
  const solve_result gpu = gpu::solve(data, opt, p, incumbent());
  expect_same_tree(gpu, cpu, "");
}

TEST(GpuSolver, LimitsAndInterruptEndWithTheirStatus) {
  PFSP_REQUIRE_GPU();
  gpu::gpu_policy p;
  p.pool_size = 4096;
  p.threads_per_block = 128;
  expect_limits_end_with_their_status([&](const bound_data& data, const solve_options& opt,
                                          const incumbent& start) { return gpu::solve(data, opt, p, start); },
                                      bound_kind::lb2);
}

TEST(GpuSolver, ProfileSplitsTheTime) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta011");
  const bound_data data(inst);
  solve_options opt;
  opt.bound = bound_kind::lb2;
  opt.profile = true;
  const solve_result r = gpu::solve(data, opt, gpu::gpu_policy{}, incumbent());
  EXPECT_EQ(r.status, solve_status::optimal);
  EXPECT_GT(r.stats.bound_seconds, 0.0);
  bool host = false, device = false;
  for (const auto& n : r.notes) {
    host = host || n.find("profile host") != std::string::npos;
    device = device || n.find("profile device") != std::string::npos;
  }
  EXPECT_TRUE(host && device);
}

}  // namespace
}  // namespace pfsp::test
