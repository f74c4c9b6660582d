// The bidirectional iterative beam search (heuristic/beam.hpp): a pass as wide as the tree is an
// exhaustive search (the brute-force optimum on small random instances); every pass returns a
// permutation whose makespan is below the target it was given; the iterative run only reports
// strict improvements, each re-evaluated; the engine's beam thread publishes exact values and stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <numeric>
#include <thread>

#include "heuristic/beam.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

bool is_permutation_of_jobs(const std::vector<int>& s, int n) {
  std::vector<int> sorted = s;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  return sorted == ids;
}

TEST(beam, a_pass_as_wide_as_the_tree_finds_the_optimum) {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const int n = 5 + static_cast<int>(seed % 3), m = 2 + static_cast<int>(seed % 4);
    const instance inst = random_instance(n, m, seed, 1, 20);
    const int optimum = brute_force_optimum(inst);
    for (const bool bidirectional : {true, false}) {
      beam_search b(inst, beam_options{1, 1 << 20, bidirectional});
      const std::vector<int> s = b.pass(5040, INT_MAX, nullptr);  // 7! keeps every node of 7 jobs
      ASSERT_TRUE(is_permutation_of_jobs(s, n)) << "seed " << seed;
      EXPECT_EQ(evaluate_schedule(inst, s), optimum) << "seed " << seed << " bidirectional " << bidirectional;
      // Nothing is below the optimum: a pass with the optimum as its target finds nothing.
      EXPECT_TRUE(b.pass(5040, optimum, nullptr).empty()) << "seed " << seed;
    }
  }
}

TEST(beam, every_pass_returns_a_permutation_below_its_target) {
  const instance inst = taillard_instance("ta031");  // 50 x 5
  beam_search b(inst);
  const std::vector<int> first = b.pass(1, INT_MAX, nullptr);
  ASSERT_TRUE(is_permutation_of_jobs(first, inst.n));
  const int value = evaluate_schedule(inst, first);
  for (const int width : {2, 16, 64}) {
    const std::vector<int> s = b.pass(width, value, nullptr);
    if (s.empty()) continue;
    ASSERT_TRUE(is_permutation_of_jobs(s, inst.n));
    EXPECT_LT(evaluate_schedule(inst, s), value) << "width " << width;
  }
}

TEST(beam, a_pass_is_the_same_on_any_number_of_threads) {
  const instance inst = taillard_instance("ta041");  // 50 x 10
  const int target = neh(inst).makespan + 20;
  beam_search one(inst, beam_options{1, 1 << 20, true, 1}), four(inst, beam_options{1, 1 << 20, true, 4});
  for (const int width : {1, 64, 300}) {
    const std::vector<int> a = one.pass(width, target, nullptr), b = four.pass(width, target, nullptr);
    EXPECT_EQ(a, b) << "width " << width;
    if (width == 300) {
      EXPECT_FALSE(a.empty());
    }
  }
  EXPECT_EQ(one.stats().children, four.stats().children);
}

TEST(beam, the_iterative_run_reports_strict_improvements_and_stops) {
  const instance inst = taillard_instance("ta041");  // 50 x 10
  const int start = neh(inst).makespan;
  std::atomic<bool> stop{false};
  std::vector<int> values;
  beam_search b(inst);
  std::thread runner([&] {
    b.run(
        start,
        [&](const std::vector<int>& s, int v) {
          EXPECT_TRUE(is_permutation_of_jobs(s, inst.n));
          EXPECT_EQ(evaluate_schedule(inst, s), v);
          values.push_back(v);
        },
        &stop);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto t0 = std::chrono::steady_clock::now();
  stop.store(true);
  runner.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_GT(b.stats().passes, 3);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_LT(values[i], i == 0 ? start : values[i - 1]);
}

TEST(beam, the_engine_beam_thread_publishes_exact_improvements) {
  const instance inst = taillard_instance("ta021");  // 20 x 20
  std::vector<int> identity(static_cast<std::size_t>(inst.n));
  std::iota(identity.begin(), identity.end(), 0);
  // One thread, the beam alone: every improvement is the beam's.
  concurrent_improver imp(inst, identity, 1, 1, walk_options{}, 1);
  const int start = evaluate_schedule(inst, identity);
  const auto t0 = std::chrono::steady_clock::now();
  while (imp.beam_improvements() == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  imp.stop();
  EXPECT_GT(imp.beam_improvements(), 0);
  EXPECT_EQ(imp.rounds(), 0u);  // no walker ran
  EXPECT_LT(imp.best_value(), start);
  EXPECT_EQ(evaluate_schedule(inst, imp.best_schedule()), imp.best_value());
  EXPECT_NE(imp.summary().find("beam search"), std::string::npos);
}

TEST(beam, auto_gives_it_a_quarter_of_two_or_more_engine_threads_above_20_jobs) {
  const instance small = random_instance(20, 5, 1, 1, 9), mid = taillard_instance("ta081"),
                 big = taillard_instance("ta111");
  EXPECT_EQ(engine_beam_threads(taillard_instance("ta101"), -1, 8), 2);
  EXPECT_EQ(engine_beam_threads(small, -1, 8), 0);
  EXPECT_EQ(engine_beam_threads(mid, -1, 2), 1);
  EXPECT_EQ(engine_beam_threads(mid, -1, 8), 2);
  EXPECT_EQ(engine_beam_threads(mid, -1, 1), 0);
  EXPECT_EQ(engine_beam_threads(big, -1, 8), 2);
  EXPECT_EQ(engine_beam_threads(big, 1, 1), 1);
  EXPECT_EQ(engine_beam_threads(mid, 0, 8), 0);
  EXPECT_EQ(engine_beam_threads(mid, 3, 2), 2);
}

TEST(beam, an_engine_of_walkers_and_a_beam_on_several_threads_reports_both) {
  const instance inst = taillard_instance("ta031");            // 50 x 5
  concurrent_improver imp(inst, {}, 4, 1, walk_options{}, 2);  // 2 walkers, a beam on 2 threads
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  imp.stop();
  EXPECT_GT(imp.rounds(), 0u);
  EXPECT_NE(imp.summary().find("2 iterated-greedy walkers"), std::string::npos) << imp.summary();
  EXPECT_NE(imp.summary().find("beam search on 2 threads"), std::string::npos) << imp.summary();
  EXPECT_EQ(evaluate_schedule(inst, imp.best_schedule()), imp.best_value());
}

}  // namespace
}  // namespace pfsp::test
