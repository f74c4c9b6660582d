// Iterated greedy on the CPU cores while a branch-and-bound runs elsewhere (the GPU device loop):
// T threads, each repeating rounds of Ruiz and Stuetzle's IG (destruction, greedy reinsertion,
// insertion local search, constant-temperature acceptance) from the best schedule known (its own,
// the feed's, or the newest seed the B&B offered), with its own random stream. Improvements are
// published lock-free (best_value) with their schedule. Usage (gpu/coordinator.cu): the solver calls
// offer_seed() with each improving leaf and polls best_value() at its syncs; a better value is
// re-evaluated and becomes the incumbent, lowering the device's pruning threshold.
#pragma once

#include <atomic>
#include <climits>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "problem/instance.hpp"
#include "search/incumbent_feed.hpp"

namespace pfsp {

class concurrent_improver final : public incumbent_feed {
 public:
  // start: the first seed (e.g. the start heuristic's schedule); threads >= 1.
  concurrent_improver(const instance& inst, std::vector<int> start, int threads, std::uint32_t seed = 1);
  ~concurrent_improver() override;
  concurrent_improver(const concurrent_improver&) = delete;
  concurrent_improver& operator=(const concurrent_improver&) = delete;

  void offer_seed(const std::vector<int>& schedule, int makespan) override;
  int best_value() const override { return best_.load(std::memory_order_relaxed); }
  std::vector<int> best_schedule() const override;
  void stop();  // joins the threads (< one IG round)
  std::uint64_t rounds() const { return rounds_.load(); }
  int improvements() const { return improvements_.load(); }

 private:
  void work(int t);
  const instance& inst_;
  std::atomic<int> best_{INT_MAX};
  std::vector<int> best_schedule_;
  std::vector<int> seed_;  // the newest seed, taken once by the next thread that restarts
  int seed_value_ = INT_MAX;
  mutable std::mutex mu_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> rounds_{0};
  std::atomic<int> improvements_{0};
  std::uint32_t seed_base_;
  std::vector<std::thread> threads_;
};

}  // namespace pfsp
