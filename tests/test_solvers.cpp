// Differential tests of the solvers: every configuration of the sequential B&B (bound x branching
// x selection) and of the multi-threaded one (bound x branching x threads x work stealing/shared
// queue) against the brute-force optimum of small random instances, with and without a first
// incumbent and with an initial upper bound at, above and below the optimum. Then the stops:
// node limit, time limit, interrupt.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "cpu/parallel.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "search/control.hpp"
#include "search/sequential.hpp"
#include "search/types.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

constexpr bound_kind all_bounds[] = {bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2};
constexpr branching all_branchings[] = {branching::forward, branching::backward, branching::min_branch,
                                        branching::min_min};
constexpr selection all_selections[] = {selection::depth_first, selection::breadth_first, selection::best_first};

struct case_instance {
  instance inst;
  std::string what;
  int optimum;
};

// n in 3..9, m in 2..6: Taillard's generator and other time ranges (ties, wide spreads).
const std::vector<case_instance>& cases() {
  static const std::vector<case_instance> all = [] {
    std::vector<case_instance> v;
    const int shapes[][2] = {{3, 2}, {4, 3}, {5, 2}, {5, 6}, {6, 4}, {7, 3}, {7, 5}, {8, 2}, {8, 4}, {9, 3}, {9, 6}};
    std::uint32_t seed = 4000;
    int i = 0;
    for (const auto& s : shapes) {
      ++seed;
      test::sample smp;
      switch (i++ % 4) {
        case 0:
          smp = {generate_taillard(s[0], s[1], seed), "generate_taillard(" + std::to_string(s[0]) + ", " +
                                                          std::to_string(s[1]) + ", " + std::to_string(seed) + ")"};
          break;
        case 1:
          smp = {test::random_instance(s[0], s[1], seed, 1, 5), "random_instance(" + std::to_string(s[0]) + ", " +
                                                                    std::to_string(s[1]) + ", seed " +
                                                                    std::to_string(seed) + ", times 1..5)"};
          break;
        case 2:
          smp = {test::random_instance(s[0], s[1], seed, 1, 10000), "random_instance(" + std::to_string(s[0]) + ", " +
                                                                        std::to_string(s[1]) + ", seed " +
                                                                        std::to_string(seed) + ", times 1..10000)"};
          break;
        default:
          smp = {generate_taillard(s[0], s[1], seed * 7), "generate_taillard(" + std::to_string(s[0]) + ", " +
                                                              std::to_string(s[1]) + ", " + std::to_string(seed * 7) +
                                                              ")"};
          break;
      }
      const int opt = test::brute_force_optimum(smp.inst);
      v.push_back({std::move(smp.inst), std::move(smp.what), opt});
    }
    return v;
  }();
  return all;
}

std::string describe(const solve_options& o, bool parallel, const char* start) {
  std::string s = std::string(parallel ? "solve_parallel" : "solve_sequential") + " bound " +
                  std::string(to_string(o.bound)) + ", branching " + std::string(to_string(o.branch)) + ", selection " +
                  std::string(to_string(o.select));
  if (parallel) s += ", threads " + std::to_string(o.threads) + (o.shared_queue ? ", shared queue" : ", work stealing");
  s += std::string(", start ") + start;
  if (o.initial_ub) s += ", initial_ub " + std::to_string(*o.initial_ub);
  return s;
}

// The schedule is a permutation whose makespan is the one reported.
void expect_consistent_schedule(const instance& inst, const solve_result& r) {
  if (r.schedule.empty()) {
    EXPECT_EQ(r.makespan, 0);
    return;
  }
  ASSERT_EQ(static_cast<int>(r.schedule.size()), inst.n);
  std::vector<int> sorted(r.schedule);
  std::sort(sorted.begin(), sorted.end());
  for (int j = 0; j < inst.n; ++j) ASSERT_EQ(sorted[j], j) << "not a permutation: " << test::to_text(r.schedule);
  EXPECT_EQ(r.makespan, evaluate_schedule(inst, r.schedule)) << "schedule " << test::to_text(r.schedule);
}

void expect_complete_search(const solve_result& r) { EXPECT_NEAR(r.stats.explored, 1.0, 1e-9); }

void expect_optimal(const case_instance& c, const solve_result& r) {
  EXPECT_EQ(r.status, solve_status::optimal) << to_string(r.status);
  EXPECT_EQ(r.makespan, c.optimum);
  EXPECT_EQ(r.lower_bound, c.optimum);
  expect_consistent_schedule(c.inst, r);
  expect_complete_search(r);
}

incumbent neh_start(const instance& inst) {
  const neh_result h = neh(inst);
  return incumbent(h.makespan, h.schedule);
}

solve_result solve(bool parallel, const bound_data& data, const solve_options& o, const incumbent& start) {
  return parallel ? solve_parallel(data, o, start) : solve_sequential(data, o, start);
}

// Runs one configuration from both starts and with initial upper bounds around the optimum.
void check_configuration(const case_instance& c, const bound_data& data, solve_options o, bool parallel) {
  const incumbent empty, from_neh = neh_start(c.inst);
  for (const auto& [start, start_name] :
       {std::pair<const incumbent&, const char*>{empty, "empty"}, {from_neh, "NEH"}}) {
    o.initial_ub.reset();
    {
      SCOPED_TRACE(c.what + ": " + describe(o, parallel, start_name));
      expect_optimal(c, solve(parallel, data, o, start));
    }
    // --ub at the optimum: nothing below it exists, which the search proves.
    o.initial_ub = c.optimum;
    {
      SCOPED_TRACE(c.what + ": " + describe(o, parallel, start_name));
      const solve_result r = solve(parallel, data, o, start);
      EXPECT_TRUE(r.status == solve_status::proven_bound || r.status == solve_status::optimal) << to_string(r.status);
      EXPECT_EQ(r.lower_bound, c.optimum);
      if (r.status == solve_status::optimal) {
        EXPECT_EQ(r.makespan, c.optimum);
      }
      if (start.value() > c.optimum) {
        EXPECT_EQ(r.status, solve_status::proven_bound);
        EXPECT_EQ(r.makespan, start.schedule().empty() ? 0 : start.value());
      }
      expect_consistent_schedule(c.inst, r);
      expect_complete_search(r);
    }
    // --ub just above the optimum: an optimal schedule is found.
    o.initial_ub = c.optimum + 1;
    {
      SCOPED_TRACE(c.what + ": " + describe(o, parallel, start_name));
      expect_optimal(c, solve(parallel, data, o, start));
    }
  }
}

TEST(solvers, sequential_every_bound_branching_and_selection) {
  for (const auto& c : cases()) {
    const bound_data data(c.inst);
    for (bound_kind b : all_bounds)
      for (branching br : all_branchings)
        for (selection sel : all_selections) {
          solve_options o;
          o.bound = b;
          o.branch = br;
          o.select = sel;
          check_configuration(c, data, o, false);
        }
  }
}

TEST(solvers, parallel_every_bound_branching_threads_and_mode) {
  for (const auto& c : cases()) {
    const bound_data data(c.inst);
    for (bound_kind b : all_bounds)
      for (branching br : all_branchings)
        for (int threads : {1, 2, 3})
          for (bool shared : {false, true}) {
            solve_options o;
            o.bound = b;
            o.branch = br;
            o.threads = threads;
            o.shared_queue = shared;
            check_configuration(c, data, o, true);
          }
  }
}

// Larger searches, where threads do run out of work and steal: ta001..ta005 (optima from
// Taillard's table) and two n = 10 instances (brute force), from an empty incumbent, against the
// sequential solver's node-independent result.
TEST(solvers, parallel_on_larger_instances_matches_known_optima) {
  std::vector<case_instance> big;
  for (const char* name : {"ta001", "ta002", "ta003", "ta004", "ta005"}) {
    instance inst = taillard_instance(name);
    ASSERT_TRUE(inst.known && inst.known->optimal);
    const int opt = inst.known->ub;
    big.push_back({std::move(inst), name, opt});
  }
  for (std::uint32_t seed : {10001u, 10002u}) {
    instance inst = generate_taillard(10, 4, seed);
    const int opt = test::brute_force_optimum(inst);
    big.push_back({std::move(inst), "generate_taillard(10, 4, " + std::to_string(seed) + ")", opt});
  }
  const incumbent empty;
  for (const auto& c : big) {
    const bound_data data(c.inst);
    for (bound_kind b : {bound_kind::lb1, bound_kind::lb1_lb2})
      for (int threads : {2, 3})
        for (bool shared : {false, true}) {
          solve_options o;
          o.bound = b;
          o.branch = branching::min_branch;
          o.threads = threads;
          o.shared_queue = shared;
          SCOPED_TRACE(c.what + ": " + describe(o, true, "empty"));
          expect_optimal(c, solve_parallel(data, o, empty));
        }
    solve_options o;
    SCOPED_TRACE(c.what + ": " + describe(o, false, "empty"));
    expect_optimal(c, solve_sequential(data, o, empty));
  }
}

// --ub below the optimum: no schedule below it exists; the result says so without claiming more.
TEST(solvers, initial_ub_below_the_optimum_proves_the_bound) {
  for (const auto& c : cases()) {
    const bound_data data(c.inst);
    for (bool parallel : {false, true}) {
      solve_options o;
      o.bound = bound_kind::lb1_lb2;
      o.threads = 2;
      o.initial_ub = c.optimum - 1;
      const incumbent empty;
      SCOPED_TRACE(c.what + ": " + describe(o, parallel, "empty"));
      const solve_result r = solve(parallel, data, o, empty);
      EXPECT_EQ(r.status, solve_status::proven_bound) << to_string(r.status);
      EXPECT_EQ(r.lower_bound, c.optimum - 1);
      EXPECT_TRUE(r.schedule.empty());
      expect_complete_search(r);
    }
  }
}

TEST(solvers, parallel_rejects_other_selections) {
  const case_instance& c = cases().front();
  const bound_data data(c.inst);
  solve_options o;
  o.select = selection::best_first;
  EXPECT_THROW(solve_parallel(data, o, incumbent()), input_error);
}

// ---------------------------------------------------------------------------------------------
// Stops. ta021 (20 x 20, optimum 2297) needs far more than the 1024 branched nodes between checks.

struct stop_case {
  bool parallel;
  bool shared_queue;
  selection select;
};

std::vector<stop_case> stop_cases() {
  return {{false, false, selection::depth_first},
          {false, false, selection::breadth_first},
          {false, false, selection::best_first},
          {true, false, selection::depth_first},
          {true, true, selection::depth_first}};
}

void expect_stopped(const instance& inst, const solve_result& r, solve_status want) {
  const int opt = inst.known->ub;
  ASSERT_TRUE(inst.known->optimal);
  EXPECT_EQ(r.status, want) << to_string(r.status);
  EXPECT_LE(r.lower_bound, opt);
  EXPECT_GT(r.lower_bound, 0);
  ASSERT_FALSE(r.schedule.empty());  // started from NEH
  EXPECT_GE(r.makespan, opt);
  expect_consistent_schedule(inst, r);
  EXPECT_LT(r.stats.explored, 1.0);
}

TEST(solver_stops, node_limit) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  for (const auto& sc : stop_cases()) {
    solve_options o;
    o.select = sc.select;
    o.threads = 2;
    o.shared_queue = sc.shared_queue;
    o.node_limit = 10;
    SCOPED_TRACE("ta021: " + describe(o, sc.parallel, "NEH") + ", node_limit 10");
    const solve_result r = solve(sc.parallel, data, o, neh_start(inst));
    expect_stopped(inst, r, solve_status::node_limit);
    EXPECT_GE(r.stats.branched, 10u);
  }
}

TEST(solver_stops, time_limit) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  for (const auto& sc : stop_cases()) {
    solve_options o;
    o.select = sc.select;
    o.threads = 2;
    o.shared_queue = sc.shared_queue;
    o.time_limit = 0.05;
    SCOPED_TRACE("ta021: " + describe(o, sc.parallel, "NEH") + ", time_limit 0.05 s");
    const solve_result r = solve(sc.parallel, data, o, neh_start(inst));
    expect_stopped(inst, r, solve_status::time_limit);
    EXPECT_LT(r.stats.total_seconds, 5.0);
  }
}

TEST(solver_stops, interrupt_set_before_solving) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  std::atomic<bool> flag{true};
  for (const auto& sc : stop_cases()) {
    solve_options o;
    o.select = sc.select;
    o.threads = 2;
    o.shared_queue = sc.shared_queue;
    o.interrupt = &flag;
    SCOPED_TRACE("ta021: " + describe(o, sc.parallel, "NEH") + ", interrupt set");
    const solve_result r = solve(sc.parallel, data, o, neh_start(inst));
    expect_stopped(inst, r, solve_status::interrupted);
  }
}

// A limit means what it says: a solve stops after `node_limit` branched nodes (give or take one
// node per thread), not at the next multiple of the solver's internal check interval.
TEST(solver_stops, node_limit_is_not_overshot) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  for (const auto& sc : stop_cases()) {
    solve_options o;
    o.select = sc.select;
    o.threads = 2;
    o.shared_queue = sc.shared_queue;
    o.node_limit = 10;
    SCOPED_TRACE("ta021: " + describe(o, sc.parallel, "NEH") + ", node_limit 10");
    const solve_result r = solve(sc.parallel, data, o, neh_start(inst));
    EXPECT_EQ(r.status, solve_status::node_limit);
    EXPECT_LE(r.stats.branched, o.node_limit + static_cast<std::uint64_t>(sc.parallel ? o.threads : 0))
        << "branched " << r.stats.branched << " nodes with node_limit " << o.node_limit;
  }
}

// Time limits and Ctrl-C must be honoured promptly also where one node is expensive: ta091
// (200 x 10) with LB2 costs about 1.5 ms per branched node, so a solver that looked at the clock
// only every 1024 nodes would overshoot a 0.1 s limit by more than a second (ta111 by 15 s).
constexpr double kLimit = 0.1, kSlack = 1.0;

TEST(solver_stops, time_limit_is_honoured_on_expensive_nodes) {
  const instance inst = taillard_instance("ta091");
  const bound_data data(inst);
  for (bool parallel : {false, true}) {
    solve_options o;
    o.bound = bound_kind::lb2;
    o.threads = 2;
    o.time_limit = kLimit;
    SCOPED_TRACE("ta091: " + describe(o, parallel, "NEH") + ", time_limit 0.1 s");
    const auto t0 = std::chrono::steady_clock::now();
    const solve_result r = solve(parallel, data, o, neh_start(inst));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, solve_status::time_limit);
    EXPECT_LT(seconds, kLimit + kSlack) << "a 0.1 s time limit stopped the solve after " << seconds << " s ("
                                        << r.stats.branched << " nodes branched)";
  }
}

TEST(solver_stops, interrupt_is_honoured_on_expensive_nodes) {
  const instance inst = taillard_instance("ta091");
  const bound_data data(inst);
  for (bool parallel : {false, true}) {
    std::atomic<bool> flag{false};
    solve_options o;
    o.bound = bound_kind::lb2;
    o.threads = 2;
    o.interrupt = &flag;
    o.time_limit = 60;  // a safety net; the interrupt must come first
    SCOPED_TRACE("ta091: " + describe(o, parallel, "NEH") + ", interrupted after 0.1 s");
    const incumbent start = neh_start(inst);
    std::thread ctrl_c([&flag] {
      std::this_thread::sleep_for(std::chrono::duration<double>(kLimit));
      flag.store(true);
    });
    const auto t0 = std::chrono::steady_clock::now();
    const solve_result r = solve(parallel, data, o, start);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ctrl_c.join();
    EXPECT_EQ(r.status, solve_status::interrupted);
    EXPECT_LT(seconds, kLimit + kSlack) << "an interrupt after 0.1 s stopped the solve after " << seconds << " s ("
                                        << r.stats.branched << " nodes branched)";
  }
}

}  // namespace
}  // namespace pfsp

namespace pfsp {
namespace {

// Progress reports (and with them clock checks, time limits and checkpoints) must keep coming
// at the requested interval on long multi-threaded runs. A regression: worker 0 scheduled its
// next check against the total node count of all threads, so the interval grew geometrically.
TEST(solver_stops, parallel_progress_keeps_its_interval) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  for (bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared queue" : "work stealing");
    solve_options o;
    o.threads = 2;
    o.shared_queue = shared;
    o.initial_ub = 2297;
    o.time_limit = 3.0;
    o.progress_interval = 0.2;
    std::vector<double> at;
    o.on_progress = [&at](const progress_info& p) { at.push_back(p.elapsed); };
    const solve_result r = solve_parallel(data, o, incumbent());
    EXPECT_EQ(r.status, solve_status::time_limit);
    EXPECT_LT(r.stats.total_seconds, 3.5);
    ASSERT_GE(at.size(), 8u) << "only " << at.size() << " progress reports in a 3 s run at 0.2 s intervals";
    for (std::size_t i = 1; i < at.size(); ++i) EXPECT_LT(at[i] - at[i - 1], 0.6) << "gap before report " << i;
  }
}

}  // namespace
}  // namespace pfsp
