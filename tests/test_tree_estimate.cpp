// The remaining-tree estimate (search/tree_estimate.hpp): exact on trees whose branching factor
// depends only on the depth, zero with nothing open, and depths without statistics borrow the
// shallower depth's factor.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "search/tree_estimate.hpp"

namespace pfsp::test {
namespace {

TEST(TreeEstimate, NothingOpenIsNothingLeft) {
  depth_profile p(5);
  p.popped = {1, 3, 6, 0, 0, 0};
  p.kept = {3, 6, 0, 0, 0, 0};
  EXPECT_EQ(estimate_remaining(p), 0.0);
  EXPECT_EQ(estimate_remaining(depth_profile()), 0.0);
}

// A complete ternary tree of depth 3 (depth 3 = leaves): after the root and one depth-1 node
// were popped, 2 depth-1 and 3 depth-2 nodes are open. Each open depth-1 node has 1 + 3 + 9 = 13
// nodes below and including it, each depth-2 node 1 + 3 = 4: 2 * 13 + 3 * 4 = 38.
TEST(TreeEstimate, ExactOnAUniformTree) {
  depth_profile p(3);
  p.popped = {1, 1, 0, 0};
  p.kept = {3, 3, 0, 0};
  p.open = {0, 2, 3, 0};
  // Depth 2 was never popped: it borrows depth 1's factor 3, which is right for this tree.
  EXPECT_DOUBLE_EQ(estimate_remaining(p), 38.0);
  p.popped[2] = 3;
  p.kept[2] = 9;
  p.open = {0, 2, 0, 9};  // the three depth-2 nodes were popped: 9 leaves open
  EXPECT_DOUBLE_EQ(estimate_remaining(p), 2 * 13.0 + 9 * 1.0);
}

// Observed factors below 1 (pruning) shrink the estimate: S(1) = 1 + 0.5 (1 + 0.5) = 1.75.
TEST(TreeEstimate, PruningShrinksTheSubtrees) {
  depth_profile p(3);
  p.popped = {1, 4, 4, 0};
  p.kept = {4, 2, 2, 0};
  p.open = {0, 4, 0, 0};
  EXPECT_DOUBLE_EQ(estimate_remaining(p), 4 * 1.75);
}

// Tree weight: nothing closed says nothing (infinity), everything closed leaves nothing.
TEST(TreeWeight, Limits) {
  EXPECT_EQ(tree_weight_remaining(10, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(tree_weight_remaining(10, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(tree_weight_remaining(30, 0.25), 90.0);
}

// A depth-first search over a complete b-ary tree with the weights the device loop carries (the
// root 1, split evenly among a node's children): after each of the root's subtrees closes, the
// estimate is within a few per cent of the nodes really left to branch.
TEST(TreeWeight, CloseOnAUniformTree) {
  const int b = 3, depth = 7;  // internal nodes: depths 0 .. depth-1
  struct item {
    int d;
    double w;
  };
  std::vector<item> stack{{0, 1.0}};
  std::uint64_t branched = 0, total_internal = 0;
  for (int d = 0, k = 1; d < depth; ++d, k *= b) total_internal += static_cast<std::uint64_t>(k);
  double closed = 0;
  int root_children_done = 0;
  int open_root_children = 0;
  while (!stack.empty()) {
    const item it = stack.back();
    stack.pop_back();
    if (it.d == 1) {
      // A root child popped: all earlier root children's subtrees are closed now.
      if (open_root_children > 0 && branched > 1) {
        const double done = closed;
        const double est = tree_weight_remaining(branched, done);
        const double actual = static_cast<double>(total_internal - branched);
        EXPECT_NEAR(est / actual, 1.0, 0.05) << "after " << root_children_done << " root subtrees";
      }
      ++root_children_done;
      ++open_root_children;
    }
    if (it.d == depth) {
      closed += it.w;  // a leaf: its weight leaves the tree
      continue;
    }
    ++branched;
    for (int c = 0; c < b; ++c) stack.push_back({it.d + 1, it.w / b});
  }
  EXPECT_EQ(branched, total_internal);
  EXPECT_NEAR(closed, 1.0, 1e-12);
  EXPECT_EQ(root_children_done, b);
}

// The forecast: a share closing at a steady rate gives the exact time left; one standing still
// gives infinity; too short a history gives -1.
TEST(TreeWeight, ForecastFromTheRecentRate) {
  struct snap {
    double elapsed, tree_done;
  };
  std::vector<snap> h;
  for (int t = 0; t <= 20; ++t) h.push_back({static_cast<double>(t), 0.01 * t});
  EXPECT_NEAR(forecast_seconds(h, 20.0, 0.20), 80.0, 1e-9);
  std::vector<snap> still{{10, 0.5}, {11, 0.5}, {12, 0.5}};
  EXPECT_EQ(forecast_seconds(still, 12.0, 0.5), std::numeric_limits<double>::infinity());
  EXPECT_EQ(forecast_seconds(std::vector<snap>{{1.0, 0.1}}, 1.2, 0.2), -1.0);
  EXPECT_EQ(forecast_seconds(h, 20.0, 1.0), 0.0);
}

}  // namespace
}  // namespace pfsp::test
