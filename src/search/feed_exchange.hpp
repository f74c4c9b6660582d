// The CPU solvers' side of an incumbent_feed (search/incumbent_feed.hpp): improving leaves go out
// as seeds, the feed's better schedules come in, re-evaluated from scratch before they become the
// incumbent (the feed is another engine's word; the incumbent is what a checkpoint and the result
// carry, so it must be a real schedule of its makespan).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem/instance.hpp"
#include "search/control.hpp"
#include "search/incumbent_feed.hpp"

namespace pfsp {

class feed_exchange {
 public:
  // feed may be null (no engine beside the search): every call is then a no-op.
  feed_exchange(incumbent_feed* feed, instance_view inst) : feed_(feed), inst_(inst) {}

  bool active() const { return feed_ != nullptr; }

  // An improving leaf of the search (n jobs) and its makespan, offered as a seed. Thread-safe
  // (the feed's offer_seed is); called only on improvements, so its allocation is rare.
  template <class Job>
  void offer(const Job* perm, int n, int makespan) {
    if (feed_) feed_->offer_seed(std::vector<int>(perm, perm + n), makespan);
  }

  // Polls the feed: when its best is below `best`'s value, takes its schedule, checks that it is a
  // permutation of 0..n-1, recomputes its makespan (O(n m)) and offers it to `best`. Returns
  // whether `best` improved. Costs one relaxed atomic load when the feed has nothing better.
  // Throws pfsp::error when the feed hands over something that is not a schedule (a bug).
  // Not thread-safe: one thread polls (the sequential solver, or cpu-mt's worker 0).
  bool take(incumbent& best);

  // Schedules taken from the feed so far (for the result's notes).
  int taken() const { return taken_; }

 private:
  incumbent_feed* feed_;
  instance_view inst_;
  std::vector<int> scratch_;
  int taken_ = 0;
};

// The result's note: "incumbent improved N time(s) by the heuristic running beside the search".
inline std::string feed_note(const feed_exchange& feed) {
  const int k = feed.taken();
  return "incumbent improved " + std::to_string(k) + (k == 1 ? " time" : " times") +
         " by the heuristic running beside the search";
}

}  // namespace pfsp
