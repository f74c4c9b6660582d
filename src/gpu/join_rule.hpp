// When the device loop's other engines join the search (issue 22 item 6: more GPUs are never
// slower on small trees). Plain C++, used by coordinator.cu and tested on the host
// (tests/test_engine_join.cpp).
//
// A second engine costs before it helps: its CUDA context (0.1-0.3 s when not warmed), its
// tables, stack and graphs, the first launches of its kernels, and the donations that split the
// stack. Measured before this rule (4 H200s, every engine from the start): ta021-ta030 from the
// optimum 3.33 s of search on one GPU, 5.53 s on two, 6.58 s on four. So engine 0 starts alone;
// the others are built (on their own threads, while engine 0 searches) and join only when the
// search has lasted `min_s` and the remaining-tree forecast says at least `worth_s` are left,
// or once it has lasted `sure_s` whatever the forecast says (on 50x20 the closed share jumps
// to 53-94 % within a second and then stands still, so that the forecast of the first seconds
// promises an early end: docs/benchmarks.md, "Honest progress"). A tree that ends within `min_s`
// never pays for a second engine: its time is one engine's.
#pragma once

#include <limits>
#include <vector>

#include "search/tree_estimate.hpp"

namespace pfsp::gpu {

struct join_rule {
  double min_s = 1.0;      // search seconds before any other engine joins
  double worth_s = 1.0;    // forecast seconds left that make a join worth it
  double sure_s = 2.0;     // search seconds after which the engines join whatever the forecast
  double sample_s = 0.02;  // how often engine 0's closed share is sampled for the forecast
  // Every engine from the start (tests of the engines' cooperation on small trees).
  static join_rule at_once() { return {0.0, 0.0, 0.0, 0.02}; }
};

// One sample of engine 0's closed tree share (tree weight, search/tree_estimate.hpp) at `elapsed`
// seconds of search; the fields forecast_seconds reads.
struct join_sample {
  double elapsed = 0;
  double tree_done = 0;
};

// Seconds left by the closed share's recent rate (forecast_seconds): -1 while the samples span
// less than half a second, infinity while the share stands still.
inline double join_forecast(const std::vector<join_sample>& samples, double now, double done) {
  return forecast_seconds(samples, now, done);
}

// The rule: whether the other engines join at `seconds` of search, `remaining_s` (join_forecast)
// left by the forecast.
inline bool engines_should_join(const join_rule& r, double seconds, double remaining_s) {
  if (seconds < r.min_s) return false;
  if (seconds >= r.sure_s) return true;
  return remaining_s >= 0 && remaining_s >= r.worth_s;
}

}  // namespace pfsp::gpu
