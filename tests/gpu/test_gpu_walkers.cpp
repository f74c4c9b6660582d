// The incumbent engine's GPU walkers (gpu/walkers.hpp): the device's insertion values equal the
// CPU kernel's (heuristic/insertion.hpp) for every position of random partial sequences; walkers
// publish only permutations, which the engine re-evaluates, improve a poor start, and stop
// promptly; and `pfsp solve` with walkers proves the same optimum.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <random>
#include <thread>

#include "app/solve_api.hpp"
#include "gpu/walkers.hpp"
#include "gpu_test_support.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/insertion.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"

namespace pfsp::test {
namespace {

TEST(GpuWalkers, InsertionValuesEqualTheCpuKernel) {
  PFSP_REQUIRE_GPU();
  std::mt19937 rng(11);
  for (const auto& [n, m] :
       {std::pair{7, 3}, std::pair{20, 20}, std::pair{50, 32}, std::pair{100, 5}, std::pair{500, 20}}) {
    const instance inst = generate_taillard(n, m, static_cast<std::uint32_t>(1000 + n + m));
    insertion_kernel cpu(inst);
    std::vector<int> jobs(static_cast<std::size_t>(n));
    std::iota(jobs.begin(), jobs.end(), 0);
    for (int trial = 0; trial < 5; ++trial) {
      std::shuffle(jobs.begin(), jobs.end(), rng);
      const int len = static_cast<int>(rng() % static_cast<unsigned>(n));
      const std::vector<int> seq(jobs.begin(), jobs.begin() + len);
      const int job = jobs[static_cast<std::size_t>(n - 1)];
      cpu.load(seq.data(), len);
      std::vector<int> expected(static_cast<std::size_t>(len) + 1);
      cpu.insertion_values(job, expected.data());
      EXPECT_EQ(gpu::device_insertion_values(inst, seq, job), expected) << n << "x" << m << " len " << len;
    }
  }
}

TEST(GpuWalkers, ImproveAPoorStartWithExactSchedulesAndStopPromptly) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta051");
  std::vector<int> identity(static_cast<std::size_t>(inst.n));
  std::iota(identity.begin(), identity.end(), 0);
  const int start = evaluate_schedule(inst, identity);
  concurrent_improver engine(inst, identity, 0, 1);  // no CPU walkers: only the GPU improves it
  gpu::walker_hooks hooks{[&] { return engine.best_value(); }, [&] { return engine.best_schedule(); },
                          [&](const std::vector<int>& s) { engine.publish_external(s); }};
  gpu::gpu_walkers walkers(inst, 0, 16, 3, hooks);
  const auto t0 = std::chrono::steady_clock::now();
  while (engine.external_improvements() < 3 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto s0 = std::chrono::steady_clock::now();
  walkers.stop();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count(), 2.0);
  EXPECT_GE(engine.external_improvements(), 3);
  EXPECT_LT(engine.best_value(), start);
  EXPECT_LE(engine.best_value(), neh(inst).makespan);  // IG from anywhere beats NEH on ta051 within seconds
  EXPECT_EQ(evaluate_schedule(inst, engine.best_schedule()), engine.best_value());
  EXPECT_GT(walkers.rounds(), 0u);
}

TEST(GpuWalkers, SolveWithWalkersProvesTheOptimum) {
  PFSP_REQUIRE_GPU();
  for (const char* name : {"ta001", "ta031"}) {
    solve_args a;
    a.instance_spec = name;
    a.backend = backend_choice::gpu;
    a.gpu_walkers = 8;
    const instance inst = taillard_instance(name);
    const solve_outcome o = solve_instance(inst, a, {}, nullptr);
    EXPECT_EQ(o.result.status, solve_status::optimal) << name;
    EXPECT_EQ(o.result.makespan, inst.known->ub) << name;
  }
}

}  // namespace
}  // namespace pfsp::test
