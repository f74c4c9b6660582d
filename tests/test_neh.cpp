// NEH with Taillard's acceleration against a naive NEH that re-evaluates every insertion from
// scratch (O(n^3 m)), and evaluate_schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <vector>

#include "base/error.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

// Jobs by decreasing total time (ties by smaller index first), each inserted at the first
// position with the smallest makespan of the partial sequence.
neh_result naive_neh(const instance& inst) {
  std::vector<long long> total(inst.n, 0);
  for (int k = 0; k < inst.m; ++k)
    for (int j = 0; j < inst.n; ++j) total[j] += inst.time(k, j);
  std::vector<int> order(inst.n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return total[a] != total[b] ? total[a] > total[b] : a < b; });
  std::vector<int> seq;
  for (int job : order) {
    int best = INT_MAX;
    std::size_t best_pos = 0;
    for (std::size_t pos = 0; pos <= seq.size(); ++pos) {
      std::vector<int> trial(seq);
      trial.insert(trial.begin() + static_cast<std::ptrdiff_t>(pos), job);
      const int v = test::naive_makespan(inst, trial);
      if (v < best) {
        best = v;
        best_pos = pos;
      }
    }
    seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(best_pos), job);
  }
  return {seq, test::naive_makespan(inst, seq)};
}

void expect_permutation(const std::vector<int>& s, int n) {
  ASSERT_EQ(static_cast<int>(s.size()), n);
  std::vector<int> sorted(s);
  std::sort(sorted.begin(), sorted.end());
  for (int j = 0; j < n; ++j) ASSERT_EQ(sorted[j], j) << "not a permutation: " << test::to_text(s);
}

TEST(neh, ta001_is_1286) {
  const instance inst = taillard_instance("ta001");
  const neh_result h = neh(inst);
  expect_permutation(h.schedule, 20);
  EXPECT_EQ(h.makespan, 1286);
  EXPECT_EQ(evaluate_schedule(inst, h.schedule), 1286);
}

TEST(neh, matches_naive_neh_on_random_instances) {
  auto samples = test::small_samples(1, 14, 1, 7, 2, 300);
  for (auto& s : test::small_samples(30, 30, 5, 5, 4, 400)) samples.push_back(std::move(s));
  for (std::uint32_t seed : {1u, 2u, 3u})  // many ties
    samples.push_back({test::random_instance(25, 4, seed, 1, 2),
                       "random_instance(25, 4, seed " + std::to_string(seed) + ", times 1..2)"});
  for (const auto& s : samples) {
    SCOPED_TRACE(s.what);
    const neh_result h = neh(s.inst);
    ASSERT_NO_FATAL_FAILURE(expect_permutation(h.schedule, s.inst.n));
    EXPECT_EQ(h.makespan, evaluate_schedule(s.inst, h.schedule));
    EXPECT_EQ(h.makespan, test::naive_makespan(s.inst, h.schedule));
    const neh_result want = naive_neh(s.inst);
    EXPECT_EQ(h.makespan, want.makespan);
    EXPECT_EQ(h.schedule, want.schedule) << "got " << test::to_text(h.schedule) << ", naive "
                                         << test::to_text(want.schedule);
  }
}

TEST(neh, never_below_the_optimum_on_small_instances) {
  for (const auto& s : test::small_samples(2, 7, 2, 4, 2, 500)) {
    SCOPED_TRACE(s.what);
    EXPECT_GE(neh(s.inst).makespan, test::brute_force_optimum(s.inst));
  }
}

TEST(best_insertion, matches_trying_every_position) {
  std::mt19937 rng(2024);
  insertion_workspace ws;  // reused across sizes, as iterated greedy does
  for (const auto& s : test::small_samples(2, 12, 1, 6, 2, 600)) {
    SCOPED_TRACE(s.what);
    std::vector<int> jobs(s.inst.n);
    std::iota(jobs.begin(), jobs.end(), 0);
    std::shuffle(jobs.begin(), jobs.end(), rng);
    const int job = jobs.back();
    for (std::size_t len = 0; len + 1 < jobs.size(); ++len) {
      const std::vector<int> seq(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(len));
      int best = INT_MAX, best_pos = 0;
      for (std::size_t pos = 0; pos <= seq.size(); ++pos) {
        std::vector<int> trial(seq);
        trial.insert(trial.begin() + static_cast<std::ptrdiff_t>(pos), job);
        const int v = test::naive_makespan(s.inst, trial);
        if (v < best) {
          best = v;
          best_pos = static_cast<int>(pos);
        }
      }
      const auto [pos, value] = best_insertion(s.inst, seq, job, ws);
      EXPECT_EQ(pos, best_pos) << "inserting job " << job << " into " << test::to_text(seq);
      EXPECT_EQ(value, best) << "inserting job " << job << " into " << test::to_text(seq);
    }
  }
}

TEST(iterated_greedy, returns_a_valid_schedule_no_worse_than_neh_and_is_deterministic) {
  auto samples = test::small_samples(1, 8, 1, 5, 1, 700);
  samples.push_back({taillard_instance("ta001"), "ta001"});
  samples.push_back({generate_taillard(30, 10, 31337), "generate_taillard(30, 10, 31337)"});
  for (const auto& s : samples) {
    SCOPED_TRACE(s.what);
    ig_options opt;
    opt.iterations = 50;
    const neh_result h = iterated_greedy(s.inst, opt);
    ASSERT_NO_FATAL_FAILURE(expect_permutation(h.schedule, s.inst.n));
    EXPECT_EQ(h.makespan, test::naive_makespan(s.inst, h.schedule));
    EXPECT_LE(h.makespan, neh(s.inst).makespan);
    if (s.inst.n <= 8) {
      EXPECT_GE(h.makespan, test::brute_force_optimum(s.inst));
    }
    if (s.inst.known) {
      EXPECT_GE(h.makespan, s.inst.known->ub);
    }
    const neh_result again = iterated_greedy(s.inst, opt);
    EXPECT_EQ(again.schedule, h.schedule);
    opt.iterations = 0;
    EXPECT_EQ(iterated_greedy(s.inst, opt).makespan, neh(s.inst).makespan);
  }
}

TEST(evaluate_schedule, equals_naive_and_rejects_non_permutations) {
  const instance inst = generate_taillard(6, 3, 17);
  const std::vector<int> s = {3, 1, 5, 0, 2, 4};
  EXPECT_EQ(evaluate_schedule(inst, s), test::naive_makespan(inst, s));
  EXPECT_THROW(evaluate_schedule(inst, {3, 1, 5, 0, 2}), error);
  EXPECT_THROW(evaluate_schedule(inst, {3, 1, 5, 0, 2, 4, 4}), error);
  EXPECT_THROW(evaluate_schedule(inst, {3, 1, 5, 0, 2, 2}), error);
  EXPECT_THROW(evaluate_schedule(inst, {3, 1, 5, 0, 2, 6}), error);
  EXPECT_THROW(evaluate_schedule(inst, {3, 1, 5, 0, 2, -1}), error);
}

}  // namespace
}  // namespace pfsp
