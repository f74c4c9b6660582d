// Exactness of the lower bounds, against brute force on small instances.
//
// For every node of the whole search tree (every ordered prefix with every ordered suffix over
// disjoint jobs: forward-only, backward-only and mixed nodes, all (limit1, limit2) splits; n <= 7,
// and the forward-only and backward-only trees for n = 8), the best completion is found by brute
// force (memoised) and every bound kind (lb1, lb2, lb1_lb2) must be
//   - valid:        bound <= best completion makespan of the node,
//   - exact:        bound == makespan at a leaf (no unscheduled job),
//   - ordered:      LB2 >= LB1 (and the LB1->LB2 chain with ub = INT_MAX equals LB2),
//   - consistent:   with a finite ub, the early-exit value v satisfies (v >= ub) == (full >= ub),
//                   and v == full when v < ub,
//   - incremental:  child_bound / lb1_forward_child / lb1_backward_child equal node_bound computed
//                   from scratch on the materialised child.
// Plus completion times against the textbook recurrence and Johnson orders against brute force,
// and the compact tables (8-bit times, 8/16-bit Johnson orders, 16-bit lags) against the int ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/compact_tables.hpp"
#include "bound/lb1.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "problem/makespan.hpp"
#include "search/types.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

constexpr bound_kind kinds[] = {bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2};
const char* kind_name(bound_kind k) {
  switch (k) {
    case bound_kind::lb1:
      return "lb1";
    case bound_kind::lb2:
      return "lb2";
    case bound_kind::lb1_lb2:
      return "lb1_lb2";
  }
  return "?";
}

// Counts violations per check and keeps the first few, with everything needed to replay them.
class failure_log {
 public:
  void add(const std::string& check, const std::string& detail) {
    auto& e = entries_[check];
    if (e.count++ < 4) e.examples += "\n    " + detail;
  }
  int count(const std::string& check) const {
    auto it = entries_.find(check);
    return it == entries_.end() ? 0 : it->second.count;
  }
  std::string examples(const std::string& check) const {
    auto it = entries_.find(check);
    return it == entries_.end() ? "" : it->second.examples;
  }
  std::uint64_t checked = 0;

 private:
  struct entry {
    int count = 0;
    std::string examples;
  };
  std::map<std::string, entry> entries_;
};

std::string node_text(const std::vector<job_t>& perm, int limit1, int limit2) {
  std::ostringstream s;
  s << "prefix [";
  for (int i = 0; i <= limit1; ++i) s << (i ? " " : "") << perm[i];
  s << "] unscheduled {";
  for (int i = limit1 + 1; i < limit2; ++i) s << (i > limit1 + 1 ? " " : "") << perm[i];
  s << "} suffix [";
  for (int i = limit2; i < static_cast<int>(perm.size()); ++i) s << (i > limit2 ? " " : "") << perm[i];
  s << "] (limit1 " << limit1 << ", limit2 " << limit2 << ")";
  return s.str();
}

// Every node of the tree of one instance, with its best completion (brute force, memoised).
class tree_checker {
 public:
  tree_checker(const instance& inst, std::string what, failure_log& log)
      : inst_(inst), what_(std::move(what)), data_(inst), b_(data_.view()), n_(inst.n), m_(inst.m), log_(log) {}

  enum class scope {
    mixed,          // every (prefix, suffix) pair of disjoint ordered job sets
    forward_only,   // every prefix, empty suffix
    backward_only,  // empty prefix, every suffix
  };

  void run(scope sc) {
    std::vector<job_t> prefix, suffix;
    std::vector<char> used(n_, 0);
    if (sc == scope::forward_only) {
      each_prefix(prefix, suffix, used, true);
      return;
    }
    // Suffixes grow at their front (backward branching); for each, every prefix (or none).
    std::function<void()> each_suffix = [&]() {
      each_prefix(prefix, suffix, used, sc == scope::mixed);
      for (int j = 0; j < n_; ++j) {
        if (used[j]) continue;
        used[j] = 1;
        suffix.insert(suffix.begin(), static_cast<job_t>(j));
        each_suffix();
        suffix.erase(suffix.begin());
        used[j] = 0;
      }
    };
    each_suffix();
  }

 private:
  void each_prefix(std::vector<job_t>& prefix, const std::vector<job_t>& suffix, std::vector<char>& used, bool grow) {
    check_node(prefix, suffix, used);
    if (!grow) return;
    for (int j = 0; j < n_; ++j) {
      if (used[j]) continue;
      used[j] = 1;
      prefix.push_back(static_cast<job_t>(j));
      each_prefix(prefix, suffix, used, true);
      prefix.pop_back();
      used[j] = 0;
    }
  }

  // The node's permutation: prefix, then the unscheduled jobs (order rotated from node to node,
  // since no bound may depend on it), then the suffix.
  std::vector<job_t> layout(const std::vector<job_t>& prefix, const std::vector<job_t>& suffix,
                            const std::vector<char>& used) {
    std::vector<job_t> perm(prefix);
    std::vector<job_t> rest;
    for (int j = 0; j < n_; ++j)
      if (!used[j]) rest.push_back(static_cast<job_t>(j));
    if (!rest.empty())
      std::rotate(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(rotation_++ % rest.size()), rest.end());
    perm.insert(perm.end(), rest.begin(), rest.end());
    perm.insert(perm.end(), suffix.begin(), suffix.end());
    return perm;
  }

  std::uint64_t key(const std::vector<job_t>& perm, int limit1, int limit2) const {
    std::uint64_t k = 0;
    for (int i = 0; i <= limit1; ++i) k |= static_cast<std::uint64_t>(i + 1) << (5 * perm[i]);
    for (int i = limit2; i < n_; ++i) k |= static_cast<std::uint64_t>(n_ + 1 + (i - limit2)) << (5 * perm[i]);
    return k;
  }

  // Best makespan over all orders of the unscheduled jobs. O((n - depth)! n m) once per node.
  int best_completion(const std::vector<job_t>& perm, int limit1, int limit2) {
    const std::uint64_t k = key(perm, limit1, limit2);
    auto it = best_.find(k);
    if (it != best_.end()) return it->second;
    int best;
    if (limit1 + 1 == limit2) {
      best = test::naive_makespan(inst_, perm);
    } else {
      best = INT_MAX;
      std::vector<job_t> child(perm);
      for (int i = limit1 + 1; i < limit2; ++i) {
        std::swap(child[limit1 + 1], child[i]);
        best = std::min(best, best_completion(child, limit1 + 1, limit2));
        std::swap(child[limit1 + 1], child[i]);
      }
    }
    best_.emplace(k, best);
    return best;
  }

  struct parts {
    std::vector<int> front, back, remain;
    std::vector<char> scheduled;
  };

  parts make_parts(const std::vector<job_t>& perm, int limit1, int limit2) const {
    parts p{std::vector<int>(m_), std::vector<int>(m_), std::vector<int>(m_), std::vector<char>(n_, 0)};
    node_parts(b_, perm.data(), limit1, limit2, p.front.data(), p.back.data(), p.remain.data());
    for (int i = 0; i < n_; ++i) p.scheduled[perm[i]] = (i <= limit1 || i >= limit2) ? 1 : 0;
    return p;
  }

  int scratch_bound(bound_kind kind, const parts& p, int ub) const {
    const char* f = p.scheduled.data();
    return node_bound(
        kind, b_, p.front.data(), p.back.data(), p.remain.data(), [f](int j) { return f[j] != 0; }, ub);
  }

  std::string where(const std::vector<job_t>& perm, int limit1, int limit2) const {
    return what_ + ", " + node_text(perm, limit1, limit2);
  }

  // Early-exit values against the full value, for a few thresholds around it.
  void check_early_exit(const std::string& check, const std::string& at, int full, int best,
                        const std::function<int(int)>& with_ub) {
    for (int ub : {1, full - 1, full, full + 1, best, best + 1, full / 2 + 1}) {
      if (ub <= 0) continue;
      const int v = with_ub(ub);
      ++log_.checked;
      if ((v >= ub) != (full >= ub) || (v < ub && v != full))
        log_.add(check, at + ": ub " + std::to_string(ub) + " gives " + std::to_string(v) + ", full value " +
                            std::to_string(full));
    }
  }

  void check_node(const std::vector<job_t>& prefix, const std::vector<job_t>& suffix, const std::vector<char>& used) {
    const std::vector<job_t> perm = layout(prefix, suffix, used);
    const int limit1 = static_cast<int>(prefix.size()) - 1;
    const int limit2 = n_ - static_cast<int>(suffix.size());
    const bool leaf = limit1 + 1 == limit2;
    const int best = best_completion(perm, limit1, limit2);
    const parts p = make_parts(perm, limit1, limit2);
    const std::string at = where(perm, limit1, limit2);

    int value[3];
    for (bound_kind kind : kinds) {
      const int v = scratch_bound(kind, p, INT_MAX);
      value[static_cast<int>(kind)] = v;
      const std::string ka = std::string(kind_name(kind)) + " at " + at;
      ++log_.checked;
      if (v > best)
        log_.add("valid", ka + ": bound " + std::to_string(v) + " > best completion " + std::to_string(best));
      if (leaf && v != best)
        log_.add("leaf", ka + ": bound " + std::to_string(v) + " != makespan " + std::to_string(best));
      check_early_exit("early_exit_node", ka, v, best, [&](int ub) { return scratch_bound(kind, p, ub); });
    }
    const int v1 = value[0], v2 = value[1], v12 = value[2];
    if (v2 < v1) log_.add("lb2_ge_lb1", at + ": lb2 " + std::to_string(v2) + " < lb1 " + std::to_string(v1));
    if (v12 != v2) log_.add("chain_eq_lb2", at + ": lb1_lb2 " + std::to_string(v12) + " != lb2 " + std::to_string(v2));

    // Children in both directions, incrementally and from scratch.
    std::vector<int> scratch(m_), child_back(m_);
    const char* f = p.scheduled.data();
    auto sched = [f](int j) { return f[j] != 0; };
    for (int c = limit1 + 1; c < limit2; ++c) {
      const int job = perm[c];
      for (bool forward : {true, false}) {
        std::vector<job_t> child(perm);
        const int to = forward ? limit1 + 1 : limit2 - 1;
        std::swap(child[c], child[to]);
        const int cl1 = forward ? limit1 + 1 : limit1, cl2 = forward ? limit2 : limit2 - 1;
        const parts cp = make_parts(child, cl1, cl2);
        const int child_best = best_completion(child, cl1, cl2);
        // The other side of the parent is empty: its back (front) comes from the heads/tails
        // table rather than from scheduled jobs (the case where incremental updates go wrong).
        const bool other_side_empty = forward ? (limit2 == n_) : (limit1 == -1);
        const std::string cat = other_side_empty ? "_other_side_empty" : "_other_side_scheduled";
        const std::string cat_at = std::string(forward ? "forward" : "backward") + " child, job " +
                                   std::to_string(job) + ", of " + at + " (child: " + node_text(child, cl1, cl2) + ")";
        for (bound_kind kind : kinds) {
          const int full = scratch_bound(kind, cp, INT_MAX);
          const int inc = child_bound(kind, b_, p.front.data(), p.back.data(), p.remain.data(), sched, job, forward,
                                      INT_MAX, scratch.data());
          const std::string ka = std::string(kind_name(kind)) + ", " + cat_at;
          ++log_.checked;
          if (inc > child_best)
            log_.add("child_valid",
                     ka + ": incremental " + std::to_string(inc) + " > best completion " + std::to_string(child_best));
          if (inc != full)
            log_.add("child_equal" + cat,
                     ka + ": incremental " + std::to_string(inc) + ", from scratch " + std::to_string(full));
          check_early_exit("early_exit_child", ka, inc, child_best, [&](int ub) {
            return child_bound(kind, b_, p.front.data(), p.back.data(), p.remain.data(), sched, job, forward, ub,
                               scratch.data());
          });
        }
        // The LB1 building blocks on their own.
        const int full1 = scratch_bound(bound_kind::lb1, cp, INT_MAX);
        int inc1;
        if (forward) {
          inc1 = lb1_forward_child(b_.inst, p.front.data(), p.back.data(), p.remain.data(), job);
        } else {
          inc1 = lb1_backward_child(b_.inst, p.front.data(), p.back.data(), p.remain.data(), job, child_back.data());
          if (child_back != cp.back)
            log_.add("back_after",
                     cat_at + ": child back [" + to_text(child_back) + "], from scratch [" + to_text(cp.back) + "]");
        }
        ++log_.checked;
        if (inc1 != full1)
          log_.add(std::string(forward ? "lb1_forward_child" : "lb1_backward_child") + "_equal" + cat,
                   cat_at + ": incremental " + std::to_string(inc1) + ", from scratch " + std::to_string(full1));
        // The chain's second pass takes the known LB1 (child_bound_known_lb1): child_bound's LB2
        // value at every ub, early exits included.
        for (const int ub : {INT_MAX, inc1 + 1, (inc1 + child_best) / 2 + 1, child_best}) {
          const int known =
              child_bound_known_lb1(b_, p.front.data(), p.back.data(), sched, job, forward, ub, scratch.data(), inc1);
          const int whole = child_bound(bound_kind::lb2, b_, p.front.data(), p.back.data(), p.remain.data(), sched, job,
                                        forward, ub, scratch.data());
          ++log_.checked;
          if (known != whole)
            log_.add("known_lb1", cat_at + ", ub " + std::to_string(ub) + ": from the known LB1 " +
                                      std::to_string(known) + ", child_bound " + std::to_string(whole));
        }
        if (forward) {
          front_after(b_.inst, p.front.data(), job, scratch.data());
          if (scratch != cp.front)
            log_.add("front_after",
                     cat_at + ": child front [" + to_text(scratch) + "], from scratch [" + to_text(cp.front) + "]");
        }
      }
    }
  }

  static std::string to_text(const std::vector<int>& v) { return test::to_text(v); }

  const instance& inst_;
  std::string what_;
  bound_data data_;
  bound_view b_;
  int n_, m_;
  failure_log& log_;
  std::unordered_map<std::uint64_t, int> best_;
  std::size_t rotation_ = 0;
};

// Checks that hold at every node, and the names they are logged under.
const char* const exactness_checks[] = {
    "valid",         // bound <= best completion
    "leaf",          // bound == makespan at leaves
    "lb2_ge_lb1",    //
    "chain_eq_lb2",  // lb1_lb2 with ub = INT_MAX equals lb2
    "early_exit_node",
    "early_exit_child",
    "child_valid",  // incremental child bound <= child's best completion
    "front_after",
    "back_after",
    "known_lb1",  // child_bound_known_lb1 == child_bound(lb2) at every ub
    // Children of nodes whose other side (the suffix for a forward child, the prefix for a
    // backward child) already holds jobs.
    "child_equal_other_side_scheduled",
    "lb1_forward_child_equal_other_side_scheduled",
    "lb1_backward_child_equal_other_side_scheduled",
};
// Children of nodes whose other side is empty: the parent's back (front) then comes from the
// heads/tails table, not from scheduled jobs, and must not depend on the job being placed.
const char* const empty_side_checks[] = {"child_equal_other_side_empty", "lb1_forward_child_equal_other_side_empty",
                                         "lb1_backward_child_equal_other_side_empty"};

template <std::size_t N>
void expect_none(const failure_log& log, const char* const (&checks)[N]) {
  for (const char* check : checks)
    EXPECT_EQ(log.count(check), 0) << check << ": " << log.count(check) << " violations among " << log.checked
                                   << " checks; first ones:" << log.examples(check);
}

failure_log check_trees(const std::vector<test::sample>& samples, tree_checker::scope sc) {
  failure_log log;
  for (const auto& s : samples) tree_checker(s.inst, s.what, log).run(sc);
  return log;
}

std::vector<test::sample> extreme_samples(int n) {
  std::vector<test::sample> out;
  for (std::uint32_t seed : {7u, 8u}) {
    out.push_back(
        {test::random_instance(n, 4, seed, 1, 1000000),
         "random_instance(" + std::to_string(n) + ", 4, seed " + std::to_string(seed) + ", times 1..1000000)"});
    out.push_back({test::random_instance(n, 6, seed, 1, 2),
                   "random_instance(" + std::to_string(n) + ", 6, seed " + std::to_string(seed) + ", times 1..2)"});
  }
  return out;
}

// Every node of every tree (forward-only, backward-only and mixed), n <= 7. Taillard's generator
// and narrow (1..3, 50..60), wide (1..1000, 1..100000) and extreme (1..2, 1..10^6) time ranges.
TEST(bounds_tree, all_nodes_n1_to_5) {
  const failure_log log = check_trees(test::small_samples(1, 5, 1, 5, 2, 1000), tree_checker::scope::mixed);
  expect_none(log, exactness_checks);
  EXPECT_GT(log.checked, 100000u);
}
TEST(bounds_tree, all_nodes_n6) {
  const failure_log log = check_trees(test::small_samples(6, 6, 1, 6, 3, 2000), tree_checker::scope::mixed);
  expect_none(log, exactness_checks);
}
TEST(bounds_tree, all_nodes_n7_taillard) {
  const failure_log log = check_trees(test::small_samples(7, 7, 2, 5, 1, 3000), tree_checker::scope::mixed);
  expect_none(log, exactness_checks);
}
TEST(bounds_tree, all_nodes_n7_extreme_times) {
  auto samples = extreme_samples(7);
  samples.resize(3);
  const failure_log log = check_trees(samples, tree_checker::scope::mixed);
  expect_none(log, exactness_checks);
}
// n = 8: the forward-only and backward-only trees (the mixed one is 8x larger).
TEST(bounds_tree, forward_and_backward_trees_n8) {
  std::vector<test::sample> samples = {{generate_taillard(8, 4, 8008), "generate_taillard(8, 4, 8008)"}};
  failure_log log = check_trees(samples, tree_checker::scope::forward_only);
  expect_none(log, exactness_checks);
  samples = {{test::random_instance(8, 3, 8009, 1, 1000), "random_instance(8, 3, seed 8009, times 1..1000)"}};
  log = check_trees(samples, tree_checker::scope::backward_only);
  expect_none(log, exactness_checks);
}

// The incremental child bound must equal the bound of the materialised child also when the
// parent's other side is empty (forward child of a node without suffix, backward child of a node
// without prefix), so that every solver path (incremental on the CPU, from scratch on a pool)
// prunes the same nodes. Forward-only and backward-only trees, n <= 6.
TEST(bounds_incremental, child_bounds_equal_scratch_when_the_other_side_is_empty) {
  const auto samples = test::small_samples(2, 6, 1, 5, 2, 9000);
  const failure_log fwd = check_trees(samples, tree_checker::scope::forward_only);
  expect_none(fwd, empty_side_checks);
  const failure_log bwd = check_trees(samples, tree_checker::scope::backward_only);
  expect_none(bwd, empty_side_checks);
}

// ---------------------------------------------------------------------------------------------

// lb2_pairs has two inner-loop forms on the host (the skip of scheduled jobs below 1/8 of the
// jobs scheduled, masks above); both must give the same value, early exits included, at every
// depth and split of prefix and suffix.
TEST(bounds_lb2, skip_and_branch_free_forms_agree_at_every_depth) {
  for (const auto& [n, m, seed] :
       std::vector<std::tuple<int, int, std::uint32_t>>{{20, 20, 1}, {50, 10, 2}, {200, 20, 3}}) {
    const instance inst = test::random_instance(n, m, seed, 1, 99);
    const bound_data data(inst);
    const bound_view b = data.view();
    std::mt19937 rng(seed);
    std::vector<int> perm(static_cast<std::size_t>(n)), front(m), back(m), remain(m);
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<unsigned char> flags(static_cast<std::size_t>(n));
    int compared = 0;
    for (int depth = 0; depth < n; ++depth)
      for (int rep = 0; rep < 4; ++rep) {
        std::shuffle(perm.begin(), perm.end(), rng);
        const int in_prefix = static_cast<int>(rng() % static_cast<unsigned>(depth + 1));
        const int limit1 = in_prefix - 1, limit2 = n - (depth - in_prefix);
        node_parts(b, perm.data(), limit1, limit2, front.data(), back.data(), remain.data());
        for (int i = 0; i < n; ++i)
          flags[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = (i <= limit1 || i >= limit2) ? 1 : 0;
        auto sched = [&](int j) { return flags[static_cast<std::size_t>(j)] != 0; };
        const int full = detail::lb2_pairs_form<true>(b, front.data(), back.data(), sched, INT_MAX);
        for (int ub : {INT_MAX, full, full - 1, full / 2}) {
          const int masks = detail::lb2_pairs_form<false>(b, front.data(), back.data(), sched, ub);
          const int skip = detail::lb2_pairs_form<true>(b, front.data(), back.data(), sched, ub);
          ASSERT_EQ(masks, skip) << n << "x" << m << " depth " << depth << " prefix " << in_prefix << " ub " << ub;
          ASSERT_EQ(lb2_pairs(b, front.data(), back.data(), sched, ub), skip) << "the dispatching lb2_pairs";
          ++compared;
        }
      }
    EXPECT_EQ(compared, n * 4 * 4);
  }
}

TEST(makespan, completion_times_match_the_textbook_recurrence) {
  std::mt19937 rng(99);
  for (const auto& s : test::small_samples(1, 12, 1, 7, 2, 5000)) {
    SCOPED_TRACE(s.what);
    const instance& inst = s.inst;
    std::vector<int> perm(inst.n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<job_t> perm16(perm.begin(), perm.end());
    std::vector<int> front(inst.m, -1);
    for (int len = 0; len <= inst.n; ++len) {
      SCOPED_TRACE("prefix length " + std::to_string(len) + " of " + test::to_text(perm));
      const std::vector<int> part(perm.begin(), perm.begin() + len);
      const std::vector<int> want = len == 0 ? std::vector<int>(inst.m, 0) : test::naive_completion(inst, part);
      completion_times(inst.view(), perm.data(), len, front.data());
      EXPECT_EQ(front, want);
      completion_times(inst.view(), perm16.data(), len, front.data());
      EXPECT_EQ(front, want);
    }
    std::vector<int> scratch(inst.m);
    EXPECT_EQ(makespan(inst.view(), perm.data(), scratch.data()), test::naive_makespan(inst, perm));
    EXPECT_EQ(makespan(inst.view(), perm16.data(), scratch.data()), test::naive_makespan(inst, perm));
  }
}

// back[] of a suffix is the completion times of the mirrored problem (machines and jobs reversed).
TEST(makespan, suffix_back_matches_the_mirrored_recurrence) {
  std::mt19937 rng(7);
  for (const auto& s : test::small_samples(1, 9, 1, 6, 2, 6000)) {
    SCOPED_TRACE(s.what);
    const instance& inst = s.inst;
    instance mirror = inst;
    for (int k = 0; k < inst.m; ++k)
      for (int j = 0; j < inst.n; ++j)
        mirror.p[static_cast<std::size_t>(k) * inst.n + j] = inst.time(inst.m - 1 - k, j);
    const bound_data data(inst);
    std::vector<job_t> perm(inst.n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int> back(inst.m);
    for (int limit2 = 0; limit2 < inst.n; ++limit2) {
      schedule_back(data.view(), perm.data(), -1, limit2, back.data());
      std::vector<job_t> rev(perm.begin() + limit2, perm.end());
      std::reverse(rev.begin(), rev.end());
      std::vector<int> want = test::naive_completion(mirror, rev);
      std::reverse(want.begin(), want.end());
      EXPECT_EQ(back, want) << "suffix starting at " << limit2;
    }
  }
}

// Two-machine flow shop with time lags on pair (k, l), jobs in `order`, machines free at t0, t1.
int two_machine_value(const instance& inst, int k, int l, const std::vector<int>& lags, const std::vector<int>& order,
                      int t0, int t1) {
  for (int j : order) {
    t0 += inst.time(k, j);
    t1 = std::max(t1, t0 + lags[j]) + inst.time(l, j);
  }
  return t1;
}

// The tables' Johnson order (sorted by johnson_key) is Mitten's rule with ties by job index, the
// order of the comparator it replaced: checked on many ties (times 1..3), wide spreads, the
// largest times an instance may hold, and 300 jobs.
TEST(johnson, keys_sort_as_mittens_rule_with_index_ties) {
  std::vector<instance> cases{test::random_instance(12, 6, 11, 1, 3), test::random_instance(40, 9, 12, 1, 99),
                              test::random_instance(300, 5, 13, 1, 10),
                              test::random_instance(30, 4, 14, time_limit(30, 4) - 5, time_limit(30, 4))};
  for (const instance& inst : cases) {
    SCOPED_TRACE(std::to_string(inst.n) + " x " + std::to_string(inst.m));
    const bound_data data(inst);
    const bound_view b = data.view();
    const int n = inst.n;
    for (int q = 0; q < b.npairs; ++q) {
      const int k = b.pair_first[q], l = b.pair_second[q];
      auto a_of = [&](int j) { return inst.time(k, j) + b.lags[q * n + j]; };
      auto b_of = [&](int j) { return b.lags[q * n + j] + inst.time(l, j); };
      std::vector<int> want(static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j) want[static_cast<std::size_t>(j)] = j;
      std::sort(want.begin(), want.end(), [&](int x, int y) {
        const bool fx = a_of(x) <= b_of(x), fy = a_of(y) <= b_of(y);
        if (fx != fy) return fx;
        if (fx) return a_of(x) != a_of(y) ? a_of(x) < a_of(y) : x < y;
        return b_of(x) != b_of(y) ? b_of(x) > b_of(y) : x < y;
      });
      const std::vector<int> got(b.johnson + q * n, b.johnson + (q + 1) * n);
      ASSERT_EQ(got, want) << "pair (" << k << ", " << l << ")";
    }
  }
}

TEST(johnson, orders_are_optimal_for_every_machine_pair) {
  std::mt19937 rng(4321);
  int checked = 0;
  for (const auto& s : test::small_samples(1, 7, 2, 6, 2, 7000)) {
    SCOPED_TRACE(s.what);
    const instance& inst = s.inst;
    const int n = inst.n;
    const bound_data data(inst);
    const bound_view b = data.view();
    ASSERT_EQ(b.npairs, inst.m * (inst.m - 1) / 2);
    for (int q = 0; q < b.npairs; ++q) {
      const int k = b.pair_first[q], l = b.pair_second[q];
      ASSERT_LT(k, l);
      std::vector<int> lags(n), order(b.johnson + q * n, b.johnson + (q + 1) * n);
      for (int j = 0; j < n; ++j) {
        int lag = 0;
        for (int i = k + 1; i < l; ++i) lag += inst.time(i, j);
        EXPECT_EQ(b.lags[q * n + j], lag) << "pair (" << k << "," << l << ") job " << j;
        lags[j] = lag;
      }
      std::vector<int> sorted(order);
      std::sort(sorted.begin(), sorted.end());
      for (int j = 0; j < n; ++j) ASSERT_EQ(sorted[j], j) << "Johnson order of pair " << q << " is not a permutation";
      // All jobs from time 0, and random subsets (the order restricted to the unscheduled jobs)
      // with random machine availability times, as the bound uses it.
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<int> subset;
        for (int j : order)
          if (trial == 0 || rng() % 3 != 0) subset.push_back(j);
        const int t0 = trial == 0 ? 0 : static_cast<int>(rng() % 200);
        const int t1 = trial == 0 ? 0 : t0 + static_cast<int>(rng() % 300);
        const int got = two_machine_value(inst, k, l, lags, subset, t0, t1);
        std::vector<int> perm(subset);
        std::sort(perm.begin(), perm.end());
        int best = INT_MAX;
        do best = std::min(best, two_machine_value(inst, k, l, lags, perm, t0, t1));
        while (std::next_permutation(perm.begin(), perm.end()));
        ++checked;
        EXPECT_EQ(got, best) << "pair (" << k << "," << l << "), jobs " << test::to_text(subset) << " from t0 " << t0
                             << ", t1 " << t1;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(bound_data, heads_and_tails) {
  for (const auto& s : test::small_samples(1, 6, 1, 5, 1, 8000)) {
    SCOPED_TRACE(s.what);
    const bound_data data(s.inst);
    for (int j = 0; j < s.inst.n; ++j)
      for (int k = 0; k < s.inst.m; ++k) {
        int h = 0, t = 0;
        for (int i = 0; i < k; ++i) h += s.inst.time(i, j);
        for (int i = k + 1; i < s.inst.m; ++i) t += s.inst.time(i, j);
        EXPECT_EQ(data.heads()[static_cast<std::size_t>(k) * s.inst.n + j], h);
        EXPECT_EQ(data.tails()[static_cast<std::size_t>(k) * s.inst.n + j], t);
      }
  }
}

// --- Compact tables (GPU --compact-times) ---------------------------------------------------
// The bounds read through compact_bound_view must equal the int view's bit for bit: node parts,
// LB1 per child in both directions, child and node bounds of every kind with and without early
// exits, the O(m) child updates and the makespan.
class compact_checker {
 public:
  compact_checker(const instance& inst, std::string what)
      : inst_(inst), what_(std::move(what)), data_(inst), compact_(data_), m_(inst.m) {}

  // Every node (ordered prefix, unscheduled set, ordered suffix): every permutation and split,
  // the unscheduled jobs in increasing order (the bounds do not depend on their order).
  void all_nodes() {
    std::vector<job_t> perm(static_cast<std::size_t>(inst_.n));
    std::iota(perm.begin(), perm.end(), job_t{0});
    do
      for (int l1 = -1; l1 < inst_.n; ++l1)
        for (int l2 = l1 + 1; l2 <= inst_.n; ++l2)
          if (std::is_sorted(perm.begin() + (l1 + 1), perm.begin() + l2)) check(perm, l1, l2);
    while (std::next_permutation(perm.begin(), perm.end()));
  }
  // `per_depth` random nodes at every depth, or at about 12 spread depths from n = 50 on (empty
  // prefix and empty suffix included).
  void random_nodes(int per_depth, std::uint32_t seed) {
    std::mt19937 rng(seed);
    const int n = inst_.n;
    std::vector<job_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), job_t{0});
    const int stride = n < 50 ? 1 : n / 12;
    for (int depth = 0; depth <= n; depth += (depth + stride > n && depth < n) ? n - depth : stride)
      for (int r = 0; r < per_depth; ++r) {
        std::shuffle(perm.begin(), perm.end(), rng);
        const int a = r == 0 ? 0 : (r == 1 ? depth : static_cast<int>(rng() % static_cast<unsigned>(depth + 1)));
        check(perm, a - 1, n - (depth - a));
      }
  }
  std::uint64_t checked() const { return checked_; }

 private:
  void check(const std::vector<job_t>& perm, int l1, int l2) {
    if (inst_.n <= 256) compare(compact_.view<std::uint8_t>(), perm, l1, l2);
    compare(compact_.view<std::uint16_t>(), perm, l1, l2);
  }

  template <class View>
  void compare(View c, const std::vector<job_t>& perm, int l1, int l2) {
    const bound_view b = data_.view();
    const std::string at = what_ + ", " + node_text(perm, l1, l2) + ", johnson " +
                           std::to_string(8 * sizeof(typename View::job_type)) + "-bit";
    std::vector<int> f(m_), bk(m_), r(m_), cf(m_), cbk(m_), cr(m_), s(m_), cs(m_);
    node_parts(b, perm.data(), l1, l2, f.data(), bk.data(), r.data());
    node_parts(c, perm.data(), l1, l2, cf.data(), cbk.data(), cr.data());
    ASSERT_EQ(cf, f) << "front, " << at;
    ASSERT_EQ(cbk, bk) << "back, " << at;
    ASSERT_EQ(cr, r) << "remain, " << at;
    std::vector<unsigned char> flags(static_cast<std::size_t>(inst_.n));
    for (int i = 0; i < inst_.n; ++i) flags[perm[static_cast<std::size_t>(i)]] = (i <= l1 || i >= l2) ? 1 : 0;
    const unsigned char* fl = flags.data();
    auto sched = [fl](int j) { return fl[j] != 0; };
    if (l2 - l1 == 1) {
      ASSERT_EQ(makespan(c.inst, perm.data(), cs.data()), makespan(b.inst, perm.data(), s.data())) << at;
    }
    for (bound_kind kind : kinds) {
      const int full = node_bound(kind, b, f.data(), bk.data(), r.data(), sched, INT_MAX);
      for (int ub : {INT_MAX, full, full / 2 + 1}) {
        ++checked_;
        ASSERT_EQ(node_bound(kind, c, f.data(), bk.data(), r.data(), sched, ub),
                  node_bound(kind, b, f.data(), bk.data(), r.data(), sched, ub))
            << "node_bound " << kind_name(kind) << " ub " << ub << ", " << at;
        for (int i = l1 + 1; i < l2; ++i) {
          const int job = perm[static_cast<std::size_t>(i)];
          for (bool forward : {true, false}) {
            ++checked_;
            ASSERT_EQ(child_bound(kind, c, f.data(), bk.data(), r.data(), sched, job, forward, ub, cs.data()),
                      child_bound(kind, b, f.data(), bk.data(), r.data(), sched, job, forward, ub, s.data()))
                << "child_bound " << kind_name(kind) << (forward ? " forward" : " backward") << " job " << job << " ub "
                << ub << ", " << at;
          }
        }
      }
    }
    for (int i = l1 + 1; i < l2; ++i) {
      const int job = perm[static_cast<std::size_t>(i)];
      ASSERT_EQ(lb1_forward_child(c.inst, f.data(), bk.data(), r.data(), job),
                lb1_forward_child(b.inst, f.data(), bk.data(), r.data(), job))
          << at;
      ASSERT_EQ(lb1_backward_child(c.inst, f.data(), bk.data(), r.data(), job, cs.data()),
                lb1_backward_child(b.inst, f.data(), bk.data(), r.data(), job, s.data()))
          << at;
      ASSERT_EQ(cs, s) << "lb1_backward_child's child back, " << at;
      front_after(c.inst, f.data(), job, cs.data());
      front_after(b.inst, f.data(), job, s.data());
      ASSERT_EQ(cs, s) << "front_after, " << at;
    }
  }

  const instance& inst_;
  std::string what_;
  bound_data data_;
  compact_tables compact_;
  int m_;
  std::uint64_t checked_ = 0;
};

TEST(compact_tables, hold_the_same_values_as_the_int_tables) {
  for (const auto& s : test::small_samples(1, 7, 1, 5, 1, 11000)) {
    if (!compact_misfit(bound_data(s.inst)).empty()) continue;
    SCOPED_TRACE(s.what);
    const bound_data data(s.inst);
    const compact_tables c(data);
    const auto v8 = c.view<std::uint8_t>();
    const auto v16 = c.view<std::uint16_t>();
    const bound_view b = data.view();
    ASSERT_EQ(v8.npairs, b.npairs);
    for (int k = 0; k < s.inst.m; ++k)
      for (int j = 0; j < s.inst.n; ++j) ASSERT_EQ(v8.inst.time(k, j), b.inst.time(k, j));
    for (int i = 0; i < b.npairs * s.inst.n; ++i) {
      ASSERT_EQ(static_cast<int>(v8.johnson[i]), b.johnson[i]);
      ASSERT_EQ(static_cast<int>(v16.johnson[i]), b.johnson[i]);
      ASSERT_EQ(static_cast<int>(v8.lags[i]), b.lags[i]);
    }
  }
}

// Every node of every small tree, Taillard's generator and times 1..3, 50..60 and up to 255.
TEST(compact_tables, give_the_int_bounds_at_every_node_of_small_trees) {
  std::uint64_t checked = 0;
  int instances = 0;
  for (const auto& s : test::small_samples(1, 6, 1, 5, 2, 12000)) {
    if (!compact_misfit(bound_data(s.inst)).empty()) continue;  // times up to 1000 and 100000
    compact_checker ck(s.inst, s.what);
    ck.all_nodes();
    ASSERT_FALSE(HasFatalFailure());
    checked += ck.checked();
    ++instances;
  }
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const instance inst = test::random_instance(6, 4, seed, 200, 255);
    compact_checker ck(inst, "random_instance(6, 4, seed " + std::to_string(seed) + ", times 200..255)");
    ck.all_nodes();
    ASSERT_FALSE(HasFatalFailure());
    checked += ck.checked();
    ++instances;
  }
  EXPECT_GT(instances, 30);
  EXPECT_GT(checked, 1000000u);
}

// Random nodes at every depth of larger instances: both Johnson widths up to n = 256, 16-bit
// beyond (the GPU's large size class), Taillard's 20x20 and 50x20 shapes.
TEST(compact_tables, give_the_int_bounds_on_random_nodes_of_larger_instances) {
  const std::vector<test::sample> cases = {
      {taillard_instance("ta021"), "ta021 (20x20)"},
      {taillard_instance("ta051"), "ta051 (50x20)"},
      {test::random_instance(64, 7, 31, 1, 255), "random_instance(64, 7, 31, 1..255)"},
      {test::random_instance(256, 3, 32, 1, 255), "random_instance(256, 3, 32, 1..255)"},
      {test::random_instance(300, 4, 33, 1, 99), "random_instance(300, 4, 33, 1..99) (16-bit Johnson orders)"},
  };
  for (const auto& s : cases) {
    compact_checker ck(s.inst, s.what);
    ck.random_nodes(s.inst.n < 50 ? 3 : 1, 77);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_GT(ck.checked(), 0u);
  }
}

// The largest lags that fit: 259 machines at time 255 give lags up to 257 x 255 = 65535.
TEST(compact_tables, give_the_int_bounds_with_the_largest_lags) {
  const instance inst = test::random_instance(3, 259, 5, 250, 255);
  compact_checker ck(inst, "random_instance(3, 259, 5, 250..255)");
  ck.all_nodes();
  ASSERT_FALSE(HasFatalFailure());
  instance top = inst;
  std::fill(top.p.begin(), top.p.end(), 255);
  EXPECT_EQ(compact_misfit(bound_data(top)), "");
}

TEST(compact_tables, refuse_times_above_255_and_lags_above_65535) {
  instance inst = test::random_instance(5, 3, 9, 1, 255);
  EXPECT_EQ(compact_misfit(bound_data(inst)), "");
  inst.p[7] = 256;  // machine 2, job 3 (1-based)
  const bound_data data(inst);
  const std::string why = compact_misfit(data);
  EXPECT_NE(why.find("processing time 256 (machine 2, job 3)"), std::string::npos) << why;
  EXPECT_THROW(compact_tables{data}, input_error);
  instance wide = test::random_instance(2, 260, 9, 255, 255);  // lag 258 x 255 = 65790
  const std::string lag_why = compact_misfit(bound_data(wide));
  EXPECT_NE(lag_why.find("time lag of 65790"), std::string::npos) << lag_why;
}

}  // namespace
}  // namespace pfsp
