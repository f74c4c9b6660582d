// LB2's pair tables packed for the GPU's rank step (docs/decisions/013, option C): one 32-bit word
// a rank of a pair's Johnson order instead of four table reads (the order's job, p(k, j), the
// lag, p(l, j)), each behind its own index arithmetic. Bits 0-5: the job j; 6-12: p(k, j);
// 13-19: p(l, j); 20-31: p(k, j) + lag(j). It fits where n <= 64, every time is below 128 and
// every p(k, j) + lag(j) below 4096 (every Taillard instance up to 50 jobs); elsewhere the
// kernels read the tables as before.
//
// Same arithmetic as detail::lb2_pairs_form (mask form), the same pair order and early exit, so
// the same bound bit for bit: tests/test_bounds.cpp compares the two on random instances and
// nodes. The child's own job is folded into the scheduled mask once per child, not tested at
// every rank.
#pragma once

#include <cstdint>
#include <vector>

#include "base/hd.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb1.hpp"
#include "bound/node_parts.hpp"

namespace pfsp {

// The packed words and where the pairs are, as a kernel receives them.
struct packed_pairs_view {
  int n = 0;
  int npairs = 0;
  const int* pair_first = nullptr;
  const int* pair_second = nullptr;
  const std::uint32_t* words = nullptr;  // [pair * n + rank]
};

namespace packed {
inline constexpr int kJobBits = 6, kTimeBits = 7, kSumBits = 12;
inline constexpr int kMaxJobs = 1 << kJobBits;
inline constexpr int kTimeLimit = 1 << kTimeBits;  // times below this
inline constexpr int kSumLimit = 1 << kSumBits;    // p(k, j) + lag(j) below this
}  // namespace packed

// Whether the instance's tables pack (n, times and sums within the fields).
bool pairs_pack(const bound_data& data);
// The words, [pair * n + rank]; requires pairs_pack(data).
std::vector<std::uint32_t> pack_pairs(const bound_data& data);

// Max over the pairs of the two-machine bound, from the packed words; `scheduled` has bit j set
// for every job in the prefix or the suffix (the child's own job included). Stops at the first
// pair whose value reaches ub, as lb2_pairs does.
PFSP_HD int lb2_pairs_packed(const packed_pairs_view& v, const int* front, const int* back, std::uint64_t scheduled,
                             int ub) {
  const int n = v.n;
  int lb = 0;
  for (int q = 0; q < v.npairs; ++q) {
    const int k = v.pair_first[q], l = v.pair_second[q];
    const std::uint32_t* w = v.words + q * n;
    int t0 = front[k], t1 = front[l];
    for (int r = 0; r < n; ++r) {
      const std::uint32_t x = w[r];
      // 0 where job j is scheduled (it adds nothing), all ones where it is not.
      const int keep = static_cast<int>((scheduled >> (x & 63u)) & 1u) - 1;
      const int a = static_cast<int>((x >> 6) & 127u), b = static_cast<int>((x >> 13) & 127u);
      const int ready = t0 + static_cast<int>(x >> 20);  // t0 before j, plus p(k, j) + lag(j)
      t0 += a & keep;
      const int next = (t1 > ready ? t1 : ready) + b;
      t1 = (next & keep) | (t1 & ~keep);
    }
    const int x = t0 + back[k], y = t1 + back[l];
    const int val = x > y ? x : y;
    if (val > lb) {
      lb = val;
      if (lb >= ub) return lb;
    }
  }
  return lb;
}

// child_bound (lb2.hpp) for the kinds lb2 and lb1_lb2 with the packed pairs: LB1 of the child,
// then, unless the chain stops at LB1, the pairs. parent_scheduled: the parent's prefix and
// suffix as a 64-bit mask. Scratch: m ints.
template <class Inst>
PFSP_HD int child_bound_packed(bool chain, const Inst& inst, const packed_pairs_view& v, const int* front,
                               const int* back, const int* remain, std::uint64_t parent_scheduled, int job,
                               bool forward, int ub, int* scratch) {
  int lb1;
  if (forward) {
    lb1 = lb1_forward_child(inst, front, back, remain, job);
  } else {
    lb1 = lb1_backward_child(inst, front, back, remain, job, scratch);
  }
  if (chain && lb1 >= ub) return lb1;
  const std::uint64_t scheduled = parent_scheduled | (std::uint64_t{1} << job);
  int pairs;
  if (forward) {
    front_after(inst, front, job, scratch);
    pairs = lb2_pairs_packed(v, scratch, back, scheduled, ub);
  } else {
    pairs = lb2_pairs_packed(v, front, scratch, scheduled, ub);
  }
  return pairs > lb1 ? pairs : lb1;
}

}  // namespace pfsp
