// The remaining-tree estimate (search/tree_estimate.hpp): exact on trees whose branching factor
// depends only on the depth, zero with nothing open, and depths without statistics borrow the
// shallower depth's factor.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pfsp::test
