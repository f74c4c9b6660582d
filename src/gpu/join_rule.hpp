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

// The rule: whether the other engines join at `seconds` of search, `remaining_s` (the forecast:
// -1 not known yet, infinity while the closed share stands still) left by the forecast.
inline bool engines_should_join(const join_rule& r, double seconds, double remaining_s) {
  if (seconds < r.min_s) return false;
  if (seconds >= r.sure_s) return true;
  return remaining_s >= 0 && remaining_s >= r.worth_s;
}

// The rule as the coordinator runs it, at each of its polls until the engines join: ask engine 0
// for its statistics every sample_s (ask), record its closed share when they come (sample), and
// decide on the forecast of the closed share's recent rate (search/tree_estimate.hpp's
// forecast_seconds: -1 while the samples span less than half a second).
class join_watch {
 public:
  explicit join_watch(const join_rule& r) : r_(r) {}
  bool ask(double t) {
    if (t - asked_ < r_.sample_s) return false;
    asked_ = t;
    return true;
  }
  void sample(double t, double done) { samples_.push_back({t, done}); }
  double forecast(double t) const {
    return forecast_seconds(samples_, t, samples_.empty() ? 0.0 : samples_.back().tree_done);
  }
  bool decide(double t) const { return engines_should_join(r_, t, forecast(t)); }

 private:
  join_rule r_;
  std::vector<join_sample> samples_;
  double asked_ = -1e300;
};

}  // namespace pfsp::gpu
