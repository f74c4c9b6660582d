// --time-limit T ends the GPU backend within max(1 s, 5 % of T) (issue 21, item 4) on the classes
// where it used not to: 500 x 20 (the device loop's nodes at 500 jobs, the GPU walkers beside it,
// a stack that may spill) and 200 x 20, with the default options (device loop, CPU and GPU
// walkers) and on the host loop. The real command, as tests/test_time_limits.cpp runs it for the
// CPU backends: pfsp's own wall time (the JSON's wall_seconds, which counts from pfsp solve's
// start, the CUDA context and the start heuristic included) at most T + 1 s, and from outside
// 1 s more for the process start and exit and the CUDA driver's own start and teardown. And the
// device loop's default bound by size, as the real command reports it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/bounder.hpp"
#include "time_limit_check.hpp"

namespace pfsp {
namespace {

void expect_ends_in_time(const std::string& name, const std::vector<std::string>& extra) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  test::expect_solve_ends_in_time(name, 3.0, 1.0, extra);
}

TEST(gpu_time_limits, device_loop_500x20_ends_in_time) { expect_ends_in_time("ta112", {}); }
// The chain, which `--bound auto` no longer runs from 200 jobs (default_bound, solver_config.hpp).
TEST(gpu_time_limits, device_loop_500x20_chain_ends_in_time) { expect_ends_in_time("ta115", {"--bound", "lb1-lb2"}); }
// The search alone (no incumbent engine: with the beam on the GPU the engine proves ta117 in about 3 s).
TEST(gpu_time_limits, device_loop_500x20_lb1_ends_in_time) {
  expect_ends_in_time("ta117", {"--bound", "lb1", "--improver-threads", "0"});
}
TEST(gpu_time_limits, device_loop_200x20_ends_in_time) { expect_ends_in_time("ta101", {}); }
TEST(gpu_time_limits, host_loop_500x20_ends_in_time) { expect_ends_in_time("ta113", {"--gpu-loop", "host"}); }

// --bound auto on the device loop (default_bound): the chain below 200 jobs but LB1 alone at 100-199
// jobs x 20-39 machines (ta081) and from 200 jobs, as the real command reports it in its JSON;
// ta091 (200x10) proven with it. The child order: the bound's.
TEST(gpu_defaults, bound_auto_is_the_chain_below_200_jobs_and_lb1_from_200) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  struct expected {
    const char* name;
    const char* limit;
    const char* bound;
  };
  for (const expected& e :
       {expected{"ta051", "1", "lb1-lb2"}, expected{"ta081", "1", "lb1"}, expected{"ta091", "30", "lb1"}}) {
    test::temp_dir dir;
    const std::string json = dir.file("result.json");
    const auto r =
        test::run_pfsp({"solve", e.name, "--time-limit", e.limit, "--no-progress", "-q", "--json", json}, -1, 120);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.describe();
    const std::string text = test::slurp(json);
    EXPECT_NE(text.find(std::string("\"bound\": \"") + e.bound + "\""), std::string::npos) << e.name << ": " << text;
    // The GPU keeps the bound's child order unless --child-order names one (plan_backend).
    EXPECT_NE(text.find("\"child_order\": \"bound\""), std::string::npos) << e.name << ": " << text;
    if (std::string(e.name) == "ta091") {
      EXPECT_EQ(r.exit_code, 0) << r.describe();
      EXPECT_EQ(test::json_number(text, "makespan"), 10862) << text;  // Taillard's optimum, proven
    }
  }
}

}  // namespace
}  // namespace pfsp
