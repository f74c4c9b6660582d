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

// Throws input_error unless sizes are positive and consistent and all times are > 0.
void validate(const instance& inst, const std::string& origin);

}  // namespace pfsp
