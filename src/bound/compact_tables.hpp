// Narrow copies of the bound tables (the GPU's `--compact-times`): processing times in 8 bits,
// Johnson orders in 8 bits when n <= 256 (else 16), lags in 16 bits. The bounds read them through
// a compact_bound_view and widen every entry to int, so they equal the int tables' bounds bit for
// bit; only the bytes a GPU block copies to shared memory shrink (about 2.6x at m = 20:
// docs/gpu_backend.md, "Memory placement"). Heads, tails and machine pairs stay int (bound_data's
// own arrays). Taillard's instances all qualify (times 1..99).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "base/error.hpp"
#include "bound/bound_data.hpp"

namespace pfsp {

// Why the instance has no compact tables, "" when it has: a processing time above 255 or a lag
// (sum of times between two machines) above 65535. With times below 256, lags fit whenever
// m <= 259, so in practice only the times decide. O(n m^2).
std::string compact_misfit(const bound_data& data);

// Owner of the narrow tables (host memory). The GPU layer lays the same arrays out in its
// device blob (gpu/bounder.cu); the CPU tests bound through view<Job>() directly.
class compact_tables {
 public:
  // Throws pfsp::input_error with compact_misfit's reason when the tables do not fit.
  explicit compact_tables(const bound_data& data);

  template <class Job>
  compact_bound_view<Job> view() const {
    static_assert(std::is_same_v<Job, std::uint8_t> || std::is_same_v<Job, std::uint16_t>,
                  "compact Johnson orders are 8 or 16 bits");
    const bound_view b = data_->view();
    compact_bound_view<Job> v;
    v.inst = {b.inst.n, b.inst.m, times_.data()};
    v.heads = b.heads;
    v.tails = b.tails;
    v.npairs = b.npairs;
    v.pair_first = b.pair_first;
    v.pair_second = b.pair_second;
    if constexpr (std::is_same_v<Job, std::uint8_t>) {
      PFSP_EXPECTS(b.inst.n <= 256, "8-bit Johnson orders need n <= 256");
      v.johnson = johnson8_.data();
    } else {
      v.johnson = johnson16_.data();
    }
    v.lags = lags_.data();
    return v;
  }

  const std::vector<std::uint8_t>& times() const { return times_; }           // [k * n + j]
  const std::vector<std::uint8_t>& johnson8() const { return johnson8_; }     // empty when n > 256
  const std::vector<std::uint16_t>& johnson16() const { return johnson16_; }  // [pair * n + r]
  const std::vector<std::uint16_t>& lags() const { return lags_; }            // [pair * n + j]

 private:
  const bound_data* data_;
  std::vector<std::uint8_t> times_, johnson8_;
  std::vector<std::uint16_t> johnson16_, lags_;
};

}  // namespace pfsp
