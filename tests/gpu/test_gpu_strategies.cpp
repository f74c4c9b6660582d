// --gpu-strategy (src/gpu/strategy.hpp): every divergence strategy returns exactly the plain
// kernel's bounds and the CPU's, bit for bit (partial LB2 values above ub included: the rule is
// exact equality, not "both >= ub"), for lb1, lb2 and lb1-lb2, on random pools with parents at
// every depth (leaves included), every size class, every task-pool kind x fetch control, with and
// without the sort's order array; and the GPU solver proves the brute-force optima and Taillard's
// ta001 with each strategy.
#include <gtest/gtest.h>

#include <numeric>

#include "base/error.hpp"
#include "divergence/remap.hpp"
#include "gpu/solver.hpp"
#include "gpu_test_support.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

using divergence::fetch_control;
using divergence::pool_kind;
using gpu::gpu_strategy;

// Every strategy configuration the tests run: all 13 task-pool kernels (with chunk sizes, idle
// thresholds and check intervals that vary), context switching with small and large pools of
// contexts and deferred votes, split, remap forced on and under efficiency control.
std::vector<gpu::strategy_params> all_strategy_configs() {
  std::vector<gpu::strategy_params> v;
  int i = 0;
  for (pool_kind pk : {pool_kind::global, pool_kind::local, pool_kind::hybrid, pool_kind::persistent})
    for (fetch_control fc : {fetch_control::any, fetch_control::all, fetch_control::ballot, fetch_control::atomic}) {
      if (pk == pool_kind::persistent && fc != fetch_control::all) continue;
      gpu::strategy_params p;
      p.kind = gpu_strategy::persistent;
      p.pool.pool = pk;
      p.pool.control = fc;
      const std::uint32_t chunks[] = {1, 7, 32, 256};
      p.pool.chunk = pk == pool_kind::hybrid && i % 3 == 0 ? 0 : chunks[i % 4];
      p.pool.idle_threshold = 1u + static_cast<std::uint32_t>(i * 5) % 32u;
      p.pool.check_interval = 1u + static_cast<std::uint32_t>(i % 3);
      v.push_back(p);
      ++i;
    }
  for (std::uint32_t contexts : {32u, 64u, 160u})
    for (std::uint32_t vote : {1u, 3u}) {
      gpu::strategy_params p;
      p.kind = gpu_strategy::context_switch;
      p.contexts.pool_contexts = contexts;
      p.contexts.vote_interval = vote;
      v.push_back(p);
    }
  gpu::strategy_params split;
  split.kind = gpu_strategy::split;
  v.push_back(split);
  for (bool control : {false, true}) {
    gpu::strategy_params remap;
    remap.kind = gpu_strategy::remap;
    remap.remap_control = control;
    v.push_back(remap);
  }
  return v;
}

std::vector<instance_case> strategy_cases() {
  std::vector<instance_case> v;
  v.push_back({random_instance(7, 3, 41, 1, 20), "random_instance(7, 3, 41, 1..20)", 6});
  v.push_back({random_instance(12, 6, 42, 1, 3), "random_instance(12, 6, 42, 1..3) (ties)", 3});
  v.push_back({taillard_instance("ta021"), "ta021 (20x20)", 3});
  v.push_back({random_instance(65, 4, 44, 1, 99), "random_instance(65, 4, 44) (medium class)", 1});
  v.push_back({random_instance(257, 3, 45, 1, 99), "random_instance(257, 3, 45) (large class)", 0});
  return v;
}

std::vector<int> bound_on_gpu(const bound_data& data, bound_kind kind, const gpu::gpu_policy& pol,
                              const std::vector<parent_node>& parents, int ub, std::size_t children, int tpb,
                              std::string* describe = nullptr) {
  gpu::bounder bd(data, kind, branching::min_min, pol, children);
  stage(bd, 0, parents);
  EXPECT_EQ(bd.submit_children(0, parents.size(), ub, tpb), children);
  const int* out = bd.wait(0);
  // A second pool on the same bounder: counters and scratch are reset between launches.
  stage(bd, 0, parents);
  bd.submit_children(0, parents.size(), ub, tpb);
  const int* again = bd.wait(0);
  EXPECT_TRUE(std::equal(out, out + children, again)) << "second launch differs";
  if (describe) *describe = bd.describe();
  return std::vector<int>(out, out + children);
}

TEST(GpuStrategies, EveryStrategyGivesThePlainKernelsBounds) {
  PFSP_REQUIRE_GPU();
  const auto configs = all_strategy_configs();
  std::uint32_t seed = 2000;
  int rotate = 0;
  for (const instance_case& c : strategy_cases()) {
    const bound_data data(c.inst);
    std::mt19937 rng(++seed);
    const auto parents = parents_for(c, rng, 40);
    for (bound_kind kind : all_kinds()) {
      const std::vector<int> full = cpu_child_bounds(data, kind, branching::min_min, parents, INT_MAX);
      std::vector<int> sorted = full;
      std::sort(sorted.begin(), sorted.end());
      // No ub; the median (half the children stop early); the lowest quartile (most stop early).
      for (int ub : {INT_MAX, sorted[sorted.size() / 2], sorted[sorted.size() / 4]}) {
        const std::vector<int> ref =
            ub == INT_MAX ? full : cpu_child_bounds(data, kind, branching::min_min, parents, ub);
        gpu::gpu_policy plain;
        plain.streams = 1;
        const std::vector<int> base = bound_on_gpu(data, kind, plain, parents, ub, ref.size(), 128);
        ASSERT_EQ(base, ref) << c.what << " plain kernel vs CPU";
        for (const gpu::strategy_params& sp : configs) {
          gpu::gpu_policy pol;
          pol.streams = 1;
          pol.strategy = sp;
          pol.sort = all_sorts()[static_cast<std::size_t>(rotate % 3)];
          pol.memory = all_placements()[static_cast<std::size_t>((rotate / 3) % 2)];
          const int tpb = 32 * (1 + rotate % 8);
          ++rotate;
          std::string desc;
          const std::vector<int> out = bound_on_gpu(data, kind, pol, parents, ub, ref.size(), tpb, &desc);
          const std::string where = c.what + ", seed " + std::to_string(seed) + ", " + std::string(to_string(kind)) +
                                    ", ub " + std::to_string(ub) + ", " + desc;
          std::size_t bad = 0;
          for (std::size_t i = 0; i < ref.size(); ++i)
            if (out[i] != ref[i] && ++bad <= 3)
              ADD_FAILURE() << where << ": child " << i << " strategy " << out[i] << " cpu " << ref[i];
          ASSERT_EQ(bad, 0u) << where;
        }
      }
    }
  }
}

// Two slots in flight with a strategy (per-slot counters and compaction buffers).
TEST(GpuStrategies, TwoSlotsInFlight) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta031");
  const bound_data data(inst);
  std::mt19937 rng(31);
  const auto a = parents_at_every_depth(inst.n, 2, rng), b = parents_at_every_depth(inst.n, 2, rng);
  for (bound_kind kind : all_kinds()) {
    const auto ra = cpu_child_bounds(data, kind, branching::min_min, a, INT_MAX);
    const auto rb = cpu_child_bounds(data, kind, branching::min_min, b, INT_MAX);
    for (const char* name : {"persistent", "context-switch", "split", "remap"}) {
      gpu::gpu_policy pol;
      pol.streams = 2;
      pol.strategy = gpu::parse_strategy(name, std::string(name) == "remap" ? "control=off" : "");
      gpu::bounder bd(data, kind, branching::min_min, pol, std::max(ra.size(), rb.size()));
      stage(bd, 0, a);
      stage(bd, 1, b);
      bd.submit_children(0, a.size(), INT_MAX, 256);
      bd.submit_children(1, b.size(), INT_MAX, 256);
      const int* ob = bd.wait(1);
      EXPECT_TRUE(std::equal(rb.begin(), rb.end(), ob)) << name << " " << to_string(kind);
      const int* oa = bd.wait(0);
      EXPECT_TRUE(std::equal(ra.begin(), ra.end(), oa)) << name << " " << to_string(kind);
    }
  }
}

// remap: the order handed to the plain kernel is a permutation that groups the children's
// classes (no more mixed warps than the natural order).
TEST(GpuStrategies, RemapOrderIsALamPermutation) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(30, 5, 5, 1, 99);
  const bound_data data(inst);
  std::mt19937 rng(5);
  auto parents = parents_at_every_depth(inst.n, 5, rng);
  std::shuffle(parents.begin(), parents.end(), rng);
  std::vector<std::uint32_t> limits, offsets{0};
  for (const auto& p : parents) {
    limits.push_back(gpu::pack_limits(p.limit1, p.limit2));
    offsets.push_back(offsets.back() + 2u * static_cast<std::uint32_t>(p.limit2 - p.limit1 - 1));
  }
  std::vector<std::uint32_t> cls;
  gpu::remap_classes_of(inst.n, 2, false, limits.data(), offsets.data(), parents.size(), 10, cls);
  gpu::gpu_policy pol;
  pol.strategy = gpu::parse_strategy("remap", "control=off");
  gpu::bounder bd(data, bound_kind::lb2, branching::min_min, pol, cls.size());
  stage(bd, 0, parents);
  bd.submit_children(0, parents.size(), INT_MAX, 128);
  bd.wait(0);
  const std::vector<std::uint32_t> order = bd.order(0);
  ASSERT_EQ(order.size(), cls.size());
  const divergence::remap_plan plan = divergence::plan_from_source(order);
  EXPECT_LE(divergence::mixed_segments(cls, &plan), divergence::mixed_segments(cls, nullptr));
}

// Unsupported combinations are refused with input errors.
TEST(GpuStrategies, RefusedCombinations) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(10, 4, 3, 1, 20);
  const bound_data data(inst);
  for (const char* name : {"persistent", "context-switch", "split"}) {
    gpu::gpu_policy pol;
    pol.strategy = gpu::parse_strategy(name, "");
    pol.kernel = gpu::kernel_variant::plain;
    EXPECT_THROW(gpu::bounder(data, bound_kind::lb2, branching::min_min, pol, 100), input_error) << name;
    pol.kernel = gpu::kernel_variant::branchless;
    pol.compact_times = gpu::compact_mode::on;
    EXPECT_THROW(gpu::bounder(data, bound_kind::lb2, branching::min_min, pol, 100), input_error) << name;
  }
  // Too many contexts for the shared memory left by the tables (when the device has that little).
  const instance big = random_instance(100, 22, 4, 1, 99);
  const bound_data big_data(big);
  gpu::gpu_policy plain;
  const gpu::bounder probe(big_data, bound_kind::lb2, branching::min_min, plain, 1000);
  gpu::gpu_policy pol;
  pol.strategy = gpu::parse_strategy("context-switch", "contexts=1024");
  const std::size_t need = probe.shared_bytes() + 4 * 1024 * 12;
  if (need > probe.device().shared_per_block_optin) {
    EXPECT_THROW(gpu::bounder(big_data, bound_kind::lb2, branching::min_min, pol, 1000), input_error);
  } else {
    EXPECT_NO_THROW(gpu::bounder(big_data, bound_kind::lb2, branching::min_min, pol, 1000));
  }
}

std::string describe(const solve_options& opt, const gpu::gpu_policy& p) {
  return std::string(to_string(opt.bound)) + " " + std::string(to_string(opt.branch)) + " strategy " +
         gpu::describe(p.strategy) + " sort " + std::string(gpu::to_string(p.sort)) + " streams " +
         std::to_string(p.streams) + " pool " + std::to_string(p.pool_size);
}

void expect_optimal(const instance& inst, const solve_result& r, int optimum, const std::string& where) {
  ASSERT_EQ(r.status, solve_status::optimal) << where;
  ASSERT_EQ(r.makespan, optimum) << where;
  ASSERT_EQ(r.lower_bound, optimum) << where;
  ASSERT_EQ(naive_makespan(inst, r.schedule), optimum) << where;
}

TEST(GpuStrategies, SolverProvesBruteForceOptimaWithEveryStrategy) {
  PFSP_REQUIRE_GPU();
  const std::vector<instance> cases{random_instance(7, 3, 51, 1, 20), generate_taillard(8, 4, 52),
                                    random_instance(6, 5, 53, 1, 3)};
  const auto configs = all_strategy_configs();
  int combo = 0;
  for (const instance& inst : cases) {
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (const gpu::strategy_params& sp : configs) {
      ++combo;
      solve_options opt;
      opt.bound = all_kinds()[static_cast<std::size_t>(combo % 3)];
      opt.branch = combo % 2 ? branching::min_min : branching::forward;
      gpu::gpu_policy p;
      p.strategy = sp;
      p.sort = all_sorts()[static_cast<std::size_t>(combo % 3)];
      p.streams = 1 + combo % 2;
      p.pool_size = 64;
      p.threads_per_block = 32;
      const solve_result r = gpu::solve(data, opt, p, incumbent());
      expect_optimal(inst, r, optimum, inst.name + ": " + describe(opt, p));
    }
  }
}

// ta001 (20 x 5) with the optimum + 1 as initial ub: the search must find an optimal schedule;
// with the optimum as ub every strategy explores exactly the plain kernel's tree.
TEST(GpuStrategies, SolverProvesTa001WithEveryStrategy) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta001");
  const bound_data data(inst);
  for (const char* name : {"plain", "persistent", "context-switch", "split", "remap"})
    for (bound_kind kind : {bound_kind::lb1, bound_kind::lb1_lb2}) {
      solve_options opt;
      opt.bound = kind;
      opt.initial_ub = inst.known->ub + 1;
      gpu::gpu_policy p;
      p.strategy = gpu::parse_strategy(name, "");
      const solve_result r = gpu::solve(data, opt, p, incumbent());
      expect_optimal(inst, r, inst.known->ub, std::string("ta001 ") + describe(opt, p));
    }
  solve_options exact;
  exact.bound = bound_kind::lb1_lb2;
  exact.initial_ub = inst.known->ub;
  gpu::gpu_policy base;
  base.streams = 1;
  base.select = gpu::pool_selection::breadth_first;
  const solve_result ref = gpu::solve(data, exact, base, incumbent());
  for (const char* name : {"persistent", "context-switch", "split", "remap"}) {
    gpu::gpu_policy p = base;
    p.strategy = gpu::parse_strategy(name, "");
    const solve_result r = gpu::solve(data, exact, p, incumbent());
    EXPECT_EQ(r.stats.branched, ref.stats.branched) << name;
    EXPECT_EQ(r.stats.pruned, ref.stats.pruned) << name;
    EXPECT_EQ(r.lower_bound, ref.lower_bound) << name;
  }
}

}  // namespace
}  // namespace pfsp::test
