// The device-resident loop's per-parent step (src/gpu/resident_step.hpp), run on the host:
// for random nodes of random instances, every branching rule and bound, and thresholds that
// prune nothing, some or everything, it must choose the expander's direction, keep exactly the
// children the expander pushes, in the expander's push order (its rank), and report the same
// leaves. The kernels call this function unchanged, so the device loop branches as the CPU does.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "bound/bound_data.hpp"
#include "gpu/resident_step.hpp"
#include "search/expander.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

struct pushed {
  int from, to, l1, l2, lb;
};

void check_node(const bound_data& data, bound_kind kind, branching rule, const std::vector<job_t>& perm, int l1, int l2,
                int ub, const std::string& what) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  const int first = l1 + 1, count = l2 - first;
  // The expander: the reference.
  expander ex(data, kind, rule);
  std::vector<pushed> ref_push;
  std::vector<pushed> ref_leaf;
  solve_stats st;
  ex.expand(
      perm.data(), l1, l2, ub,
      [&](const job_t*, int from, int to, int nl1, int nl2, int lb) {
        ref_push.push_back({from, to, nl1, nl2, lb});
      },
      [&](const job_t*, int from, int to, int cmax) {
        ref_leaf.push_back({from, to, 0, 0, cmax});
      },
      st);

  // The same children's bounds in the pool's natural order, then the step.
  const int dirs = (rule == branching::forward || rule == branching::backward) ? 1 : 2;
  std::vector<int> front(m), back(m), remain(m), scratch(m);
  node_parts(b, perm.data(), l1, l2, front.data(), back.data(), remain.data());
  std::vector<unsigned char> flags(n);
  for (int i = 0; i < n; ++i) flags[perm[i]] = (i < first || i >= l2) ? 1 : 0;
  auto is_scheduled = [&](int j) { return flags[j] != 0; };
  std::vector<int> bounds(static_cast<std::size_t>(count * dirs));
  for (int d = 0; d < dirs; ++d) {
    const bool forward = dirs == 2 ? d == 0 : rule != branching::backward;
    for (int c = 0; c < count; ++c)
      bounds[d * count + c] = child_bound(kind, b, front.data(), back.data(), remain.data(), is_scheduled,
                                          perm[first + c], forward, ub, scratch.data());
  }
  std::vector<int> rank(bounds.size(), 7);
  const gpu::parent_step s = gpu::decide_parent(rule, bounds.data(), count, dirs, ub, rank.data());

  const int to = s.forward ? first : l2 - 1;
  ASSERT_EQ(s.survivors, static_cast<int>(ref_push.size())) << what;
  ASSERT_EQ(s.leaves, static_cast<int>(ref_leaf.size())) << what;
  EXPECT_EQ(s.pruned + s.survivors + s.leaves, count) << what;
  const int chosen = dirs == 2 && !s.forward ? count : 0;
  std::vector<pushed> got(static_cast<std::size_t>(s.survivors), pushed{-1, -1, -1, -1, -1});
  for (int i = 0; i < count * dirs; ++i) {
    if (i < chosen || i >= chosen + count) {
      EXPECT_EQ(rank[i], -1) << what << " child " << i << " of the other direction";
      continue;
    }
    const int r = rank[i];
    if (r < 0) continue;
    ASSERT_LT(r, s.survivors) << what;
    ASSERT_EQ(got[r].from, -1) << what << ": rank " << r << " given twice";
    const int c = i - chosen;
    got[r] = {first + c, to, s.forward ? l1 + 1 : l1, s.forward ? l2 : l2 - 1, bounds[i]};
  }
  for (std::size_t k = 0; k < ref_push.size(); ++k) {
    EXPECT_EQ(got[k].from, ref_push[k].from) << what << " push " << k;
    EXPECT_EQ(got[k].to, ref_push[k].to) << what << " push " << k;
    EXPECT_EQ(got[k].l1, ref_push[k].l1) << what << " push " << k;
    EXPECT_EQ(got[k].l2, ref_push[k].l2) << what << " push " << k;
    EXPECT_EQ(got[k].lb, ref_push[k].lb) << what << " push " << k;
  }
  if (!ref_leaf.empty()) {
    EXPECT_EQ(first + s.leaf_position, ref_leaf[0].from) << what;
    EXPECT_EQ(to, ref_leaf[0].to) << what;
    EXPECT_EQ(s.leaf_makespan, ref_leaf[0].lb) << what;
  }
}

TEST(resident_step, matches_the_expander_on_random_nodes) {
  std::mt19937 rng(20261124);
  int checked = 0;
  for (const auto& smp : test::small_samples(3, 11, 2, 6, 2, 900)) {
    const bound_data data(smp.inst);
    const int n = smp.inst.n;
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<job_t> perm(static_cast<std::size_t>(n));
      std::iota(perm.begin(), perm.end(), job_t{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      // A node with at least one unscheduled job: prefix of a jobs, suffix of z jobs.
      const int a = std::uniform_int_distribution<int>(0, n - 1)(rng);
      const int z = std::uniform_int_distribution<int>(0, n - 1 - a)(rng);
      const int l1 = a - 1, l2 = n - z;
      for (bound_kind kind : {bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2})
        for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min}) {
          // Thresholds: none, around the node's bounds (some pruned), below all of them.
          expander ex(data, kind, rule);
          const int root = ex.root_bound(perm.data(), l1, l2, 1 << 30);
          for (int ub : {1 << 30, root + 3, root + 1, root, 1}) {
            check_node(data, kind, rule, perm, l1, l2, ub,
                       smp.what + " node l1=" + std::to_string(l1) + " l2=" + std::to_string(l2) + " " +
                           std::string(to_string(kind)) + " " + std::string(to_string(rule)) +
                           " ub=" + std::to_string(ub));
            ++checked;
          }
        }
    }
  }
  EXPECT_GT(checked, 10000);
}

// The tallied step (a thread that sees each child's bound once) decides as the step over the
// stored bounds: random bounds with many ties, every rule, one and two directions, thresholds
// that keep all, some or none.
TEST(resident_step, tallies_decide_as_the_stored_bounds) {
  std::mt19937 rng(20261128);
  int checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int count = std::uniform_int_distribution<int>(1, 12)(rng);
    const int spread = std::uniform_int_distribution<int>(1, 6)(rng);  // small: ties on the minimum
    const int dirs = trial % 3 == 0 ? 1 : 2;
    std::vector<int> bounds(static_cast<std::size_t>(count * dirs));
    for (int& b : bounds) b = 100 + std::uniform_int_distribution<int>(0, spread)(rng);
    const int ub = 100 + std::uniform_int_distribution<int>(-1, spread + 1)(rng);
    for (branching rule : {branching::forward, branching::backward, branching::min_branch, branching::min_min}) {
      gpu::side_tally f, b;
      for (int c = 0; c < count; ++c) {
        f.add(bounds[static_cast<std::size_t>(c)], ub);
        if (dirs == 2) b.add(bounds[static_cast<std::size_t>(count + c)], ub);
      }
      const gpu::parent_step want = gpu::decide_parent_counts(rule, bounds.data(), count, dirs, ub);
      const gpu::parent_step got = gpu::decide_parent_tallied(rule, f, b, count, dirs);
      const std::string what = "trial " + std::to_string(trial) + " " + std::string(to_string(rule));
      ASSERT_EQ(got.forward, want.forward) << what;
      ASSERT_EQ(got.pruned, want.pruned) << what;
      ASSERT_EQ(got.leaves, want.leaves) << what;
      ASSERT_EQ(got.survivors, want.survivors) << what;
      if (want.leaves) {
        ASSERT_EQ(got.leaf_makespan, want.leaf_makespan) << what;
        ASSERT_EQ(got.leaf_position, want.leaf_position) << what;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 80000);
}

TEST(resident_step, ranks_break_ties_by_position_and_skip_pruned_children) {
  // Bounds by position, one direction: 5 5 9 3 5 with ub 9 -> kept 5 5 3 5 (9 pruned);
  // largest first, ties by position: positions 0, 1, 4 (bound 5), then 3 (bound 3).
  const int bounds[] = {5, 5, 9, 3, 5};
  int rank[5];
  const gpu::parent_step s = gpu::decide_parent(branching::forward, bounds, 5, 1, 9, rank);
  EXPECT_TRUE(s.forward);
  EXPECT_EQ(s.survivors, 4);
  EXPECT_EQ(s.pruned, 1);
  EXPECT_EQ(s.leaves, 0);
  const int want[] = {0, 1, -1, 3, 2};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(rank[i], want[i]) << "position " << i;
}

}  // namespace
}  // namespace pfsp
