// The beam search's pass on the GPU (gpu/device_beam.hpp): the same schedule as the CPU's pass
// (heuristic/beam.hpp) for every width, target and direction mode tried, random and Taillard
// instances up to 500x20; as wide as the tree it finds the brute-force optimum and nothing below
// it; it stops when asked; and the engine on the gpu backend runs its bisecting beam there.
#include <gtest/gtest.h>

#include <atomic>
#include <climits>
#include <string>

#include "app/solve_api.hpp"
#include "gpu/device_beam.hpp"
#include "gpu_test_support.hpp"
#include "heuristic/beam.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"

namespace pfsp::test {
namespace {

// Widths and targets: the unbounded pass, the best pass's makespan (only strictly better counts)
// and a target just above the best-known lower bound (most children pruned).
void expect_same_passes(const instance& inst, const std::vector<int>& widths, const std::string& what) {
  for (const bool bidirectional : {true, false}) {
    beam_search cpu(inst, beam_options{1, 1 << 20, bidirectional});
    gpu::device_beam gpu(inst, 0, bidirectional);
    const int reference = evaluate_schedule(inst, cpu.pass(widths.back(), INT_MAX, nullptr));
    const int tight = inst.known ? inst.known->lb + 1 : reference;
    for (const int target : {INT_MAX, reference, tight}) {
      for (const int width : widths) {
        const std::vector<int> expected = cpu.pass(width, target, nullptr);
        const std::vector<int> got = gpu.pass(width, target, nullptr);
        EXPECT_EQ(got, expected) << what << " width " << width << " target " << target << " bidirectional "
                                 << bidirectional;
        if (!got.empty()) {
          EXPECT_LT(evaluate_schedule(inst, got), target);
        }
      }
    }
  }
}

TEST(GpuBeam, PassesEqualTheCpuPassesOnRandomInstances) {
  PFSP_REQUIRE_GPU();
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    const int n = 6 + static_cast<int>(seed % 6), m = 2 + static_cast<int>(seed * 3 % 19);
    const instance inst = random_instance(n, m, seed, 1, 10 + static_cast<int>(seed) * 10);  // ties at small times
    expect_same_passes(inst, {1, 3, 16, 200}, "random seed " + std::to_string(seed));
  }
}

TEST(GpuBeam, PassesEqualTheCpuPassesOnTaillardInstances) {
  PFSP_REQUIRE_GPU();
  expect_same_passes(taillard_instance("ta001"), {1, 8, 128, 1024}, "ta001");
  expect_same_passes(taillard_instance("ta021"), {1, 64, 512}, "ta021");
  expect_same_passes(taillard_instance("ta081"), {1, 32, 256}, "ta081");
  expect_same_passes(taillard_instance("ta111"), {1, 16}, "ta111");
}

TEST(GpuBeam, AsWideAsTheTreeItFindsTheOptimumAndNothingBelow) {
  PFSP_REQUIRE_GPU();
  for (std::uint32_t seed = 21; seed <= 28; ++seed) {
    const int n = 5 + static_cast<int>(seed % 3), m = 2 + static_cast<int>(seed % 5);
    const instance inst = random_instance(n, m, seed, 1, 20);
    const int optimum = brute_force_optimum(inst);
    gpu::device_beam gpu(inst, 0);
    const std::vector<int> s = gpu.pass(5040, INT_MAX, nullptr);
    ASSERT_EQ(static_cast<int>(s.size()), n) << "seed " << seed;
    EXPECT_EQ(evaluate_schedule(inst, s), optimum) << "seed " << seed;
    EXPECT_TRUE(gpu.pass(5040, optimum, nullptr).empty()) << "seed " << seed;
    EXPECT_GT(gpu.children(), 0u);
  }
}

TEST(GpuBeam, AStoppedPassReturnsNothing) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta111");
  gpu::device_beam gpu(inst, 0);
  const std::atomic<bool> stop{true};
  EXPECT_TRUE(gpu.pass(64, INT_MAX, &stop).empty());
  EXPECT_GE(gpu.width_cap(), 1024);  // 500x20 fits a wide beam in a quarter of a GPU's free memory
}

TEST(GpuBeam, TheEngineOnTheGpuBackendRunsItsBeamThere) {
  PFSP_REQUIRE_GPU();
  solve_args a;
  a.instance_spec = "ta081";
  a.backend = backend_choice::gpu;
  a.time_limit = 4;
  a.beam_on = beam_device::gpu;
  const instance inst = taillard_instance("ta081");
  const solve_outcome o = solve_instance(inst, a, {}, nullptr);
  bool on_gpu = false;
  for (const std::string& note : o.result.notes)
    on_gpu = on_gpu || note.find("beam search on the GPU") != std::string::npos;
  EXPECT_TRUE(on_gpu);
  EXPECT_EQ(evaluate_schedule(inst, o.result.schedule), o.result.makespan);
  EXPECT_GE(o.result.makespan, inst.known->lb);
}

}  // namespace
}  // namespace pfsp::test
