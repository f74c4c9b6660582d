// Iterated greedy (Ruiz and Stuetzle, EJOR 177, 2007): a better first incumbent than NEH, so the
// B&B prunes harder from the start. Deterministic for a given seed and iteration count.
#pragma once

#include <atomic>
#include <cstdint>

#include "heuristic/neh.hpp"

namespace pfsp {

struct ig_options {
  int iterations = 2000;     // destruction-construction rounds
  int destruct = 4;          // jobs removed per round (the paper's d)
  double temperature = 0.4;  // the paper's T: acceptance temperature factor
  std::uint32_t seed = 1;
};

// Starts from NEH; each round removes `destruct` random jobs, reinserts them greedily (Taillard's
// acceleration), then applies insertion local search; accepts worse schedules with the paper's
// constant-temperature criterion. Returns the best schedule seen. O(iterations * n^2 m).
neh_result iterated_greedy(const instance& inst, const ig_options& opt = {});

// The same rounds from a given schedule (start.makespan must be its makespan); stops early when
// *stop becomes true (checked before each round).
neh_result iterated_greedy_from(const instance& inst, neh_result start, const ig_options& opt,
                                const std::atomic<bool>* stop = nullptr);

// The automatic number of rounds: about 4e7 / (n^2 m), between 10 and 5000 (5000 on 20x20, a
// fraction of a second; 10 on 500x20). pfsp and pfsp-mpi both start from it.
int auto_ig_iterations(const instance& inst);

}  // namespace pfsp
