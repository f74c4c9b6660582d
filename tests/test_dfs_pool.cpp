// The depth-first stack (search/node_pool.hpp's dfs_pool) keeps a parent's permutation once and
// its children as swaps: it must pop, steal and snapshot exactly what a stack of whole nodes
// would, hold memory in n^2 rather than n^3 when nothing is pruned, and the cpu-mt workers must
// stop cleanly (not abort) when one of them throws, as std::bad_alloc does when memory runs out.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <new>
#include <numeric>
#include <random>
#include <vector>

#include "bound/bound_data.hpp"
#include "cpu/parallel.hpp"
#include "problem/taillard.hpp"
#include "search/checkpoint.hpp"
#include "search/control.hpp"
#include "search/incumbent_feed.hpp"
#include "search/node_pool.hpp"
#include "search/types.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

// The reference: a stack of whole nodes.
struct whole_node {
  std::vector<job_t> perm;
  node_meta meta;
};

void expect_same(const dfs_pool& pool, const std::vector<whole_node>& ref, int n) {
  ASSERT_EQ(pool.size(), ref.size());
  std::vector<job_t> p(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < ref.size(); ++i) {
    pool.copy_perm(i, p.data());
    EXPECT_EQ(p, ref[i].perm) << "node " << i;
    EXPECT_EQ(pool.meta(i).lb, ref[i].meta.lb) << "node " << i;
    EXPECT_EQ(pool.meta(i).limit1, ref[i].meta.limit1) << "node " << i;
  }
  int least = INT_MAX;
  for (const auto& w : ref) least = std::min(least, w.meta.lb);
  EXPECT_EQ(pool.min_lb(), least);
}

// Random pushes of children (of the node just popped, of another permutation), whole pushes, pops
// and steals between two pools, each mirrored on two stacks of whole nodes.
TEST(dfs_pool, behaves_as_a_stack_of_whole_nodes) {
  const int n = 9;
  std::mt19937 rng(4242);  // 32-bit draws, taken as unsigned below
  auto draw = [&rng] { return static_cast<unsigned>(rng()); };
  dfs_pool a(n), b(n);
  std::vector<whole_node> ra, rb;
  std::vector<job_t> parent(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), job_t{0});
  int next_lb = 0;
  for (int step = 0; step < 4000; ++step) {
    const bool on_a = draw() % 3 != 0;
    dfs_pool& pool = on_a ? a : b;
    std::vector<whole_node>& ref = on_a ? ra : rb;
    const unsigned what = draw() % 10;
    if (what < 4) {  // the children of `parent`, some swaps the identity (a == b)
      const int kids = static_cast<int>(draw() % 5);
      for (int k = 0; k < kids; ++k) {
        const int x = static_cast<int>(draw() % n), y = static_cast<int>(draw() % n);
        const node_meta m{x, y, next_lb++ % 97};
        pool.push(parent.data(), x, y, m.limit1, m.limit2, m.lb);
        whole_node w{parent, m};
        std::swap(w.perm[static_cast<std::size_t>(x)], w.perm[static_cast<std::size_t>(y)]);
        ref.push_back(w);
      }
    } else if (what == 4) {  // a whole node: a new permutation, or the last parent with a swap or two
      std::vector<job_t> whole = parent;
      const unsigned how = draw() % 4;
      if (how == 0) std::shuffle(whole.begin(), whole.end(), rng);
      for (unsigned s = 0; s < how; ++s) std::swap(whole[draw() % n], whole[draw() % n]);
      const node_meta m{-1, n, next_lb++ % 97};
      pool.push_root(whole.data(), m.limit1, m.limit2, m.lb);
      ref.push_back({whole, m});
    } else if (what < 8) {
      if (ref.empty()) continue;
      const node_meta m = pool.pop(out.data());
      EXPECT_EQ(out, ref.back().perm);
      EXPECT_EQ(m.lb, ref.back().meta.lb);
      ref.pop_back();
      parent = out;  // its children next, as a search does
    } else {
      dfs_pool& to = on_a ? b : a;
      std::vector<whole_node>& rto = on_a ? rb : ra;
      const std::size_t count = ref.empty() ? 0 : draw() % (ref.size() + 1);
      pool.steal_bottom(to, count);
      rto.insert(rto.end(), ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(count));
      ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(count));
    }
    if (step % 97 == 0) {
      expect_same(a, ra, n);
      expect_same(b, rb, n);
    }
  }
  expect_same(a, ra, n);
  expect_same(b, rb, n);
  while (!ra.empty()) {
    a.pop(out.data());
    EXPECT_EQ(out, ra.back().perm);
    ra.pop_back();
  }
  EXPECT_TRUE(a.empty());
}

// A depth-first dive that prunes nothing, 400 jobs deep: about n^2 / 2 = 80,000 open nodes, which
// as whole permutations of 800 bytes would take 64 MB. Frames and entries: under 4 MB.
TEST(dfs_pool, a_dive_that_prunes_nothing_holds_n_squared_bytes) {
  const int n = 400;
  dfs_pool pool(n);
  std::vector<job_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), job_t{0});
  pool.push_root(perm.data(), -1, n, 0);
  for (int depth = 0; depth < n; ++depth) {
    pool.pop(perm.data());
    for (int c = n - 1; c >= depth; --c) pool.push(perm.data(), depth, c, depth, n, 0);
  }
  EXPECT_GT(pool.size(), std::size_t{79000});
  EXPECT_LT(pool.bytes(), std::size_t{4} << 20) << pool.size() << " nodes";
  search_state s;  // a checkpoint still writes every node whole
  s.n = n;
  s.add_stack(pool);
  EXPECT_EQ(s.open(), pool.size());
  std::vector<job_t> p(static_cast<std::size_t>(n));
  pool.copy_perm(pool.size() - 1, p.data());
  EXPECT_TRUE(std::equal(p.begin(), p.end(), s.perm(pool.size() - 1)));
  // ... and comes back node for node (whole: a checkpoint does not say which nodes are siblings,
  // and the checkpoint itself holds n bytes a node, so the restore is not where memory is saved).
  dfs_pool back(n);
  restore_stacks(s, {&back});
  ASSERT_EQ(back.size(), pool.size());
  std::vector<job_t> q(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < back.size(); i += 997) {
    pool.copy_perm(i, p.data());
    back.copy_perm(i, q.data());
    EXPECT_EQ(p, q) << "node " << i;
    EXPECT_EQ(back.meta(i).lb, pool.meta(i).lb);
  }
}

// A feed whose offer_seed throws std::bad_alloc, as an allocation does when memory runs out, on
// whichever worker finds the first leaf.
class failing_feed final : public incumbent_feed {
 public:
  void offer_seed(const std::vector<int>&, int) override {
    offered_.fetch_add(1);
    throw std::bad_alloc();
  }
  int best_value() const override { return INT_MAX; }
  std::vector<int> best_schedule() const override { return {}; }
  int offered() const { return offered_.load(); }

 private:
  std::atomic<int> offered_{0};
};

// Before, an exception on a worker thread ended the process (std::terminate); now the others stop
// and solve_parallel rethrows it, for both cpu-mt modes and any thread count.
TEST(dfs_pool, a_worker_that_throws_stops_the_search_and_the_exception_comes_out) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  for (bool shared : {false, true}) {
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(std::string(shared ? "shared queue" : "work stealing") + ", " + std::to_string(threads) +
                   " threads");
      failing_feed feed;
      solve_options o;
      o.threads = threads;
      o.shared_queue = shared;
      o.feed = &feed;
      EXPECT_THROW(solve_parallel(data, o, incumbent()), std::bad_alloc);
      EXPECT_GE(feed.offered(), 1);
    }
  }
}

}  // namespace
}  // namespace pfsp
