// NEH (Nawaz, Enscore, Ham 1983) with Taillard's acceleration (1990): the first incumbent.
#pragma once

#include <utility>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp {

struct neh_result {
  std::vector<int> schedule;  // 0-based jobs
  int makespan = 0;
};

// Jobs by decreasing total time (ties by index), each inserted at the position that minimises
// the partial makespan (first such position). O(n^2 m) thanks to Taillard's heads/tails.
neh_result neh(const instance& inst);

// Scratch for best_insertion, reused across calls.
struct insertion_workspace {
  std::vector<int> e, q, f;
};

// Taillard's acceleration: the position (0..seq.size()) where inserting `job` into `seq` gives
// the smallest makespan (first such position), and that makespan. O(|seq| m).
std::pair<int, int> best_insertion(const instance& inst, const std::vector<int>& seq, int job, insertion_workspace& ws);

// Makespan of a complete schedule (0-based jobs), recomputed from scratch; throws pfsp::error if
// `schedule` is not a permutation of 0..n-1.
int evaluate_schedule(const instance& inst, const std::vector<int>& schedule);

}  // namespace pfsp
