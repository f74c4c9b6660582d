// When the device loop's other engines join the search (issue 22 item 6: more GPUs are never
// slower on small trees). Plain C++, used by coordinator.cu and tested on the host
// (tests/test_engine_join.cpp).
//
// A second engine costs before it helps: its CUDA context (0.1-0.3 s), its tables, stack and
// graphs, the first launches of its kernels, and the donations that split the stack. And it helps
// only where engine 0 is bound by its throughput (full pools: an iteration with half the children
// costs about half, bench/results/2026-11-26-h200x4/donate_floor_0124f05); where its pools are
// small, an iteration costs its latency whatever it holds, and two engines run as many iterations
// as one. Measured before this rule (4 H200s, every engine from the start): ta021-ta030 from the
// optimum 3.33 s of search on one GPU, 5.53 s on two, 6.58 s on four; ta056 slices 1.95x on two
// (full pools). So engine 0 starts alone; the others are built (on their own threads, while engine
// 0 searches) and join only when the search has lasted `min_s`, engine 0's pools were at least
// `fill_min` full over the last `fill_window_s`, and the remaining-tree forecast says at least
// `worth_s` are left, or the search has lasted `sure_s` (on 50x20 the closed share jumps to
// 53-94 % within a second and then stands still, so that the forecast of the first seconds
// promises an early end: docs/benchmarks.md, "Honest progress"). A tree that ends within `min_s`,
// or whose pools stay small, never pays for a second engine: its time is one engine's.
#pragma once

#include <algorithm>
#include <deque>
#include <vector>

#include "search/tree_estimate.hpp"

namespace pfsp::gpu {

struct join_rule {
  double min_s = 1.0;           // search seconds before any other engine joins
  double worth_s = 1.0;         // forecast seconds left that make a join worth it
  double sure_s = 2.0;          // search seconds after which the engines join whatever the forecast
  double sample_s = 0.02;       // how often engine 0's closed share is sampled for the forecast
  double fill_min = 0.5;        // engine 0's children per iteration over its pool's most, at least
  double fill_window_s = 0.25;  // measured over this long
  // Every engine from the start (tests of the engines' cooperation on small trees).
  static join_rule at_once() { return {0.0, 0.0, 0.0, 0.02, 0.0, 0.25}; }
};

// A sample of engine 0's closed tree share (tree weight, search/tree_estimate.hpp) at `elapsed`
// seconds of search: the fields forecast_seconds reads.
struct join_sample {
  double elapsed = 0;
  double tree_done = 0;
};

// The rule: whether the other engines join at `seconds` of search, engine 0's pools `fill` full
// (0-1), `remaining_s` left by the forecast (-1 not known yet, infinity while the closed share
// stands still).
inline bool engines_should_join(const join_rule& r, double seconds, double fill, double remaining_s) {
  if (seconds < r.min_s || fill < r.fill_min) return false;
  if (seconds >= r.sure_s) return true;
  return remaining_s >= 0 && remaining_s >= r.worth_s;
}

// The rule as the coordinator runs it, at each of its polls until the engines join: engine 0's
// counters (counters: children bounded in full pools' worth, i.e. bounds over the pool's most
// children, and iterations, both so far; no device work), its closed share when its statistics
// come (share; asked for by `ask`, every sample_s, thinned to t/256 on long runs so that the
// samples stay few), and the decision (decide) on the pools' fill over the last fill_window_s
// and the forecast of the closed share's recent rate (search/tree_estimate.hpp's
// forecast_seconds: -1 while the samples span less than half a second).
class join_watch {
 public:
  explicit join_watch(const join_rule& r) : r_(r) {}
  bool ask(double t) {
    if (t - asked_ < std::max(r_.sample_s, t / 256)) return false;
    asked_ = t;
    return true;
  }
  void share(double t, double done) { shares_.push_back({t, done}); }
  void counters(double t, double full_pools, double iterations) {
    recent_.push_back({t, full_pools, iterations});
    while (recent_.size() > 2 && recent_[1].t <= t - r_.fill_window_s) recent_.pop_front();
  }
  // Children per iteration over the pool's most, over the last fill_window_s (0 before any
  // iteration in it).
  double fill() const {
    if (recent_.size() < 2) return 0.0;
    const double iterations = recent_.back().iterations - recent_.front().iterations;
    return iterations > 0 ? (recent_.back().pools - recent_.front().pools) / iterations : 0.0;
  }
  double forecast(double t) const {
    return forecast_seconds(shares_, t, shares_.empty() ? 0.0 : shares_.back().tree_done);
  }
  bool decide(double t) const { return engines_should_join(r_, t, fill(), forecast(t)); }

 private:
  struct counted {
    double t, pools, iterations;
  };
  join_rule r_;
  std::vector<join_sample> shares_;
  std::deque<counted> recent_;
  double asked_ = -1e300;
};

}  // namespace pfsp::gpu
