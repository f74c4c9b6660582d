#include "divergence/sweep.hpp"

#include <algorithm>

namespace pfsp::divergence {

std::vector<task_pool_params> sweep_candidates(const sweep_grid& grid) {
  std::vector<task_pool_params> out;
  for (const std::uint32_t u : grid.check_intervals) {
    for (const pool_kind pool : grid.pools) {
      if (pool == pool_kind::persistent) {
        out.push_back({pool, fetch_control::all, 0, 1, u});
        continue;
      }
      const auto& chunks = pool == pool_kind::global  ? grid.global_chunks
                           : pool == pool_kind::local ? grid.local_chunks
                                                      : grid.hybrid_chunks;
      for (const fetch_control control : grid.controls) {
        const bool thresholded = control == fetch_control::ballot || control == fetch_control::atomic;
        for (const std::uint32_t chunk : chunks) {
          if (thresholded) {
            for (const std::uint32_t k : grid.idle_thresholds) out.push_back({pool, control, chunk, k, u});
          } else {
            out.push_back({pool, control, chunk, 1, u});
          }
        }
      }
    }
  }
  return out;
}

std::vector<sweep_point> sweep(const sweep_grid& grid, const std::function<double(const task_pool_params&)>& measure) {
  std::vector<sweep_point> out;
  for (const auto& p : sweep_candidates(grid)) out.push_back({p, measure(p)});
  std::stable_sort(out.begin(), out.end(),
                   [](const sweep_point& a, const sweep_point& b) { return a.seconds < b.seconds; });
  return out;
}

}  // namespace pfsp::divergence
