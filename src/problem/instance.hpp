// A permutation flow-shop instance: n jobs, m machines, processing times p(k, j) > 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/hd.hpp"

namespace pfsp {

// Best bounds known for a named benchmark instance (Taillard's table, shared/data).
struct known_bounds {
  int lb = 0;
  int ub = 0;
  bool optimal = false;
};

// Non-owning view of the processing times, machine-major: p[k * n + j] (the layout of
// Taillard's files and of the papers' PTM matrix). Trivially copyable; what kernels get.
// `Time` is the stored element type: int everywhere, std::uint8_t for the GPU's compact tables
// (src/bound/compact_tables.hpp). time() widens to int, so every bound computes in int whatever
// the storage.
template <class Time>
struct basic_instance_view {
  using time_type = Time;
  int n = 0;
  int m = 0;
  const Time* p = nullptr;

  PFSP_HD int time(int machine, int job) const { return static_cast<int>(p[machine * n + job]); }
};
using instance_view = basic_instance_view<int>;

// Owner of an instance. Jobs and machines are 0-based inside the solver, 1-based in output.
struct instance {
  std::string name;
  int n = 0;
  int m = 0;
  std::vector<int> p;                 // machine-major, size m * n
  std::optional<known_bounds> known;  // set for named benchmark instances

  int time(int machine, int job) const { return p[static_cast<std::size_t>(machine) * n + job]; }
  instance_view view() const { return {n, m, p.data()}; }
};

// Limits of every instance, whatever its source (file, random:N,M,SEED, checkpoint).
// - n <= max_jobs: a job index is a 16-bit job_t in every node (search/types.hpp).
// - m <= max_machines and n * m (m - 1) / 2 <= max_lb2_entries: LB2's tables (bound_data) hold a
//   Johnson order and a lag per job for each of the m (m - 1) / 2 machine pairs, 8 bytes an
//   entry: at most 256 MiB, refused before anything that size is allocated.
// - 1 <= p(k, j) <= time_limit(n, m). Every makespan is the length of a longest path through the
//   m x n grid of times moving right or down: n + m - 1 cells (Taillard 1990). Every value the
//   solver keeps in an int (completion times, heads, tails, lags, LB1, LB2, NEH's job totals) is a
//   sum of times over part of one such path, so (n + m - 1) * max p <= INT32_MAX keeps them all
//   exact in 32 bits. The sum over all the times (iterated greedy's temperature, `pfsp info`) is
//   computed in 64 bits.
inline constexpr int max_jobs = 65535;
inline constexpr int max_machines = 1000;
inline constexpr long long max_lb2_entries = 1LL << 25;
inline constexpr int max_time = 1'000'000;

// The largest processing time an n x m instance may have: min(max_time, INT32_MAX / (n + m - 1)).
int time_limit(int n, int m);

// Throws file_error(origin, line, ...) unless 1 <= n <= max_jobs, 1 <= m <= max_machines and the
// LB2 tables fit max_lb2_entries.
void check_sizes(long long n, long long m, const std::string& origin, int line);

// Throws input_error unless sizes are within the limits above and consistent and every time is in
// 1..time_limit(n, m).
void validate(const instance& inst, const std::string& origin);

// The processing times job-major, p[j * m + k]: one job's m times side by side (the layout the GPU
// walkers and the GPU beam read a job's times in).
std::vector<int> job_major_times(const instance& inst);

}  // namespace pfsp
