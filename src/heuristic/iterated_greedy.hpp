// Iterated greedy (Ruiz and Stuetzle, EJOR 177, 2007) with the refinements of heuristic/ig_walker.hpp:
// a better first incumbent than NEH, so the B&B prunes harder from the start. Deterministic for a
// given seed and iteration count when no time budget cuts it short.
#pragma once

#include <atomic>
#include <cstdint>

#include "heuristic/ig_walker.hpp"
#include "heuristic/neh.hpp"

namespace pfsp {

struct ig_options {
  int iterations = 2000;  // destruction-construction rounds
  walk_options walk;      // destruction size, temperature, partial local search, ties
  std::uint32_t seed = 1;
  double seconds = 0;  // wall-time budget (0: none); the rounds stop early when it is spent
};

// Starts from NEH, descends with insertion local search, then runs the rounds. Returns the best
// schedule seen. O(iterations * n^2 m).
neh_result iterated_greedy(const instance& inst, const ig_options& opt = {});

// The same rounds from a given schedule (start.makespan must be its makespan); stops early when
// *stop becomes true (checked between two insertions) or the time budget is spent.
neh_result iterated_greedy_from(const instance& inst, neh_result start, const ig_options& opt,
                                const std::atomic<bool>* stop = nullptr);

// The automatic number of rounds: about 4e7 / (n^2 m), between 10 and 5000 (5000 on 20x20, a
// fraction of a second; 10 on 500x20). pfsp and pfsp-mpi both start from it.
int auto_ig_iterations(const instance& inst);

}  // namespace pfsp
