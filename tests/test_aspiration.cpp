// The aspiration beam search (heuristic/aspiration.hpp): with an exact prover the search ends on
// the optimum and says so; without one it still reaches the optimum of small instances, reporting
// only strict, exact improvements; app's plan (the search's root bound and the sequential
// branch-and-bound as prover) never starts or proves above the optimum; the engine with bisected
// targets publishes exact values and stops within its stop; --beam-target auto resolves by width.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <functional>
#include <map>
#include <numeric>
#include <thread>

#include "app/solve_api.hpp"
#include "heuristic/aspiration.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

// A thread that raises `stop` after `limit`, or earlier once `done()` holds; ending it early
// (request_stop, or its destruction) raises `stop` too.
std::jthread stop_after(
    std::atomic<bool>& stop, std::chrono::milliseconds limit, std::function<bool()> done = [] { return false; }) {
  return std::jthread([&stop, limit, done = std::move(done)](std::stop_token asked) {
    const auto t0 = std::chrono::steady_clock::now();
    while (!asked.stop_requested() && !done() && std::chrono::steady_clock::now() - t0 < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    stop = true;
  });
}

// With a prover that knows the optimum (as brute force), run() must end on it and return true.
TEST(aspiration, with_an_exact_prover_it_ends_on_the_optimum) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const int n = 5 + static_cast<int>(seed % 3), m = 3 + static_cast<int>(seed % 3);
    const instance inst = random_instance(n, m, seed, 1, 25);
    const int optimum = brute_force_optimum(inst);
    aspiration_search search(inst, aspiration_options{.first_cap = 2});
    int best = neh(inst).makespan, calls = 0;
    std::vector<int> values;
    aspiration_hooks hooks{
        .best = [&] { return best; },
        .on_better =
            [&](const std::vector<int>& s, int v) {
              EXPECT_EQ(evaluate_schedule(inst, s), v);
              EXPECT_LT(v, best);
              best = v;
              values.push_back(v);
            },
        .prove_below =
            [&](int value, double, const std::atomic<bool>*, std::vector<int>*) {
              ++calls;
              return value <= optimum;
            },
    };
    std::atomic<bool> stop{false};
    EXPECT_TRUE(search.run(hooks, &stop)) << "seed " << seed;
    EXPECT_EQ(best, optimum) << "seed " << seed;
    EXPECT_EQ(search.stats().lower, optimum) << "seed " << seed;
    EXPECT_GT(calls, 0);
  }
}

// A probe that finds a schedule below its value instead of proving (the probe at the best, once the
// lower bound is the best minus one: ta090's case) hands it over: with passes that never find one,
// the search still ends on the optimum, through the probes alone.
TEST(aspiration, a_schedule_a_probe_finds_is_not_lost) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const instance inst = random_instance(7, 4, seed, 1, 30);
    std::vector<int> optimal;
    const int optimum = brute_force_optimum(inst, &optimal);
    int best = neh(inst).makespan;
    if (best == optimum) continue;  // nothing to find
    aspiration_search search(inst, aspiration_options{.first_cap = 1});
    aspiration_hooks hooks{
        .best = [&] { return best; },
        .on_better =
            [&](const std::vector<int>& s, int v) {
              EXPECT_EQ(evaluate_schedule(inst, s), v);
              best = v;
            },
        .prove_below =
            [&](int value, double, const std::atomic<bool>*, std::vector<int>* found) {
              if (value <= optimum) return true;
              *found = optimal;
              return false;
            },
        .pass = [](int, int, const std::atomic<bool>*, const std::function<int()>&) { return std::vector<int>{}; },
        .width_ceiling = [] { return 1; },
    };
    std::atomic<bool> stop{false};
    EXPECT_TRUE(search.run(hooks, &stop)) << "seed " << seed;
    EXPECT_EQ(best, optimum) << "seed " << seed;
    EXPECT_GE(search.stats().probe_finds, 1) << "seed " << seed;
  }
}

// A lower bound proven outside the engine (the ascent's steps) keeps every target at or above it:
// without a prover the bisection would start from 0 and pass values below the optimum; with the
// optimum handed in, every pass aims at a schedule that exists, and the search ends on it.
TEST(aspiration, targets_stay_at_or_above_a_lower_bound_proven_outside) {
  int cases = 0;
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const instance inst = random_instance(8, 4, seed, 1, 30);
    std::vector<int> optimal;
    const int optimum = brute_force_optimum(inst, &optimal);
    std::vector<int> identity(inst.n);
    std::iota(identity.begin(), identity.end(), 0);
    int best = evaluate_schedule(inst, identity);  // a weak start: a gap to close
    if (best == optimum) continue;                 // nothing to aim at
    ++cases;
    std::vector<int> targets;  // each pass's target: a makespan below it
    aspiration_search search(inst, aspiration_options{.first_cap = 2});
    aspiration_hooks hooks{
        .best = [&] { return best; },
        .on_better = [&](const std::vector<int>&, int v) { best = v; },
        .outside_lower = [&] { return optimum; },
        .pass =
            [&](int, int target, const std::atomic<bool>*, const std::function<int()>&) {
              targets.push_back(target);
              return target > optimum ? optimal : std::vector<int>{};
            },
    };
    std::atomic<bool> stop{false};
    auto guard = stop_after(stop, std::chrono::milliseconds(5000));
    EXPECT_TRUE(search.run(hooks, &stop)) << "seed " << seed;
    EXPECT_EQ(best, optimum) << "seed " << seed;
    EXPECT_EQ(search.stats().lower, optimum) << "seed " << seed;
    ASSERT_FALSE(targets.empty()) << "seed " << seed;
    for (int t : targets) EXPECT_GT(t, optimum) << "a pass below the bound proven outside, seed " << seed;
  }
  EXPECT_GT(cases, 0) << "the identity was optimal on every seed: the test checks nothing";
}

// The caller's passes (aspiration_hooks::pass, as app binds the GPU's) replace the CPU beam's, and
// the cap stops at the caller's ceiling: every pass asked is at most that wide, and with an exact
// prover the search still ends on the optimum.
TEST(aspiration, the_callers_passes_run_up_to_the_callers_ceiling) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const instance inst = random_instance(7, 4, seed, 1, 30);
    const int optimum = brute_force_optimum(inst);
    beam_search beam(inst);
    int best = INT_MAX, widest = 0, passes = 0;  // no start schedule: the passes must find one
    aspiration_search search(inst, aspiration_options{.first_cap = 1});
    aspiration_hooks hooks{
        .best = [&] { return best; },
        .on_better = [&](const std::vector<int>&, int v) { best = v; },
        .prove_below = [&](int value, double, const std::atomic<bool>*, std::vector<int>*) { return value <= optimum; },
        .pass =
            [&](int width, int target, const std::atomic<bool>* stop, const std::function<int()>& outside) {
              ++passes;
              widest = std::max(widest, width);
              return beam.pass(width, target, stop, outside);
            },
        .width_ceiling = [] { return 16; },
    };
    std::atomic<bool> stop{false};
    std::jthread stopper = stop_after(stop, std::chrono::seconds(5));
    const bool proven = search.run(hooks, &stop);
    stopper.request_stop();
    EXPECT_GT(passes, 0) << "seed " << seed;
    EXPECT_LE(widest, 16) << "seed " << seed;
    EXPECT_LE(search.stats().cap, 16) << "seed " << seed;
    EXPECT_TRUE(proven) << "seed " << seed;  // width 16 with an exact prover reaches 7 jobs' optimum
    EXPECT_EQ(best, optimum) << "seed " << seed;
  }
}

// At the width ceiling a pass depends on its width and target only: a value that failed there is
// not passed again (stats.skipped), with a prover whose probes end at once (the thread then waits
// out their budget) and without one (it waits for a better best).
TEST(aspiration, a_value_that_failed_at_the_ceiling_is_not_passed_again) {
  const instance inst = random_instance(9, 4, 5, 1, 30);
  for (const bool with_prover : {true, false}) {
    aspiration_search search(inst, aspiration_options{.first_cap = 1, .first_probe_seconds = 0.01, .lower = 10});
    std::map<std::pair<int, int>, int> calls;  // (width, target) -> passes
    aspiration_hooks hooks{
        .best = [] { return 60; },  // a start schedule of 60; no pass ever beats it
        .pass =
            [&](int width, int target, const std::atomic<bool>*, const std::function<int()>&) {
              ++calls[{width, target}];
              return std::vector<int>{};
            },
        .width_ceiling = [] { return 4; },
    };
    if (with_prover) hooks.prove_below = [](int, double, const std::atomic<bool>*, std::vector<int>*) { return false; };
    std::atomic<bool> stop{false};
    std::jthread stopper = stop_after(stop, std::chrono::milliseconds(400));
    EXPECT_FALSE(search.run(hooks, &stop));
    stopper.request_stop();
    ASSERT_FALSE(calls.empty());
    for (const auto& [key, count] : calls) {
      // Width 1 runs in the sweep at cap 1 and again in the one at the ceiling (cap 4); the
      // others only at the ceiling.
      EXPECT_LE(count, key.first == 1 ? 2 : 1)
          << "width " << key.first << " target " << key.second << (with_prover ? " (prover)" : " (no prover)");
    }
    // With a prover the bisection starts over after each round of probes and skips the values;
    // without one the thread waits after the first sweep at the ceiling.
    if (with_prover) {
      EXPECT_GT(search.stats().skipped, 0);
    }
    EXPECT_EQ(search.stats().cap, 4);
  }
}

// --beam-target auto: the engine's best for CPU passes on 40 machines or more and under 15 jobs a
// machine, bisected elsewhere;
// an explicit choice stands.
TEST(aspiration, auto_targets_aim_at_the_best_only_on_wide_shops_with_cpu_passes) {
  const instance wide = random_instance(12, 40, 1, 1, 99), narrow = random_instance(12, 39, 1, 1, 99);
  const instance long_wide = random_instance(600, 40, 1, 1, 99);  // 15 jobs a machine: bisected
  EXPECT_EQ(resolve_beam_target(wide, beam_target::auto_, false), beam_target::best);
  EXPECT_EQ(resolve_beam_target(long_wide, beam_target::auto_, false), beam_target::bisect);
  EXPECT_EQ(resolve_beam_target(wide, beam_target::auto_, true), beam_target::bisect);
  EXPECT_EQ(resolve_beam_target(narrow, beam_target::auto_, false), beam_target::bisect);
  EXPECT_EQ(resolve_beam_target(wide, beam_target::bisect, false), beam_target::bisect);
  EXPECT_EQ(resolve_beam_target(narrow, beam_target::best, true), beam_target::best);
}

// No prover and no lower bound: run() goes on until stopped (it cannot know the best is optimal);
// the widths' cap quadruples until a pass holds every node, so the optimum of 7 jobs is reached.
TEST(aspiration, without_a_prover_it_still_reaches_the_optimum_of_small_instances) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const instance inst = random_instance(7, 4, seed, 1, 30);
    const int optimum = brute_force_optimum(inst);
    aspiration_search search(inst, aspiration_options{.first_cap = 1});
    std::atomic<int> best{INT_MAX};
    std::atomic<bool> stop{false};
    aspiration_hooks hooks{.best = [&] { return best.load(); },
                           .on_better =
                               [&](const std::vector<int>& s, int v) {
                                 EXPECT_EQ(evaluate_schedule(inst, s), v);
                                 best = v;
                               }};
    std::jthread stopper = stop_after(stop, std::chrono::seconds(10), [&] { return best.load() == optimum; });
    EXPECT_FALSE(search.run(hooks, &stop)) << "seed " << seed;
    EXPECT_EQ(best.load(), optimum) << "seed " << seed;
  }
}

// app's plan: its lower bound (the search's root bound) is not above the optimum; its prover (the
// sequential branch-and-bound at `value`) proves no value above the optimum, and proves the optimum
// itself on small instances.
TEST(aspiration, the_branch_and_bound_prover_never_proves_above_the_optimum) {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    const instance inst = random_instance(7, 3 + static_cast<int>(seed % 3), seed, 1, 30);
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (const bound_kind b : {bound_kind::lb1, bound_kind::lb1_lb2}) {
      const beam_plan plan = engine_beam_plan(data, b, beam_target::bisect);
      ASSERT_TRUE(plan.bisect && plan.prove_below);
      EXPECT_GT(plan.lower, 0) << "seed " << seed;
      EXPECT_LE(plan.lower, optimum) << "seed " << seed;
      EXPECT_TRUE(plan.prove_below(optimum, 10.0, nullptr, nullptr)) << "seed " << seed;
      std::vector<int> found;
      EXPECT_FALSE(plan.prove_below(optimum + 1, 10.0, nullptr, &found)) << "seed " << seed;
      // Not proven because it found a schedule below optimum + 1: the optimum's, handed back.
      ASSERT_EQ(found.size(), static_cast<std::size_t>(inst.n)) << "seed " << seed;
      EXPECT_EQ(evaluate_schedule(inst, found), optimum) << "seed " << seed;
    }
  }
  EXPECT_FALSE(engine_beam_plan(bound_data(random_instance(5, 3, 1, 1, 9)), bound_kind::lb1, beam_target::best).bisect);
}

// The engine, its beam bisecting with the real prover, on a 20-job Taillard instance: the optimum
// (ta001: 1278), exact, within seconds; lower_bound() never above the best.
TEST(aspiration, the_engine_bisecting_with_the_prover_finds_the_optimum_of_ta001) {
  const instance inst = taillard_instance("ta001");
  const bound_data data(inst);
  std::vector<int> identity(static_cast<std::size_t>(inst.n));
  std::iota(identity.begin(), identity.end(), 0);
  concurrent_improver imp(inst, identity, 1, 1, walk_options{}, 1,
                          engine_beam_plan(data, bound_kind::lb1, beam_target::bisect));
  const auto t0 = std::chrono::steady_clock::now();
  while (imp.best_value() != 1278 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  imp.stop();
  EXPECT_EQ(imp.best_value(), 1278);
  EXPECT_EQ(evaluate_schedule(inst, imp.best_schedule()), imp.best_value());
  EXPECT_LE(imp.lower_bound(), 1278);
  EXPECT_GT(imp.lower_bound(), 0);
  EXPECT_NE(imp.summary().find("targets bisected"), std::string::npos) << imp.summary();
}

}  // namespace
}  // namespace pfsp::test
