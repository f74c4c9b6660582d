// Taillard's acceleration (1990) on flat arrays: the makespan of inserting one job at every
// position of a (partial) sequence in O(L m), the kernel of NEH, of iterated greedy's
// reconstruction and of its insertion local search. The times are copied job-major (p[j * m + k])
// so that one job's m times are contiguous; heads and tails are machine-major (m rows of n + 1
// positions), so that the makespans of all insertion positions are computed a machine at a time
// in loops over the positions that the compiler vectorises.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp {

class insertion_kernel {
 public:
  explicit insertion_kernel(const instance& inst);

  int jobs() const { return n_; }
  int machines() const { return m_; }

  // Sets the sequence the next calls insert into (seq[0..len), distinct jobs) and computes its
  // heads and tails: O(len m).
  void load(const int* seq, int len);
  int loaded_makespan() const;  // makespan of the loaded sequence (0 when empty)

  // The insertion local search's pair: remember_full() keeps the heads and tails of the loaded
  // (complete) sequence; load_removed(seq, len, r) then loads seq without its position r, reusing
  // the rows the removal leaves unchanged (heads before r, tails after r): half of load()'s work.
  // seq must be the sequence remembered.
  void remember_full();
  void load_removed(const int* seq, int len, int r);

  // The makespan of inserting `job` before position i of the loaded sequence, for every i in
  // 0..len, written to out[0..len]. O(len m).
  void insertion_values(int job, int* out) const;

  // The smallest of insertion_values and a position that reaches it. Ties: the first position,
  // or, with rng_state non-null, a uniformly random one of the tied positions (a cheap
  // diversification; the state is advanced).
  std::pair<int, int> best_insertion(int job, std::uint64_t* rng_state = nullptr) const;

  // insertion_values, and in idle[0..len] the idle time the inserted job meets: the sum over
  // machines 2..m of its start minus the completion of the job before it on that machine.
  void insertion_values_idle(int job, int* out, int* idle) const;
  // best_insertion with the idle-time tie-break (after Fernandez-Viagas and Framinan, C&OR 45,
  // 2014): among the positions of the smallest makespan, one of least idle time; among those, the
  // first or (rng_state non-null) a uniformly random one.
  std::pair<int, int> best_insertion_idle(int job, std::uint64_t* rng_state = nullptr) const;

  // Makespan of a complete or partial sequence, from scratch. O(len m).
  int makespan(const int* seq, int len) const;

 private:
  int n_, m_;
  std::vector<int> p_;  // job-major times
  void heads_from(const int* seq, int from, int len);
  void tails_down_from(const int* seq, int to);
  int len_ = 0;
  std::vector<int> e_;  // e_[k * (n + 1) + i]: completion of position i - 1 on machine k (i = 0: zero)
  std::vector<int> q_;  // q_[k * (n + 1) + i]: from the start of position i on machine k to the end (i = len: zero)
  mutable std::vector<int> values_, f_, idle_;
  std::vector<int> full_e_, full_q_;  // remember_full()'s copies
};

// xorshift64*: the walkers' random stream (fast, reproducible from a seed, no allocation).
inline std::uint64_t next_random(std::uint64_t& s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 2685821657736338717ULL;
}
inline int random_below(std::uint64_t& s, int bound) {
  return static_cast<int>((next_random(s) >> 33) % static_cast<std::uint64_t>(bound));
}
inline double random_unit(std::uint64_t& s) { return static_cast<double>(next_random(s) >> 11) * 0x1.0p-53; }
inline std::uint64_t seed_random(std::uint64_t seed) {
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  return s == 0 ? 1 : s;
}

}  // namespace pfsp
