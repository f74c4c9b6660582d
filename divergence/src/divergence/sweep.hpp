// Parameter sweep for the persistent-thread strategies (Frey et al. Section 5: "directly supports
// empirically evaluating the best acceleration parameters for a specific problem by automatically
// generating performance test cases for any parameter combination in a certain range"). The
// measurement is a callback, so the same sweep runs on the GPU (gpu/runner.hpp) or on the host
// model (task_pool_sim.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "divergence/task_pool.hpp"

namespace pfsp::divergence {

// Ranges after Frey Section 5: chunk 1..8 for Global, 0..128 for Hybrid, 256..12000 for Local;
// 1..32 idle threads for Ballot and Atomic.
struct sweep_grid {
  std::vector<pool_kind> pools{pool_kind::global, pool_kind::local, pool_kind::hybrid, pool_kind::persistent};
  std::vector<fetch_control> controls{fetch_control::any, fetch_control::all, fetch_control::ballot,
                                      fetch_control::atomic};
  std::vector<std::uint32_t> global_chunks{1, 2, 4, 8};
  std::vector<std::uint32_t> hybrid_chunks{0, 8, 32, 128};
  std::vector<std::uint32_t> local_chunks{256, 1024, 4096, 12000};
  std::vector<std::uint32_t> idle_thresholds{1, 4, 16};
  std::vector<std::uint32_t> check_intervals{1};  // iterations between votes
};

// Every parameter set of the grid (Persistent once, with All).
std::vector<task_pool_params> sweep_candidates(const sweep_grid& grid);

struct sweep_point {
  task_pool_params params;
  double seconds = 0.0;
};

// Measures every candidate; returns them fastest first.
std::vector<sweep_point> sweep(const sweep_grid& grid, const std::function<double(const task_pool_params&)>& measure);

}  // namespace pfsp::divergence
