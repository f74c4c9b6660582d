// Every GPU strategy against the plain kernel, on random inputs: task pools (every pool kind and
// fetch control, several chunk sizes and idle thresholds), task-context switching (pool sizes,
// deferred votes), and remapping (LAM and sorting, redirection and layout transformation). The
// outputs must be bit-identical (integer outputs, or floats computed with fma_rn only). The plain
// kernels are in turn checked against the host computation of the same host+device code.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "divergence/gpu/runner.hpp"
#include "divergence/task_pool_sim.hpp"
#include "divergence/workloads/julia.hpp"
#include "divergence/workloads/monte_carlo.hpp"

namespace pfsp::divergence::gpu {
namespace {

#define PFSP_DIV_REQUIRE_GPU()                                 \
  do {                                                         \
    if (!device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

timing_options once() {
  timing_options o;
  o.warmups = 0;
  o.repeats = 1;
  return o;
}

std::vector<task_pool_params> strategies(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<task_pool_params> out;
  for (pool_kind pool : {pool_kind::global, pool_kind::local, pool_kind::hybrid})
    for (fetch_control c : {fetch_control::any, fetch_control::all, fetch_control::ballot, fetch_control::atomic}) {
      const std::vector<std::uint32_t> chunks = pool == pool_kind::local    ? std::vector<std::uint32_t>{64, 1000}
                                                : pool == pool_kind::global ? std::vector<std::uint32_t>{1, 5}
                                                                            : std::vector<std::uint32_t>{0, 37};
      for (std::uint32_t chunk : chunks)
        out.push_back({pool, c, chunk, 1u + static_cast<std::uint32_t>(rng() % 32u),
                       std::uint32_t{1} << static_cast<std::uint32_t>(rng() % 4u)});  // votes every 1..8 iterations
    }
  out.push_back({pool_kind::persistent, fetch_control::all, 0, 1, 1});
  out.push_back({pool_kind::persistent, fetch_control::all, 0, 1, 8});
  return out;
}

std::string describe(const task_pool_params& p) {
  return std::string(to_string(p.pool)) + "/" + to_string(p.control) + " chunk=" + std::to_string(p.chunk) +
         " k=" + std::to_string(p.idle_threshold) + " u=" + std::to_string(p.check_interval);
}

TEST(gpu_task_pools, monte_carlo_termination_identical_to_plain) {
  PFSP_DIV_REQUIRE_GPU();
  for (std::uint32_t seed : {1u, 2u}) {
    mc_termination_spec spec;
    spec.tasks = 100003 + seed * 977;  // random sizes, no multiple of 32 or of a chunk
    spec.kill = seed == 1 ? 0.02 : 0.2;
    const auto plain = run_termination(spec, std::nullopt, once(), true);
    // The plain kernel against the host running the same functor.
    std::vector<std::uint32_t> it(spec.tasks), sum(spec.tasks);
    mc_termination host;
    host.tasks = spec.tasks;
    host.kill_threshold = probability_threshold(spec.kill);
    host.out_iterations = it.data();
    host.out_sum = sum.data();
    simulate_plain(host, sim_config{});
    it.insert(it.end(), sum.begin(), sum.end());
    ASSERT_EQ(plain.output, it) << "plain kernel differs from the host";
    for (const auto& p : strategies(seed)) {
      SCOPED_TRACE(describe(p) + " seed=" + std::to_string(seed));
      const auto got = run_termination(spec, p, once(), true);
      ASSERT_EQ(got.output.size(), plain.output.size());
      EXPECT_TRUE(got.output == plain.output);
    }
  }
}

TEST(gpu_task_pools, julia_identical_to_plain_for_every_offset) {
  PFSP_DIV_REQUIRE_GPU();
  for (int offset : {0, 1, 2}) {
    julia_spec spec;
    spec.width = 256;
    spec.height = 132;
    spec.offset = offset;
    spec.crunch = 300;
    const auto plain = run_termination(spec, std::nullopt, once(), true);
    std::vector<std::uint32_t> host(static_cast<std::size_t>(spec.width) * spec.height);
    simulate_plain(julia::make(spec.width, spec.height, offset, spec.crunch, host.data()), sim_config{});
    ASSERT_EQ(plain.output, host) << "plain kernel differs from the host, offset " << offset;
    for (const auto& p : strategies(10u + static_cast<std::uint32_t>(offset))) {
      SCOPED_TRACE(describe(p) + " offset=" + std::to_string(offset));
      EXPECT_TRUE(run_termination(spec, p, once(), true).output == plain.output);
    }
  }
}

TEST(gpu_context_switch, monte_carlo_branch_identical_to_plain) {
  PFSP_DIV_REQUIRE_GPU();
  for (double prob : {0.03, 0.5, 0.97}) {
    mc_branch_spec spec;
    spec.tasks = 40009;
    spec.branch = prob;
    spec.outer = 40;
    spec.inner = 24;
    const auto plain = run_branch(spec, std::nullopt, once(), true);
    std::vector<std::uint32_t> host(spec.tasks);
    mc_branch b;
    b.tasks = spec.tasks;
    b.branch_threshold = probability_threshold(prob);
    b.outer = spec.outer;
    b.inner = spec.inner;
    b.out_sum = host.data();
    simulate_branch_plain(b);
    ASSERT_EQ(plain.output, host) << "plain kernel differs from the host, p=" << prob;
    for (std::uint32_t pool : {32u, 96u, 160u})
      for (std::uint32_t interval : {1u, 8u})
        for (bool deflt : {false, true}) {
          SCOPED_TRACE("p=" + std::to_string(prob) + " pool=" + std::to_string(pool) +
                       " interval=" + std::to_string(interval) + " default=" + std::to_string(deflt));
          EXPECT_TRUE(run_branch(spec, context_switch_params{pool, interval, deflt}, once(), true).output ==
                      plain.output);
        }
  }
}

TEST(gpu_remap, every_plan_and_mechanism_identical_to_plain) {
  PFSP_DIV_REQUIRE_GPU();
  for (remap_workload w : {remap_workload::gafort, remap_workload::black_scholes}) {
    remap_spec spec;
    spec.workload = w;
    spec.chunk_elements = 50021;
    spec.chunks = 4;
    spec.seed = 7;
    spec.work = 4;
    spec.bs_passes = 2;
    pipeline_options plain_opt;
    plain_opt.remap = false;
    const auto plain = run_remap_pipeline(spec, {}, plain_opt, true);
    ASSERT_EQ(plain.report.remapped, 0u);
    for (remap_plan_kind plan : {remap_plan_kind::lam, remap_plan_kind::sort})
      for (remap_mechanism m : {remap_mechanism::reference_redirection, remap_mechanism::layout_transformation}) {
        SCOPED_TRACE(std::string(to_string(w)) + " " + to_string(plan) + " " + to_string(m));
        pipeline_options opt;
        opt.wait_for_late = true;  // every chunk after the warm-up really runs remapped
        opt.efficiency.enabled = false;
        const auto got = run_remap_pipeline(spec, {plan, m}, opt, true);
        EXPECT_EQ(got.report.remapped, spec.chunks - 1);
        ASSERT_EQ(got.output.size(), plain.output.size());
        EXPECT_TRUE(got.output == plain.output);
      }
  }
}

TEST(gpu_remap, efficiency_control_keeps_black_scholes_plain) {
  PFSP_DIV_REQUIRE_GPU();
  remap_spec spec;
  spec.workload = remap_workload::black_scholes;
  spec.chunk_elements = 1 << 16;
  spec.chunks = 10;
  pipeline_options opt;
  opt.wait_for_late = true;
  const auto r = run_remap_pipeline(spec, {}, opt, false);
  EXPECT_EQ(r.report.remapped, 0u);
  EXPECT_EQ(r.report.final_state, remap_state::off);
}

}  // namespace
}  // namespace pfsp::divergence::gpu
