// node_spill (src/gpu/node_spill.hpp), the device loop's stack bottom in host memory: batches
// stack in order, take_top gives the topmost nodes first (bottom first within), take_bottom the
// lowest batch, and the summaries (smallest bound, weight, depths) follow every change.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <vector>

#include "gpu/node_spill.hpp"

namespace pfsp::test {
namespace {

using gpu::device_loop::node_batch;
using gpu::device_loop::node_spill;

// k nodes of 3 jobs, labelled first, first + 1, ...: every job of node i is i, its bound 100 + i,
// its depth i % 3 (limits (d - 1, 3)), its weight 0.5.
node_batch<std::uint8_t> nodes(int first, int k) {
  node_batch<std::uint8_t> b;
  for (int i = first; i < first + k; ++i) {
    for (int j = 0; j < 3; ++j) b.perms.push_back(static_cast<std::uint8_t>(i));
    b.limits.push_back(gpu::pack_limits(i % 3 - 1, 3));
    b.lbs.push_back(100 + i);
    b.w.push_back(0.5f);
  }
  return b;
}

std::vector<int> labels(const node_batch<std::uint8_t>& b) {
  std::vector<int> out;
  for (std::size_t i = 0; i < b.size(); ++i) out.push_back(b.perms[3 * i]);
  return out;
}

TEST(NodeSpill, KeepsTheStackOrder) {
  node_spill<std::uint8_t> s(3);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.min_lb(), INT_MAX);
  s.push(nodes(0, 4));  // 0..3, the lowest
  s.push(nodes(4, 3));  // 4..6 above
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.min_lb(), 100);
  EXPECT_DOUBLE_EQ(s.weight(), 3.5);
  EXPECT_EQ(s.bytes(), 7 * s.node_bytes());
  EXPECT_EQ(labels(s.take_top(2)), (std::vector<int>{5, 6}));
  EXPECT_EQ(labels(s.take_top(5)), (std::vector<int>{4}));  // the topmost batch only
  EXPECT_EQ(s.size(), 4u);
  node_batch<std::uint8_t> all;
  s.append_to(all);
  EXPECT_EQ(labels(all), (std::vector<int>{0, 1, 2, 3}));
  std::vector<unsigned long long> depths(4, 0);
  s.add_depths(depths);
  EXPECT_EQ(depths, (std::vector<unsigned long long>{2, 1, 1, 0}));
  EXPECT_EQ(labels(s.take_top(1)), (std::vector<int>{3}));
  EXPECT_EQ(s.min_lb(), 100);
  EXPECT_EQ(labels(s.take_bottom()), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(s.take_top(3).empty());
  EXPECT_TRUE(s.take_bottom().empty());
}

TEST(NodeSpill, SummariesFollowPartialTakes) {
  node_spill<std::uint8_t> s(3);
  s.push(nodes(5, 2));  // bounds 105, 106
  s.push(nodes(0, 3));  // bounds 100..102 above
  EXPECT_EQ(s.min_lb(), 100);
  (void)s.take_top(3);
  EXPECT_EQ(s.min_lb(), 105);
  EXPECT_DOUBLE_EQ(s.weight(), 1.0);
  node_batch<std::uint8_t> b = nodes(0, 4);
  node_batch<std::uint8_t> top = b.cut_top(3, 3);
  EXPECT_EQ(labels(b), (std::vector<int>{0}));
  EXPECT_EQ(labels(top), (std::vector<int>{1, 2, 3}));
  b.append(top);
  EXPECT_EQ(labels(b), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(b.min_lb(), 100);
}

// The host spill's budget: the user's cap (all engines together) or a share of the available
// memory, never more than is available, split among the engines.
TEST(NodeSpill, HostBudgetIsCappedByTheAvailableMemory) {
  using gpu::device_loop::host_spill_budget;
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_EQ(host_spill_budget(std::nullopt, 0.25, 64 * gib, 1), 16 * gib);
  EXPECT_EQ(host_spill_budget(std::nullopt, 0.25, 64 * gib, 4), 4 * gib);
  EXPECT_EQ(host_spill_budget(std::size_t{0}, 0.25, 64 * gib, 1), 0u);
  EXPECT_EQ(host_spill_budget(2 * gib, 0.25, 64 * gib, 2), gib);
  EXPECT_EQ(host_spill_budget(100 * gib, 0.25, 8 * gib, 1), 8 * gib);  // a cap above what is there
  EXPECT_EQ(host_spill_budget(std::nullopt, 0.25, 0, 1), 0u);          // a host with no memory to spare
}

// Memory in proportion to progress: margin x pop rate x seconds left, at least the floor; no cap
// without a time limit or before a rate is known.
TEST(NodeSpill, UsefulStackFollowsTheTimeLeft) {
  using gpu::device_loop::useful_stack_nodes;
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(useful_stack_nodes(3000, 1.0, 19.0, 4.0, 1000), 228000u);
  EXPECT_EQ(useful_stack_nodes(3000, 1.0, 0.0, 4.0, 1000), 1000u);
  EXPECT_EQ(useful_stack_nodes(3000, 1.0, inf, 4.0, 1000), none);
  EXPECT_EQ(useful_stack_nodes(0, 1.0, 19.0, 4.0, 1000), none);
  EXPECT_EQ(useful_stack_nodes(3000, 0.0, 19.0, 4.0, 1000), none);
  EXPECT_EQ(useful_stack_nodes(3000, 1.0, 19.0, 0.0, 1000), none);
  EXPECT_EQ(useful_stack_nodes(1e18, 1e-3, 1e6, 4.0, 1000), none);
  // The rate over at least the window: 5,000 pops in the first 5 ms count as 5,000 a second.
  EXPECT_EQ(useful_stack_nodes(5000, 0.005, 20.0, 4.0, 1000, 1.0), 400000u);
  EXPECT_EQ(useful_stack_nodes(5000, 0.005, 20.0, 4.0, 1000), 80000000u);
}

}  // namespace
}  // namespace pfsp::test
