// The lower-bound ascent (app/ascent.hpp, `pfsp solve --ascent`):
//   - against brute force: from a first search stopped at once, the steps below L = its bound + 1,
//     + 2, ... reach the optimum and prove it, with its schedule, on random instances with ties;
//   - the steps happen (a test that cannot fail proves nothing) and each is noted;
//   - through the CLI: ta015 proven by the ascent, --time-limit kept, and --ascent refused beside
//     --checkpoint and --resume (exit 2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/ascent.hpp"
#include "bound/bound_data.hpp"
#include "problem/makespan.hpp"
#include "run_process.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

int count_steps(const solve_result& r) {
  int steps = 0;
  for (const std::string& note : r.notes) steps += note.rfind("ascent: below ", 0) == 0 ? 1 : 0;
  return steps;
}

TEST(ascent, reaches_and_proves_the_brute_force_optimum) {
  int steps = 0;
  for (const sample& c : small_samples(7, 9, 2, 5, 2, 4700)) {
    const bound_data data(c.inst);
    const int optimum = brute_force_optimum(c.inst);
    for (bound_kind bound : {bound_kind::lb1, bound_kind::lb1_lb2}) {
      solve_options base;
      base.bound = bound;
      base.use_neh = false;  // no schedule at first: the steps find it
      base.time_origin = std::chrono::steady_clock::now();
      auto search = [&data](solve_options& o, const incumbent& from) { return solve_sequential(data, o, from); };
      // A first search of no time: it stops at its first clock check, or finishes first.
      const solve_result r = run_ascent(search, base, incumbent(), 0.0);
      const std::string what = c.what + " " + std::string(to_string(bound));
      ASSERT_EQ(r.status, solve_status::optimal) << what;
      EXPECT_EQ(r.makespan, optimum) << what;
      EXPECT_EQ(r.lower_bound, optimum) << what;
      std::vector<job_t> s(r.schedule.begin(), r.schedule.end());
      EXPECT_EQ(naive_makespan(c.inst, s), optimum) << what;
      steps += count_steps(r);
    }
  }
  EXPECT_GT(steps, 20) << "the ascent never stepped: these checks proved nothing";
}

TEST(ascent_cli, proves_ta015_and_notes_its_steps) {
  const auto r =
      run_pfsp({"solve", "ta015", "--ascent", "0.01", "--backend", "cpu", "--improver-threads", "0", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("status       optimal"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("makespan     1419"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("ascent: below 1419: optimal"), std::string::npos) << r.describe();
}

TEST(ascent_cli, keeps_the_time_limit) {
  // ta021 on one CPU thread is minutes: the ascent is stopped by the limit, exit 3.
  const auto r = run_pfsp({"solve", "ta021", "--ascent", "0.3", "--time-limit", "1.5", "--backend", "cpu",
                           "--improver-threads", "0", "--no-progress", "-q"},
                          -1, 30);
  EXPECT_EQ(r.exit_code, 3) << r.describe();
  EXPECT_EQ(r.out.rfind("time_limit ", 0), 0u) << r.describe();
}

TEST(ascent_cli, refuses_checkpoints) {
  test::temp_dir dir;
  const auto r = run_pfsp({"solve", "ta015", "--ascent", "1", "--checkpoint", dir.file("a.ckpt")});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("--ascent"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace pfsp::test
