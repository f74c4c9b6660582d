// The device loop's join rule (src/gpu/join_rule.hpp; issue 22 item 6): engines after the first
// join only when the remaining tree is worth it. Driven here as coordinator.cu drives it: a
// closed-share sample every rule.sample_s, the decision every poll (2 ms), on closed-share curves
// of small trees (ta021-ta030 from the optimum take 0.05-1.27 s on one GPU), large ones, and a
// 50x20 run (the share jumps within a second, then stands still: docs/benchmarks.md).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "gpu/join_rule.hpp"
#include "gpu/policy.hpp"

namespace {

using pfsp::gpu::engines_should_join;
using pfsp::gpu::join_rule;
using pfsp::gpu::join_watch;

// The search time at which the rule first fires on a tree whose closed share at t seconds is
// done(t), engine 0's pools fill(t) full (an iteration every 0.5 ms), and which ends at `end`
// seconds; -1 when it ends first.
double first_join(
    const join_rule& r, const std::function<double(double)>& done, double end,
    const std::function<double(double)>& fill = [](double) { return 1.0; }) {
  join_watch watch(r);
  double pools = 0, iterations = 0;
  for (double t = 0; t < end; t += 0.002) {
    pools += 4 * fill(t);
    iterations += 4;
    watch.counters(t, pools, iterations);
    if (watch.ask(t)) watch.share(t, done(t));  // collected between two batches
    if (watch.decide(t)) return t;
  }
  return -1;
}

// A tree whose share closes at a steady rate, ending at `end` seconds.
std::function<double(double)> steady_tree(double end) {
  return [end](double t) { return std::min(1.0, t / end); };
}

TEST(EngineJoin, SmallTreesNeverPayForASecondEngine) {
  const join_rule r{};
  for (double end : {0.05, 0.3, 0.7, 1.0, 1.27, 1.6, 1.9})
    EXPECT_EQ(first_join(r, steady_tree(end), end), -1) << "a tree of " << end << " s";
}

TEST(EngineJoin, ALargeTreeJoinsOnceTheSearchHasLastedMinS) {
  const join_rule r{};
  for (double end : {3.0, 20.0, 3600.0}) {
    const double t = first_join(r, steady_tree(end), end);
    EXPECT_GE(t, r.min_s) << end;
    EXPECT_LT(t, r.min_s + 0.01) << end;  // the forecast says end - t >= worth_s at once
  }
}

TEST(EngineJoin, NearTheEndOfAMediumTreeTheForecastHoldsTheJoinBack) {
  const join_rule r{};
  // 2.5 s: at 1 s the forecast is 1.5 s left, worth it; 1.8 s: 0.8 s left, not; the rule then
  // waits for sure_s, after the end.
  EXPECT_GE(first_join(r, steady_tree(2.5), 2.5), r.min_s);
  EXPECT_EQ(first_join(r, steady_tree(1.8), 1.8), -1);
}

TEST(EngineJoin, A50x20RunJoinsBySureSThoughItsForecastPromisesAnEnd) {
  const join_rule r{};
  // The share jumps to 90 % in 0.2 s and then stands still (ta056 from best known + 1).
  const auto jump = [](double t) { return t < 0.2 ? 4.5 * t : 0.9 + 1e-9 * t; };
  const double t = first_join(r, jump, 30.0);
  EXPECT_GE(t, r.min_s);
  EXPECT_LE(t, r.sure_s + 0.003);
}

TEST(EngineJoin, ALatencyBoundTreeKeepsOneEngine) {
  const join_rule r{};
  // Pools a tenth full for two minutes: a second engine would run as many iterations, each as long.
  EXPECT_EQ(first_join(r, steady_tree(120), 120, [](double) { return 0.1; }), -1);
  // Pools that fill up at 10 s: the engines join once the window has seen them full.
  const double t = first_join(r, steady_tree(120), 120, [](double s) { return s < 10 ? 0.1 : 0.9; });
  EXPECT_GE(t, 10.0);
  EXPECT_LE(t, 10.0 + r.fill_window_s);
}

TEST(EngineJoin, TheRuleItself) {
  const join_rule r{};
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(engines_should_join(r, 0.5, 1.0, inf)) << "before min_s, whatever the forecast";
  EXPECT_FALSE(engines_should_join(r, 1.5, 1.0, -1.0)) << "forecast not known yet";
  EXPECT_FALSE(engines_should_join(r, 1.5, 1.0, 0.5)) << "less than worth_s left";
  EXPECT_TRUE(engines_should_join(r, 1.5, 1.0, 1.0));
  EXPECT_TRUE(engines_should_join(r, 1.5, 1.0, inf)) << "a standing share: no end in sight";
  EXPECT_TRUE(engines_should_join(r, r.sure_s, 1.0, 0.0)) << "after sure_s";
  EXPECT_FALSE(engines_should_join(r, 100.0, 0.2, inf)) << "small pools: a second engine does not help";
  EXPECT_TRUE(engines_should_join(join_rule::at_once(), 0.0, 0.0, -1.0));
}

TEST(EngineJoin, ThePolicyRunsTheRuleTestedHere) {
  const join_rule p = pfsp::gpu::gpu_policy{}.loop.join, r{};
  EXPECT_EQ(p.min_s, r.min_s);
  EXPECT_EQ(p.worth_s, r.worth_s);
  EXPECT_EQ(p.sure_s, r.sure_s);
  EXPECT_EQ(p.sample_s, r.sample_s);
  EXPECT_EQ(p.fill_min, r.fill_min);
  EXPECT_EQ(p.fill_window_s, r.fill_window_s);
}

}  // namespace
