// The incumbent engine's elite pool (walk_options::elite = E > 0): E good schedules, pairwise at
// least a minimum insertion distance apart, that stagnant walkers restart from instead of all
// restarting from the engine's best (issue 21: do the walkers collapse onto one schedule?).
// - Distance: the insertion distance (n minus the longest common subsequence), the fewest
//   insertion moves from one schedule to the other: the move the walkers' local search makes, so
//   two schedules a few insertions apart lie in one IG round's reach. A positional (Hamming)
//   distance would call a schedule and the same with one job moved from the front to the back
//   "far apart" (every position differs).
// - Update (the elite-set rule of GRASP with path relinking, Resende and Ribeiro; the uniqueness
//   rule of Ruiz, Maroto and Alcaraz's steady-state HGA, Omega 34, 2006): a schedule enters if it
//   is better than every member within the minimum distance of it (it then replaces them all), or,
//   far from every member, if the pool has room or it is better than the worst member (it then
//   replaces the closest of the members worse than it). So the best is never lost, no two members
//   are closer than the minimum distance, and the size never exceeds E.
// - Choice: a binary tournament (the better of two members drawn at random).
// - Path relinking (Glover; for the PFSP Reeves and Yamada, Evolutionary Computation 6(1), 1998,
//   whose "big valley" places good local optima between other good ones): from one member towards
//   another, one insertion at a time, the best schedule on the path far enough from both ends.
// Not thread-safe: concurrent_improver guards it with its mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "heuristic/ig_walker.hpp"
#include "heuristic/insertion.hpp"

namespace pfsp {

// The fewest insertion moves that turn permutation a into permutation b (same jobs): n minus the
// length of their longest common subsequence, found as a longest increasing subsequence of b's
// positions read in a's order. O(n log n).
int insertion_distance(const std::vector<int>& a, const std::vector<int>& b);

// The auto minimum distance between two pool members: max(destruct, n / 10): a round destroys and
// reinserts `destruct` jobs, so schedules closer than that are one round apart; n / 10 (10 at 100
// jobs, 50 at 500) keeps members of one basin from filling the pool as a walker climbs.
int elite_min_distance(int n, int destruct);

struct elite_member {
  std::vector<int> schedule;
  int value = 0;
};

class elite_pool {
 public:
  elite_pool(int capacity, int min_distance);  // capacity >= 1, min_distance >= 1

  // Offers a schedule of makespan `value`; true if it entered the pool (rule above). O(E n log n).
  bool offer(const std::vector<int>& schedule, int value);
  // The index of a member chosen by binary tournament (ties: the first drawn); not empty.
  int pick(std::uint64_t& rng) const;

  int size() const { return static_cast<int>(members_.size()); }
  int capacity() const { return capacity_; }
  int min_distance() const { return min_distance_; }
  int best_value() const;   // INT_MAX when empty
  int worst_value() const;  // INT_MAX when empty
  const std::vector<elite_member>& members() const { return members_; }
  double mean_distance() const;  // mean pairwise insertion distance (0 with fewer than two members)
  std::uint64_t accepted() const { return accepted_; }

 private:
  bool replace_close(const std::vector<int>& schedule, int value, const std::vector<int>& distance);
  bool replace_far(const std::vector<int>& schedule, int value, const std::vector<int>& distance);
  int capacity_, min_distance_;
  std::vector<elite_member> members_;
  std::uint64_t accepted_ = 0;
};

// Path relinking from `from` towards `to`: position by position, the job `to` has there is moved
// there (one insertion; at most n steps, each evaluated from scratch in O(n m)). Returns the best
// intermediate schedule at insertion distance >= min_distance from both ends (ties: the first),
// its makespan in `value`; empty when the ends are too close for one. O(n^2 m).
std::vector<int> relink(const insertion_kernel& kernel, const std::vector<int>& from, const std::vector<int>& to,
                        int min_distance, int& value);

// An elite restart of walker w: from the relinking child of a towards b, brought to a local optimum
// (b non-empty and the path long enough), else from a itself. Deterministic: the walker's stream
// is used only by the local search.
void restart_from_elite(ig_walker& w, const elite_member& a, const elite_member& b, const insertion_kernel& kernel,
                        int min_distance, const std::atomic<bool>* stop = nullptr);

}  // namespace pfsp
