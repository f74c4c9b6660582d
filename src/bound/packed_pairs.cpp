#include "bound/packed_pairs.hpp"

#include "base/error.hpp"

namespace pfsp {

bool pairs_pack(const bound_data& data) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  if (n > packed::kMaxJobs) return false;
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j)
      if (b.inst.time(k, j) >= packed::kTimeLimit) return false;
  for (int q = 0; q < b.npairs; ++q)
    for (int j = 0; j < n; ++j)
      if (b.inst.time(b.pair_first[q], j) + b.lags[q * n + j] >= packed::kSumLimit) return false;
  return true;
}

std::vector<std::uint32_t> pack_pairs(const bound_data& data) {
  PFSP_EXPECTS(pairs_pack(data), "pack_pairs: the instance's tables do not fit the packed words");
  const bound_view b = data.view();
  const int n = b.inst.n;
  std::vector<std::uint32_t> words(static_cast<std::size_t>(b.npairs) * static_cast<std::size_t>(n));
  for (int q = 0; q < b.npairs; ++q) {
    const int k = b.pair_first[q], l = b.pair_second[q];
    for (int r = 0; r < n; ++r) {
      const int j = b.johnson[q * n + r];
      const auto a = static_cast<std::uint32_t>(b.inst.time(k, j)), c = static_cast<std::uint32_t>(b.inst.time(l, j));
      const auto sum = a + static_cast<std::uint32_t>(b.lags[q * n + j]);
      words[static_cast<std::size_t>(q * n + r)] = static_cast<std::uint32_t>(j) | a << 6 | c << 13 | sum << 20;
    }
  }
  return words;
}

}  // namespace pfsp
