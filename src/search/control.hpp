// Run control shared by all solvers: the incumbent, stop conditions (time, nodes, Ctrl-C) and
// the progress callback, and turning the end state of a search into a solve_result.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "problem/instance.hpp"
#include "search/types.hpp"

namespace pfsp {

// Best complete schedule known. Thread-safe: `value` is read lock-free on the hot path.
class incumbent {
 public:
  incumbent() = default;
  incumbent(int makespan, std::vector<int> schedule) : value_(makespan), schedule_(std::move(schedule)) {}
  incumbent(const incumbent& o) {
    auto [v, s] = o.snapshot();
    value_.store(v, std::memory_order_relaxed);
    schedule_ = std::move(s);
  }
  incumbent& operator=(const incumbent& o) {
    if (this != &o) {
      auto [v, s] = o.snapshot();
      std::lock_guard lock(mutex_);
      schedule_ = std::move(s);
      value_.store(v, std::memory_order_relaxed);
    }
    return *this;
  }

  int value() const { return value_.load(std::memory_order_relaxed); }
  std::vector<int> schedule() const {
    std::lock_guard lock(mutex_);
    return schedule_;
  }
  // The makespan and the schedule as one pair (value() and schedule() read apart may straddle
  // another thread's offer).
  std::pair<int, std::vector<int>> snapshot() const {
    std::lock_guard lock(mutex_);
    return {value_.load(std::memory_order_relaxed), schedule_};
  }
  // Installs the schedule if it is better; returns true if it was.
  template <class Job>
  bool offer(int makespan, const Job* perm, int n) {
    if (makespan >= value()) return false;
    std::lock_guard lock(mutex_);
    if (makespan >= value_.load(std::memory_order_relaxed)) return false;
    schedule_.assign(perm, perm + n);
    value_.store(makespan, std::memory_order_relaxed);
    return true;
  }

 private:
  std::atomic<int> value_{INT_MAX};
  std::vector<int> schedule_;
  mutable std::mutex mutex_;
};

class run_control {
 public:
  explicit run_control(const solve_options& opt)
      : opt_(opt),
        start_(clock::now()),
        origin_(opt.time_origin.value_or(start_)),
        last_report_(start_),
        last_check_(start_),
        last_checkpoint_(start_) {}

  double elapsed() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  // Seconds the time limit has consumed: since opt.time_origin where set (the run's start), else
  // since this control's start.
  double limit_elapsed() const { return std::chrono::duration<double>(clock::now() - origin_).count(); }
  // Seconds until the time limit (infinity without one; never negative).
  double seconds_left() const {
    if (opt_.time_limit <= 0) return std::numeric_limits<double>::infinity();
    return std::max(0.0, opt_.time_limit - limit_elapsed());
  }

  // Whether the clock should be read now. The interval between checks adapts so that checks
  // happen every few milliseconds whatever a node costs (a 20x20 LB1 node takes about a
  // microsecond, a 500x20 LB2 node milliseconds).
  bool due(std::uint64_t branched) const { return branched >= next_check_; }

  // Returns the status to stop with, or optimal to go on.
  solve_status check(std::uint64_t branched) { return check(branched, branched); }

  // `own` is the count due() is asked with (a worker's own nodes in cpu-mt), `total` the nodes
  // of all threads (for the node limit).
  solve_status check(std::uint64_t own, std::uint64_t total) {
    const std::uint64_t branched = total;
    const auto now = clock::now();
    const double dt = std::chrono::duration<double>(now - last_check_).count();
    last_check_ = now;
    if (dt > 0.005 && step_ > 1)
      step_ /= 2;
    else if (dt < 0.001 && step_ < 4096)
      step_ *= 2;
    next_check_ = own + step_;
    if (opt_.interrupt && opt_.interrupt->load(std::memory_order_relaxed)) return solve_status::interrupted;
    if (opt_.node_limit && branched >= opt_.node_limit) return solve_status::node_limit;
    if (past_time_limit(now)) return solve_status::time_limit;
    return solve_status::optimal;
  }

  // Whether the search must stop now, without check()'s bookkeeping: interrupted (Ctrl-C),
  // time_limit, or optimal (go on). Reads the clock; thread-safe. The solvers ask it between
  // children (expander::expand's `abandon`), so that a node that costs long (LB2 at 500 jobs: a
  // fraction of a second) does not delay the stop.
  solve_status overdue() const {
    if (opt_.interrupt && opt_.interrupt->load(std::memory_order_relaxed)) return solve_status::interrupted;
    return past_time_limit(clock::now()) ? solve_status::time_limit : solve_status::optimal;
  }

  // Whether a periodic checkpoint is due, judged at the time of the last check(); if so, the
  // next one is due checkpoint_interval seconds later.
  bool checkpoint_due() {
    if (!opt_.on_checkpoint) return false;
    if (std::chrono::duration<double>(last_check_ - last_checkpoint_).count() < opt_.checkpoint_interval) return false;
    last_checkpoint_ = last_check_;
    return true;
  }

  bool node_limit_reached(std::uint64_t branched) const { return opt_.node_limit && branched >= opt_.node_limit; }

  // Calls the progress callback if its interval has passed.
  void maybe_report(const progress_info& info_without_time) {
    if (!opt_.on_progress) return;
    const auto now = clock::now();
    if (std::chrono::duration<double>(now - last_report_).count() < opt_.progress_interval) return;
    last_report_ = now;
    progress_info info = info_without_time;
    info.elapsed = elapsed();
    opt_.on_progress(info);
  }

  const solve_options& options() const { return opt_; }

 private:
  using clock = std::chrono::steady_clock;
  bool past_time_limit(clock::time_point now) const {
    return opt_.time_limit > 0 && std::chrono::duration<double>(now - origin_).count() >= opt_.time_limit;
  }
  const solve_options& opt_;
  clock::time_point start_;
  clock::time_point origin_;  // of the time limit
  clock::time_point last_report_;
  clock::time_point last_check_;
  clock::time_point last_checkpoint_;
  std::uint64_t step_ = 1;
  std::uint64_t next_check_ = 1;
};

// Pruning threshold at the start: the incumbent's makespan, or --ub if smaller.
inline int initial_threshold(const solve_options& opt, const incumbent& inc) {
  int ub = inc.value();
  if (opt.initial_ub && *opt.initial_ub < ub) ub = *opt.initial_ub;
  return ub;
}

// Final result. `open_min_lb` is the smallest bound among nodes left open (INT_MAX if none).
// A complete search proves that no schedule below the final threshold exists.
solve_result finish_result(solve_status stop, const incumbent& inc, int threshold, int open_min_lb,
                           const solve_stats& stats, double seconds);

}  // namespace pfsp
