// Offline tree-size estimates: how many nodes a depth-first branch-and-bound with a fixed upper
// bound branches, from random probes, without running the search.
//
// With a fixed threshold ub (--ub, e.g. the optimum) and no incumbent below it, the tree is the
// set of nodes whose bound is below ub, whatever the order of the search: every solver (CPU
// sequential, cpu-mt, the GPU device loop) branches the same nodes, so their node counts can be
// estimated once, on the CPU, over the same `expander` (same bound, LB2 pairs, branching and
// whatever else the expander prunes by).
//
// Stratified sampling (Chen, "Heuristic sampling: a method for predicting the performance of
// tree searching programs", SIAM J. Comput. 21(2), 1992; used for depth-first branch-and-bound
// by Lelis, Otten and Dechter, IJCAI 2013): the probe goes level by level; every node of a level
// gets a type, and of the nodes of one type only one representative is kept, chosen at random
// with probability proportional to weight, with the type's whole weight. The estimate is the sum
// of the weights of every node kept (each stands for that many nodes of the tree); it is unbiased
// for any type system. With one type a level (`gap_width` 0) it is Knuth's estimator (Math. Comp.
// 29, 1975): one random path, each node weighing the product of its ancestors' kept children.
// Here a node's type is its depth and the bucket of its gap ub - lb (the gap tells how much of
// the subtree survives pruning); nodes of one type are then close in subtree size, and the
// variance is far below Knuth's (measured: docs/tree_estimate.md).
//
// Cost of a probe: at most (number of types a level) x n expansions; with gap_width 1 at 50x20
// a few thousand expansions. Probes are independent: their mean is unbiased, and the spread of
// the probes gives a confidence interval (a normal one; the estimates are heavy-tailed, so the
// interval is too narrow where few probes carry the mean, docs/tree_estimate.md).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "search/expander.hpp"
#include "search/types.hpp"

namespace pfsp {

struct probe_options {
  int ub = 0;         // prune nodes whose bound is >= ub (fixed: leaves below it do not lower it)
  int gap_width = 1;  // type = (depth, (ub - lb) / gap_width); 0: one type a depth (Knuth)
  // Each type is split at random into this many (a child's slot drawn uniformly): up to `slots`
  // representatives a type, the probe's cost and its sample that many times wider at every level.
  int slots = 1;
  // Split each type further by the jobs scheduled in front (limit1 + 1): with bidirectional
  // branching, nodes of one depth and gap differ in how much of the schedule each side holds.
  bool by_front = false;
};

// One probe's estimate.
struct probe_estimate {
  double branched = 0;           // nodes branched (children generated), the root included
  double leaves = 0;             // complete schedules below ub (none when ub is the optimum)
  std::vector<double> by_depth;  // branched nodes estimated at depth d (jobs scheduled), 0 .. n
  std::uint64_t expansions = 0;  // nodes this probe expanded (its cost)
};

// One stratified probe of the tree under (root, ub) explored by `ex`. O(types x n) expansions.
template <class Rng>
probe_estimate stratified_probe(expander& ex, const probe_options& o, Rng& rng) {
  const int n = ex.view().inst.n;
  struct node {
    std::vector<job_t> perm;
    int limit1 = -1, limit2 = 0, lb = 0;
    double weight = 0;
  };
  probe_estimate est;
  est.by_depth.assign(static_cast<std::size_t>(n) + 1, 0.0);
  std::vector<node> level(1);
  level[0].perm.resize(static_cast<std::size_t>(n));
  std::iota(level[0].perm.begin(), level[0].perm.end(), job_t{0});
  level[0].limit1 = -1;
  level[0].limit2 = n;
  level[0].lb = ex.root_bound(level[0].perm.data(), -1, n, o.ub);
  level[0].weight = 1;
  if (level[0].lb >= o.ub) return est;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  solve_stats st;
  std::map<std::int64_t, node> next;  // the next level's representatives by type
  struct child {
    int from, to, l1, l2, lb;
  };
  std::vector<child> kids;  // the children of the node being expanded
  for (int depth = 0; !level.empty(); ++depth) {
    next.clear();
    for (node& p : level) {
      est.branched += p.weight;
      est.by_depth[static_cast<std::size_t>(depth)] += p.weight;
      ++est.expansions;
      const double w = p.weight;
      kids.clear();
      auto push = [&](const job_t*, int from, int to, int l1, int l2, int lb) {
        kids.push_back({from, to, l1, l2, lb});
      };
      auto leaf = [&](const job_t*, int, int, int) { est.leaves += w; };
      ex.expand(p.perm.data(), p.limit1, p.limit2, o.ub, push, leaf, st);
      for (const child& c : kids) {
        std::int64_t bucket = o.gap_width > 0 ? (o.ub - c.lb) / o.gap_width : 0;
        if (o.by_front) bucket = bucket * (n + 1) + (c.l1 + 1);
        const std::int64_t key =
            o.slots > 1 ? bucket * o.slots + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(o.slots))
                        : bucket;
        auto [it, fresh] = next.try_emplace(key);
        node& r = it->second;
        const double total = r.weight + w;
        if (fresh || uniform(rng) * total < w) {  // this child represents the type with probability w / total
          r.perm = p.perm;
          std::swap(r.perm[static_cast<std::size_t>(c.from)], r.perm[static_cast<std::size_t>(c.to)]);
          r.limit1 = c.l1;
          r.limit2 = c.l2;
          r.lb = c.lb;
        }
        r.weight = total;
      }
    }
    level.clear();
    for (auto& [key, r] : next) level.push_back(std::move(r));
  }
  return est;
}

// The mean of k probes and its spread.
struct tree_estimate_summary {
  int probes = 0;
  double mean = 0;           // estimated nodes branched
  double std_error = 0;      // sample standard deviation / sqrt(probes)
  double low = 0, high = 0;  // mean -/+ 1.96 std_error, low clamped at 0
  double median = 0;
  double min = 0, max = 0;
  std::vector<double> by_depth;  // mean per depth
  std::uint64_t expansions = 0;
};

inline tree_estimate_summary summarize_probes(const std::vector<probe_estimate>& ps) {
  tree_estimate_summary s;
  s.probes = static_cast<int>(ps.size());
  if (ps.empty()) return s;
  std::vector<double> v;
  for (const probe_estimate& p : ps) {
    v.push_back(p.branched);
    s.expansions += p.expansions;
    if (s.by_depth.size() < p.by_depth.size()) s.by_depth.resize(p.by_depth.size(), 0.0);
    for (std::size_t d = 0; d < p.by_depth.size(); ++d) s.by_depth[d] += p.by_depth[d] / static_cast<double>(ps.size());
  }
  const double k = static_cast<double>(v.size());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / k;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.std_error = v.size() > 1 ? std::sqrt(ss / (k - 1) / k) : 0.0;
  s.low = std::max(0.0, s.mean - 1.96 * s.std_error);
  s.high = s.mean + 1.96 * s.std_error;
  std::sort(v.begin(), v.end());
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

// Probes until `max_probes` or `seconds` of wall time (at least one probe), seeded by `seed`:
// what a caller before a run needs (the solver log's "left" column counts down from `mean`).
// Settings measured in docs/tree_estimate.md: gap_width 1, slots 64, by_front on 50x20.
inline tree_estimate_summary estimate_tree_size(expander& ex, const probe_options& o, double seconds,
                                                std::uint64_t seed, int max_probes = 1 << 30) {
  const auto t0 = std::chrono::steady_clock::now();
  std::mt19937_64 rng(seed);
  std::vector<probe_estimate> ps;
  do {
    ps.push_back(stratified_probe(ex, o, rng));
  } while (static_cast<int>(ps.size()) < max_probes &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds);
  return summarize_probes(ps);
}

// The exact count the probes estimate: a plain depth-first search of the same tree (same
// expander, fixed ub, children popped smallest bound first as the solvers' stacks do), for checks
// on trees small enough to enumerate. `limit` > 0 stops it there (the nodes so far, `complete`
// false). Every open node carries its tree weight (tree_estimate.hpp: the root 1, a parent's
// weight split evenly among its kept children); `on_trace(branched, closed_weight)` is called
// every `trace_every` nodes branched (0: never), so that online estimates can be replayed.
struct exact_count {
  std::uint64_t branched = 0, leaves = 0;
  std::vector<std::uint64_t> by_depth;  // branched nodes at depth d (jobs scheduled), 0 .. n
  double closed_weight = 0;             // 1 when complete
  bool complete = true;
};

template <class OnTrace>
exact_count count_tree(expander& ex, int ub, std::uint64_t limit, std::uint64_t trace_every, OnTrace&& on_trace) {
  const int n = ex.view().inst.n;
  struct open_node {
    int limit1, limit2;
    double weight;
  };
  std::vector<job_t> perms;  // the open nodes' permutations, n a node, stack order
  std::vector<open_node> open;
  perms.resize(static_cast<std::size_t>(n));
  std::iota(perms.begin(), perms.end(), job_t{0});
  exact_count c;
  c.by_depth.assign(static_cast<std::size_t>(n) + 1, 0);
  if (ex.root_bound(perms.data(), -1, n, ub) >= ub) {
    c.closed_weight = 1;
    return c;
  }
  open.push_back({-1, n, 1.0});
  std::vector<job_t> parent(static_cast<std::size_t>(n));
  std::vector<std::pair<int, int>> kids;  // (from, to) of the kept children
  int kid_l1 = 0, kid_l2 = 0;
  solve_stats st;
  while (!open.empty()) {
    if (limit > 0 && c.branched >= limit) {
      c.complete = false;
      break;
    }
    const open_node p = open.back();
    open.pop_back();
    std::copy(perms.end() - n, perms.end(), parent.begin());
    perms.resize(perms.size() - static_cast<std::size_t>(n));
    ++c.branched;
    ++c.by_depth[static_cast<std::size_t>(p.limit1 + 1 + n - p.limit2)];
    kids.clear();
    auto push = [&](const job_t*, int from, int to, int l1, int l2, int) {
      kids.emplace_back(from, to);
      kid_l1 = l1;
      kid_l2 = l2;
    };
    auto leaf = [&](const job_t*, int, int, int) { ++c.leaves; };
    ex.expand(parent.data(), p.limit1, p.limit2, ub, push, leaf, st);
    if (kids.empty()) c.closed_weight += p.weight;
    const double w = kids.empty() ? 0.0 : p.weight / static_cast<double>(kids.size());
    for (const auto& [from, to] : kids) {
      const std::size_t at = perms.size();
      perms.insert(perms.end(), parent.begin(), parent.end());
      std::swap(perms[at + static_cast<std::size_t>(from)], perms[at + static_cast<std::size_t>(to)]);
      open.push_back({kid_l1, kid_l2, w});
    }
    if (trace_every > 0 && c.branched % trace_every == 0) on_trace(c.branched, c.closed_weight);
  }
  if (c.complete) c.closed_weight = 1;  // the sum of 1/k products, exactly 1 up to rounding
  return c;
}

inline exact_count count_tree(expander& ex, int ub, std::uint64_t limit = 0) {
  return count_tree(ex, ub, limit, 0, [](std::uint64_t, double) {});
}

}  // namespace pfsp
