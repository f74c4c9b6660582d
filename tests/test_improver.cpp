// The concurrent improver (heuristic/improver.hpp): from a poor seed it finds better schedules
// within a short time, every published value is the makespan of its published schedule, seeds
// better than its best are taken up, and stop() returns promptly.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>

#include "heuristic/improver.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"

namespace pfsp::test {
namespace {

TEST(improver, improves_a_poor_seed_with_exact_values) {
  const instance inst = taillard_instance("ta021");
  std::vector<int> identity(static_cast<std::size_t>(inst.n));
  std::iota(identity.begin(), identity.end(), 0);
  const int start = evaluate_schedule(inst, identity);
  concurrent_improver imp(inst, identity, 2, 7);
  EXPECT_LE(imp.best_value(), start);  // the walkers may already have improved it
  const auto t0 = std::chrono::steady_clock::now();
  while (imp.best_value() >= start && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int v = imp.best_value();
  EXPECT_LT(v, start);
  EXPECT_EQ(evaluate_schedule(inst, imp.best_schedule()), imp.best_value());
  const auto s0 = std::chrono::steady_clock::now();
  imp.stop();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count(), 2.0);
  EXPECT_GT(imp.rounds(), 0u);
}

TEST(improver, a_better_seed_becomes_the_start_of_the_next_run) {
  const instance inst = taillard_instance("ta011");
  std::vector<int> identity(static_cast<std::size_t>(inst.n));
  std::iota(identity.begin(), identity.end(), 0);
  concurrent_improver imp(inst, identity, 1, 3);
  const neh_result h = neh(inst);
  imp.offer_seed(h.schedule, h.makespan);
  const auto t0 = std::chrono::steady_clock::now();
  while (imp.best_value() > h.makespan && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_LE(imp.best_value(), h.makespan);
  EXPECT_EQ(evaluate_schedule(inst, imp.best_schedule()), imp.best_value());
}

}  // namespace
}  // namespace pfsp::test
