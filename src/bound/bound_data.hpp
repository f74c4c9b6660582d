// Per-instance tables the bounds read, computed once on the host: heads and tails of every job
// (for LB1 at nodes with an empty prefix or suffix), and for LB2 the m(m-1)/2 machine pairs with
// each pair's Johnson order and time lags (Lageweg, Lenstra, Rinnooy Kan 1978; the papers' JM
// and LM matrices).
#pragma once

#include <vector>

#include "problem/hd.hpp"
#include "problem/instance.hpp"

namespace pfsp {

// What a bound function receives: a trivially copyable view, cheap to pass to a kernel by value.
struct bound_view {
  instance_view inst;
  const int* heads = nullptr;        // [k * n + j] = sum of p(i, j) for i < k
  const int* tails = nullptr;        // [k * n + j] = sum of p(i, j) for i > k
  int npairs = 0;                    // m (m - 1) / 2
  const int* pair_first = nullptr;   // [pair] = machine k
  const int* pair_second = nullptr;  // [pair] = machine l > k
  const int* johnson = nullptr;      // [pair * n + r] = job at rank r of the pair's Johnson order
  const int* lags = nullptr;         // [pair * n + j] = sum of p(i, j) for k < i < l
};

// Owner of the tables (host memory). The GPU layer copies these arrays to the device and builds
// a bound_view over its own copies.
class bound_data {
 public:
  explicit bound_data(const instance& inst);

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
