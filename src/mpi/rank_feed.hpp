// A worker rank's incumbent_feed (search/incumbent_feed.hpp): the solver of the running chunk
// polls best_value() at its sync points and gets the best schedule any rank has found (rank 0
// broadcasts each improvement, the worker's listener thread stores it here); the schedules the
// solver offers as seeds are queued for the listener to send to rank 0. Thread-safe.
#pragma once

#include <atomic>
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
  std::vector<int> best_schedule() const override {
    std::lock_guard lock(mu_);
    return schedule_;
  }
  // From rank 0: the best schedule known anywhere.
  void receive(int makespan, std::vector<int> schedule) {
    std::lock_guard lock(mu_);
    if (makespan >= best_.load()) return;
    schedule_ = std::move(schedule);
    best_.store(makespan);
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
  mutable std::mutex mu_;
};

}  // namespace pfsp::dist
