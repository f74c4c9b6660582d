// One iterated-greedy trajectory (Ruiz and Stuetzle, EJOR 177, 2007) with the refinements weighed
// in docs/decisions/012-incumbent-engine.md:
// - random tie-breaking among equally good insertion positions, and sideways (equal-makespan)
//   moves in the insertion local search, which keep large instances (many ties) moving (on);
// - local search on the partial solution after destruction (Dubois-Lacoste, Pagnozzi and Stuetzle,
//   C&OR 81, 2017), before the greedy reconstruction (off by default: it halves the rounds and
//   did not pay within the seconds the engine gets);
// - constant-temperature acceptance with T = 0.7 (the paper's 0.4 did worse here); the local search's removals reuse
// the
//   unchanged heads and tails (insertion_kernel::load_removed).
// Every step checks a stop flag between two insertions, so a walker stops within one insertion
// evaluation (O(n m), about 30 us at 500x20). Deterministic for a seed and a number of rounds.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "heuristic/insertion.hpp"

namespace pfsp {

struct walk_options {
  int destruct = 4;          // jobs removed per round (the paper's d)
  double temperature = 0.7;  // acceptance temperature factor (the paper's T, 0.4 there; measured: 0.7)
  bool partial_ls = false;   // insertion local search on the partial solution after destruction (measured: off)
  bool random_ties = true;   // uniform choice among tied positions; sideways moves in the local search
  bool idle_ties = false;    // ties broken first by the idle time the job meets (best_insertion_idle)
  // For concurrent_improver: rounds without an improvement of a walker's own before it restarts
  // from the engine's best, when that is better (-1: auto, 0: never).
  long long restart_rounds = -1;
  // For concurrent_improver: the size E of its elite pool (heuristic/elite_pool.hpp), 0: none (a
  // stagnant walker restarts from the engine's best, as before). With E > 0 a stagnant walker
  // restarts from a pool member chosen by a binary tournament, whether or not it is the best.
  int elite = 0;
  int elite_distance = -1;  // least insertion distance between two pool members (-1: auto, elite_min_distance)
  bool relink = false;      // with the pool: restart from a path-relinking child of two members (elite_pool.hpp)
  // For concurrent_improver: each walker stops after this many rounds (0: never; for the tests,
  // which need a fixed amount of work to compare two runs).
  std::uint64_t max_rounds = 0;
};

class ig_walker {
 public:
  ig_walker(const instance& inst, const walk_options& opt, std::uint64_t seed);

  // Makes `schedule` (of makespan `value`) the current solution, and the best if it is better.
  void restart(const std::vector<int>& schedule, int value);
  // Makes `schedule` the current solution and the best, even if worse than the best so far (an
  // elite restart: the walker's old best is in the pool already). rounds_since_best() is then 0.
  void reset(const std::vector<int>& schedule, int value);
  // Local search on the current solution; false if stopped (the current solution is then kept).
  bool descend(const std::atomic<bool>* stop);
  // One round: destruction, partial local search, greedy reconstruction, local search,
  // acceptance. Returns false if stopped mid-round (the current solution is then unchanged).
  bool round(const std::atomic<bool>* stop);

  int best_value() const { return best_value_; }
  const std::vector<int>& best() const { return best_; }
  int current_value() const { return cur_value_; }
  std::uint64_t rounds() const { return rounds_; }
  std::uint64_t rounds_since_best() const { return rounds_ - best_round_; }

 private:
  bool local_search(std::vector<int>& seq, int& value, const std::atomic<bool>* stop);
  std::pair<int, int> insert_position(int job);
  void accept(std::vector<int>& candidate, int value);

  insertion_kernel kernel_;
  walk_options opt_;
  std::uint64_t rng_;
  double temperature_ = 1;
  std::vector<int> cur_, best_, work_, removed_, order_;
  int cur_value_ = 0, best_value_ = 0;
  std::uint64_t rounds_ = 0, best_round_ = 0;
};

}  // namespace pfsp
