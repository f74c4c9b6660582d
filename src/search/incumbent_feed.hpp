// A source of incumbents beside the branch-and-bound (e.g. heuristic/improver.hpp's iterated
// greedy on the idle CPU cores while the GPU searches). The solver offers it the schedules it
// finds as seeds and takes its improvements at its sync points; every schedule taken is
// re-evaluated by the solver before it becomes the incumbent.
#pragma once

#include <vector>

namespace pfsp {

class incumbent_feed {
 public:
  virtual ~incumbent_feed() = default;
  // A schedule (0-based jobs) and its makespan found by the search: a seed for the feed.
  virtual void offer_seed(const std::vector<int>& schedule, int makespan) = 0;
  // The feed's best makespan so far (INT_MAX if none); lock-free.
  virtual int best_value() const = 0;
  // The schedule of best_value().
  virtual std::vector<int> best_schedule() const = 0;
};

}  // namespace pfsp
