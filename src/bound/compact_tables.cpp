#include "bound/compact_tables.hpp"

#include <algorithm>

namespace pfsp {

std::string compact_misfit(const bound_data& data) {
  const instance& inst = data.problem();
  const auto [lo, hi] = std::minmax_element(inst.p.begin(), inst.p.end());
  const auto p = lo != inst.p.end() && *lo < 0 ? lo : hi;
  if (p != inst.p.end() && (*p > 255 || *p < 0)) {
    const auto at = static_cast<int>(p - inst.p.begin());
    return "processing time " + std::to_string(*p) + " (machine " + std::to_string(at / inst.n + 1) + ", job " +
           std::to_string(at % inst.n + 1) + ") does not fit in 8 bits";
  }
  const auto lag = std::max_element(data.lags().begin(), data.lags().end());
  if (lag != data.lags().end() && *lag > 65535)
    return "a time lag of " + std::to_string(*lag) + " does not fit in 16 bits";
  if (inst.n > 65536) return std::to_string(inst.n) + " jobs do not fit 16-bit Johnson orders";
  return "";
}

compact_tables::compact_tables(const bound_data& data) : data_(&data) {
  const std::string why = compact_misfit(data);
  if (!why.empty()) throw input_error("compact tables: " + why);
  const instance& inst = data.problem();
  times_.assign(inst.p.begin(), inst.p.end());  // every value checked above: no narrowing loss
  johnson16_.assign(data.johnson().begin(), data.johnson().end());
  if (inst.n <= 256) johnson8_.assign(data.johnson().begin(), data.johnson().end());
  lags_.assign(data.lags().begin(), data.lags().end());
}

}  // namespace pfsp
