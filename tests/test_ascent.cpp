// The lower-bound ascent (app/ascent.hpp, `pfsp solve --ascent`):
//   - against brute force: from a first search stopped at once, the steps below L = its bound + 1,
//     + 2, ... reach the optimum and prove it, with its schedule, on random instances with ties;
//   - the steps happen (a test that cannot fail proves nothing) and each is noted;
//   - the jump between steps at most doubles (a fake search with steps of no time);
//   - the first tree big enough to measure the growth is followed by a unit step that measures it;
//   - a jump past the optimum into a tree that stalls is cut short and the ascent goes on in unit
//     steps to the optimum (ta101 on one H100 jumped from 11152 to 11166, the plain search's tree);
//   - through the CLI: ta015 proven by the ascent, --time-limit kept, and --ascent refused beside
//     --checkpoint and --resume (exit 2).
#include <gtest/gtest.h>

#include <algorithm>
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

// A search that stands for a big instance: the first search stops at the time limit with bound 100
// and schedule 200; a step below L proves L where L <= 170 (the optimum) and finds 170 above it.
// Every step takes no time, so the time left never limits the jump: only the doubling rule does.
TEST(ascent, jumps_at_most_double_from_step_to_step) {
  constexpr int optimum = 170;
  std::vector<int> below;  // each step's L
  auto search = [&below](solve_options& o, const incumbent&) {
    solve_result r;
    r.schedule = {0, 1, 2};
    if (!o.initial_ub) {
      r.status = solve_status::time_limit, r.makespan = 200, r.lower_bound = 100;
      return r;
    }
    below.push_back(*o.initial_ub);
    r.status = *o.initial_ub <= optimum ? solve_status::proven_bound : solve_status::optimal;
    r.makespan = r.status == solve_status::optimal ? optimum : 200;
    r.lower_bound = r.status == solve_status::optimal ? optimum : *o.initial_ub;
    return r;
  };
  solve_options base;
  base.time_limit = 1000;
  base.time_origin = std::chrono::steady_clock::now();
  const solve_result r = run_ascent(search, base, incumbent(), 1.0);
  EXPECT_EQ(r.status, solve_status::optimal);
  EXPECT_EQ(r.lower_bound, optimum);
  ASSERT_GE(below.size(), 4u) << "the ascent should climb 70 units in several steps";
  EXPECT_EQ(below[0], 101);
  EXPECT_LE(below[1] - below[0], 2);
  for (std::size_t i = 2; i < below.size(); ++i)
    EXPECT_LE(below[i] - below[i - 1], 2 * (below[i - 1] - below[i - 2])) << "step " << i;
  EXPECT_GT(below.back(), optimum) << "the last step is the one that finds the optimum";
}

// A stand-in for a big instance, as above (first search: bound 100, schedule 200; optimum 170):
// trees of `nodes_below(L)` nodes, and a search below L > 171 stalls (the plain search's tree from a
// far incumbent) until its time limit.
template <class Nodes>
ascent_search fake_instance(std::vector<int>& below, std::vector<double>& limits, Nodes nodes_below) {
  constexpr int optimum = 170;
  return [&below, &limits, nodes_below](solve_options& o, const incumbent&) {
    solve_result r;
    r.schedule = {0, 1, 2};
    r.makespan = 200;
    if (!o.initial_ub) {
      r.status = solve_status::time_limit, r.lower_bound = 100;
      return r;
    }
    const int L = *o.initial_ub;
    below.push_back(L);
    limits.push_back(o.time_limit);
    r.stats.branched = nodes_below(L);
    if (L <= optimum) r.status = solve_status::proven_bound, r.lower_bound = L;
    if (L == optimum + 1) r.status = solve_status::optimal, r.makespan = r.lower_bound = optimum;
    if (L > optimum + 1) r.status = solve_status::time_limit, r.lower_bound = optimum - 20;
    return r;
  };
}

solve_options thousand_seconds() {
  solve_options base;
  base.time_limit = 1000;
  base.time_origin = std::chrono::steady_clock::now();
  return base;
}

TEST(ascent, cuts_short_a_jump_past_the_optimum_and_goes_on_in_unit_steps) {
  std::vector<int> below;
  std::vector<double> limits;
  const solve_result r =
      run_ascent(fake_instance(below, limits, [](int) { return 10; }), thousand_seconds(), incumbent(), 1.0);
  ASSERT_EQ(r.status, solve_status::optimal) << "a jump into the stalling tree ended the ascent";
  EXPECT_EQ(r.lower_bound, 170);
  int cut = 0;
  for (std::size_t i = 0; i < below.size(); ++i) {
    if (below[i] <= 171) continue;
    ++cut;
    EXPECT_LT(limits[i], 100) << "a jump of tiny trees gets its own short share, not the whole limit";
    ASSERT_LT(i + 1, below.size());
    EXPECT_LT(below[i + 1], below[i]) << "after a cut, a unit step from the bound proven";
  }
  EXPECT_GE(cut, 1) << "no jump went past the optimum: the test checks nothing";
  bool noted = false;
  for (const std::string& note : r.notes) noted |= note.find("cut short") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ascent, measures_the_growth_with_a_unit_step_at_the_first_big_tree) {
  std::vector<int> below;
  std::vector<double> limits;
  auto nodes = [](int L) { return L < 130 ? 10LL : 200000LL << std::min(L - 130, 20); };
  const solve_result r = run_ascent(fake_instance(below, limits, nodes), thousand_seconds(), incumbent(), 1.0);
  EXPECT_EQ(r.status, solve_status::optimal);
  std::size_t first_big = 0;
  while (first_big < below.size() && below[first_big] < 130) ++first_big;
  ASSERT_LT(first_big + 1, below.size());
  EXPECT_GT(below[first_big] - below[first_big - 1], 1) << "tiny trees below: the jumps doubled";
  EXPECT_EQ(below[first_big + 1], below[first_big] + 1) << "the first measurable tree: a unit step next";
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
