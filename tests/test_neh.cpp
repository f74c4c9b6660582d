// NEH with Taillard's acceleration against a naive NEH that re-evaluates every insertion from
// scratch (O(n^3 m)), and evaluate_schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <numeric>
#include <random>
#include <vector>

#include "base/error.hpp"
#include "heuristic/insertion.hpp"
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

namespace pfsp {
namespace {

// For each sample, a random order of its jobs: the kernel is loaded with every prefix seq of the
// order but its last job (lengths 0..n-2), and check(sample, kernel, seq, job) runs with that last
// job to insert.
template <class Samples, class Check>
void for_each_loaded_prefix(const Samples& samples, unsigned order_seed, Check check) {
  std::mt19937 rng(order_seed);
  for (const auto& s : samples) {
    SCOPED_TRACE(s.what);
    insertion_kernel kernel(s.inst);
    std::vector<int> jobs(static_cast<std::size_t>(s.inst.n));
    std::iota(jobs.begin(), jobs.end(), 0);
    std::shuffle(jobs.begin(), jobs.end(), rng);
    for (std::size_t len = 0; len + 1 < jobs.size(); ++len) {
      const std::vector<int> seq(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(len));
      kernel.load(seq.data(), static_cast<int>(len));
      check(s, kernel, seq, jobs.back());
    }
  }
}

// The flat-array kernel of the incumbent engine (heuristic/insertion.hpp): every insertion value
// equals the makespan of the sequence with the job inserted there, partial sequences included;
// random tie-breaking picks only positions of the best value.
TEST(insertion_kernel, values_match_inserting_and_evaluating) {
  std::uint64_t state = seed_random(5);
  for_each_loaded_prefix(test::small_samples(2, 14, 1, 7, 2, 900), 77,
                         [&](const auto& s, insertion_kernel& kernel, const std::vector<int>& seq, int job) {
                           const std::size_t len = seq.size();
                           EXPECT_EQ(kernel.loaded_makespan(), len == 0 ? 0 : test::naive_makespan(s.inst, seq));
                           std::vector<int> values(len + 1);
                           kernel.insertion_values(job, values.data());
                           for (std::size_t pos = 0; pos <= len; ++pos) {
                             std::vector<int> trial(seq);
                             trial.insert(trial.begin() + static_cast<std::ptrdiff_t>(pos), job);
                             EXPECT_EQ(values[pos], test::naive_makespan(s.inst, trial)) << "position " << pos;
                             EXPECT_EQ(kernel.makespan(trial.data(), static_cast<int>(trial.size())), values[pos]);
                           }
                           const int best = *std::min_element(values.begin(), values.end());
                           const auto first = kernel.best_insertion(job);
                           EXPECT_EQ(first.second, best);
                           EXPECT_EQ(values[static_cast<std::size_t>(first.first)], best);
                           EXPECT_EQ(first.first, std::min_element(values.begin(), values.end()) - values.begin());
                           const auto tied = kernel.best_insertion(job, &state);
                           EXPECT_EQ(tied.second, best);
                           EXPECT_EQ(values[static_cast<std::size_t>(tied.first)], best);
                         });
}

// The idle time a job meets at an insertion position, from the completion times of the trial
// sequence: the sum over machines 2..m of its start minus the completion of the job before it.
int naive_idle(const instance& inst, const std::vector<int>& trial, std::size_t pos) {
  std::vector<int> prev(static_cast<std::size_t>(inst.m), 0), cur(prev);
  int idle = 0;
  for (std::size_t i = 0; i <= pos; ++i) {
    int t = 0;
    for (int k = 0; k < inst.m; ++k) {
      const int start = std::max(t, prev[static_cast<std::size_t>(k)]);
      if (i == pos && k > 0) idle += start - prev[static_cast<std::size_t>(k)];
      t = start + inst.time(k, trial[i]);
      cur[static_cast<std::size_t>(k)] = t;
    }
    prev.swap(cur);
  }
  return idle;
}

// The idle-time tie-break: the same values as insertion_values, the idle times of brute force, and
// a position of the smallest makespan and, among those, of the least idle time.
TEST(insertion_kernel, idle_tie_break_matches_brute_force) {
  std::uint64_t state = seed_random(9);
  for_each_loaded_prefix(test::small_samples(2, 12, 1, 6, 3, 515), 91,
                         [&](const auto& s, insertion_kernel& kernel, const std::vector<int>& seq, int job) {
                           const std::size_t len = seq.size();
                           std::vector<int> values(len + 1), plain(len + 1), idle(len + 1);
                           kernel.insertion_values(job, plain.data());
                           kernel.insertion_values_idle(job, values.data(), idle.data());
                           EXPECT_EQ(values, plain);
                           int least = INT_MAX;
                           const int best = *std::min_element(values.begin(), values.end());
                           for (std::size_t pos = 0; pos <= len; ++pos) {
                             std::vector<int> trial(seq);
                             trial.insert(trial.begin() + static_cast<std::ptrdiff_t>(pos), job);
                             EXPECT_EQ(idle[pos], naive_idle(s.inst, trial, pos)) << "position " << pos;
                             if (values[pos] == best) least = std::min(least, idle[pos]);
                           }
                           for (std::uint64_t* rs : {static_cast<std::uint64_t*>(nullptr), &state}) {
                             const auto [pos, value] = kernel.best_insertion_idle(job, rs);
                             EXPECT_EQ(value, best);
                             EXPECT_EQ(values[static_cast<std::size_t>(pos)], best);
                             EXPECT_EQ(idle[static_cast<std::size_t>(pos)], least);
                           }
                         });
}

// load_removed (the local search's half-price load) gives the values load() gives for the
// sequence without that position, for every position of random sequences.
TEST(insertion_kernel, load_removed_matches_load) {
  std::mt19937 rng(78);
  for (const auto& s : test::small_samples(2, 16, 1, 7, 2, 901)) {
    SCOPED_TRACE(s.what);
    insertion_kernel a(s.inst), b(s.inst);
    std::vector<int> seq(static_cast<std::size_t>(s.inst.n));
    std::iota(seq.begin(), seq.end(), 0);
    std::shuffle(seq.begin(), seq.end(), rng);
    const int len = s.inst.n;
    a.load(seq.data(), len);
    a.remember_full();
    for (int r = 0; r < len; ++r) {
      std::vector<int> reduced(seq);
      reduced.erase(reduced.begin() + r);
      a.load_removed(seq.data(), len, r);
      b.load(reduced.data(), len - 1);
      EXPECT_EQ(a.loaded_makespan(), b.loaded_makespan());
      std::vector<int> va(static_cast<std::size_t>(len)), vb(static_cast<std::size_t>(len));
      a.insertion_values(seq[static_cast<std::size_t>(r)], va.data());
      b.insertion_values(seq[static_cast<std::size_t>(r)], vb.data());
      EXPECT_EQ(va, vb) << "removed position " << r;
    }
  }
}

// A walker's best is a permutation whose makespan it states, never worse than its start, and the
// same for the same seed and number of rounds (with every refinement on and off).
TEST(ig_walker, exact_values_and_deterministic_per_seed) {
  const instance inst = generate_taillard(40, 8, 4242);
  const neh_result h = neh(inst);
  for (const bool partial : {false, true}) {
    for (const bool ties : {false, true}) {
      walk_options w;
      w.partial_ls = partial;
      w.random_ties = ties;
      auto run = [&](std::uint64_t seed) {
        ig_walker walker(inst, w, seed);
        walker.restart(h.schedule, h.makespan);
        EXPECT_TRUE(walker.descend(nullptr));
        for (int r = 0; r < 30; ++r) EXPECT_TRUE(walker.round(nullptr));
        return walker.best();
      };
      const std::vector<int> a = run(9);
      ASSERT_NO_FATAL_FAILURE(expect_permutation(a, inst.n));
      EXPECT_LE(test::naive_makespan(inst, a), h.makespan);
      EXPECT_EQ(run(9), a);
    }
  }
}

// A raised stop flag ends a round at once and leaves the walker's state as it was.
TEST(ig_walker, stops_at_once_and_keeps_its_state) {
  const instance inst = generate_taillard(60, 10, 99);
  const neh_result h = neh(inst);
  ig_walker walker(inst, {}, 3);
  walker.restart(h.schedule, h.makespan);
  std::atomic<bool> stop{true};
  EXPECT_FALSE(walker.round(&stop));
  EXPECT_FALSE(walker.descend(&stop));
  EXPECT_EQ(walker.current_value(), h.makespan);
  EXPECT_EQ(walker.best(), h.schedule);
  EXPECT_EQ(walker.rounds(), 0u);
}

// The start heuristic's time budget ends it early, with a valid schedule.
TEST(iterated_greedy, a_time_budget_ends_it) {
  const instance inst = generate_taillard(200, 20, 7);
  ig_options opt;
  opt.iterations = 100000;
  opt.seconds = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  const neh_result r = iterated_greedy(inst, opt);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);  // NEH (about 0.05 s) + the budget + one insertion; loose for a loaded CI machine
  EXPECT_EQ(r.makespan, test::naive_makespan(inst, r.schedule));
}

}  // namespace
}  // namespace pfsp
