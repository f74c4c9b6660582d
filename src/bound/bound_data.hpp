// Per-instance tables the bounds read, computed once on the host: heads and tails of every job
// (for LB1 at nodes with an empty prefix or suffix), and for LB2 the m(m-1)/2 machine pairs with
// each pair's Johnson order and time lags (Lageweg, Lenstra, Rinnooy Kan 1978; the papers' JM
// and LM matrices).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/hd.hpp"
#include "problem/instance.hpp"

namespace pfsp {

// What a bound function receives: a trivially copyable view, cheap to pass to a kernel by value.
// The element types of the three big tables are parameters (processing times, Johnson orders,
// lags): `bound_view` (all int) is what every solver uses; the GPU's compact tables
// (compact_tables.hpp) store them in 8 and 16 bits. Bound functions are templates over the view
// and widen every read to int, so the bounds do not depend on the storage.
template <class Time, class Job, class Lag>
struct basic_bound_view {
  using time_type = Time;
  using job_type = Job;
  using lag_type = Lag;
  basic_instance_view<Time> inst;
  const int* heads = nullptr;        // [k * n + j] = sum of p(i, j) for i < k
  const int* tails = nullptr;        // [k * n + j] = sum of p(i, j) for i > k
  int npairs = 0;                    // m (m - 1) / 2
  const int* pair_first = nullptr;   // [pair] = machine k
  const int* pair_second = nullptr;  // [pair] = machine l > k
  const Job* johnson = nullptr;      // [pair * n + r] = job at rank r of the pair's Johnson order
  const Lag* lags = nullptr;         // [pair * n + j] = sum of p(i, j) for k < i < l
};
using bound_view = basic_bound_view<int, int, int>;
// The compact tables' view (compact_tables.hpp): 8-bit times, 16-bit lags; Job = std::uint8_t
// (n <= 256) or std::uint16_t, the Johnson orders' element type.
template <class Job>
using compact_bound_view = basic_bound_view<std::uint8_t, Job, std::uint16_t>;

// Owner of the tables (host memory). The GPU layer copies these arrays to the device and builds
// a bound_view over its own copies.
// Job j's place in a machine pair's Johnson order (Mitten's rule with time lags) as one integer:
// a = p_kj + lag_j, b = lag_j + p_lj; jobs with a <= b first by increasing a, then the others by
// decreasing b, ties by job index. Ascending keys are that order; the job is the low 16 bits
// (a, b < 2^31 by instance.hpp's time limit, j < 2^16 by max_jobs).
constexpr std::uint64_t johnson_key(int a, int b, int j) {
  const std::uint64_t job = static_cast<std::uint64_t>(j);
  if (a <= b) return static_cast<std::uint64_t>(a) << 16 | job;
  return std::uint64_t{1} << 63 | static_cast<std::uint64_t>(0x7fffffff - b) << 16 | job;
}

class bound_data {
 public:
  // pairs: the machine pairs (k < l) LB2 maximises over, in the order it evaluates them; empty =
  // all m (m - 1) / 2 in the papers' order (0,1), (0,2), ..., (m-2, m-1). A max over any subset is
  // still a lower bound (each pair's value is one), weaker or equal, cheaper by the ratio.
  explicit bound_data(const instance& inst, const std::vector<std::pair<int, int>>& pairs = {});

  // Nabeshima's m - 1 adjacent pairs (k, k + 1).
  static std::vector<std::pair<int, int>> adjacent_pairs(int m);

  bound_view view() const;
  const instance& problem() const { return *inst_; }

  const std::vector<int>& heads() const { return heads_; }
  const std::vector<int>& tails() const { return tails_; }
  const std::vector<int>& pair_first() const { return pair_first_; }
  const std::vector<int>& pair_second() const { return pair_second_; }
  const std::vector<int>& johnson() const { return johnson_; }
  const std::vector<int>& lags() const { return lags_; }

 private:
  const instance* inst_;
  std::vector<int> heads_, tails_, pair_first_, pair_second_, johnson_, lags_;
};

}  // namespace pfsp
