// A worker rank's incumbent_feed (search/incumbent_feed.hpp): the solver of the running chunk
// polls best_value() at its sync points and gets the best schedule any rank has found (rank 0
// broadcasts each improvement, the worker's listener thread stores it here); the schedules the
// solver offers as seeds are queued for the listener to send to rank 0. Thread-safe.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "search/incumbent_feed.hpp"

namespace pfsp::dist {

class rank_feed final : public incumbent_feed {
 public:
  // From the solver: a schedule found in this rank's chunk; kept for rank 0 if it improves.
  void offer_seed(const std::vector<int>& schedule, int makespan) override {
    std::lock_guard lock(mu_);
    if (makespan >= best_.load() || (outbox_ && outbox_->first <= makespan)) return;
    outbox_ = {makespan, schedule};
  }
  int best_value() const override { return best_.load(std::memory_order_relaxed); }
  // The solver calls it when best_value() beats its own: the schedule is taken then, and the
  // time since rank 0 sent it is recorded.
  std::vector<int> best_schedule() const override {
    std::lock_guard lock(mu_);
    if (!taken_current_ && !schedule_.empty()) {
      taken_current_ = true;
      ++taken_;
      max_latency_ = std::max(max_latency_, now_seconds() - sent_at_);
    }
    return schedule_;
  }
  // From rank 0: the best schedule known anywhere, sent at `sent_at` (now_seconds on rank 0's
  // clock: a latency is meaningful where rank 0 and this rank share a host's monotonic clock).
  void receive(int makespan, std::vector<int> schedule, double sent_at) {
    std::lock_guard lock(mu_);
    if (makespan >= best_.load()) return;
    schedule_ = std::move(schedule);
    best_.store(makespan);
    sent_at_ = sent_at;
    taken_current_ = false;
  }
  // Schedules from rank 0 the solver took, and the longest time from rank 0's send to the take.
  std::pair<int, double> taken() const {
    std::lock_guard lock(mu_);
    return {taken_, max_latency_};
  }
  static double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  // The schedule to send to rank 0, if any (taken once).
  std::optional<std::pair<int, std::vector<int>>> take_found() {
    std::lock_guard lock(mu_);
    auto out = std::move(outbox_);
    outbox_.reset();
    return out;
  }

 private:
  std::atomic<int> best_{INT_MAX};
  std::vector<int> schedule_;
  std::optional<std::pair<int, std::vector<int>>> outbox_;
  double sent_at_ = 0;
  mutable bool taken_current_ = true;
  mutable int taken_ = 0;
  mutable double max_latency_ = 0;
  mutable std::mutex mu_;
};

}  // namespace pfsp::dist
