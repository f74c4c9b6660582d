// Online estimates of the nodes a depth-first search still has to branch, meaningful where
// the explored share of permutations is not. Two of them:
//
// Tree weight (the default; Kilby, Slaney, Thiebaux and Walsh, AAAI 2006; one of SCIP's tree-
// size estimators): the root weighs 1 and a branched node's weight is split evenly among the
// children it keeps (pruned children, leaves and a node pruned when popped take their share out
// of the tree). The open nodes' weights sum to the share R of the tree not yet closed, so after
// B branched nodes the tree is about B / (1 - R) nodes and B R / (1 - R) remain. Unlike the share
// of permutations, it ignores what pruning removed near the root: on a hard instance 1 - R stays
// small for a long time, and says so.
//
// Why not the share of permutations: on a hard instance it reaches 99.99 % within seconds
// (near-root pruning closes most permutations), while the open nodes' subtrees hold almost all
// the remaining work.
//
// Per depth (kept for comparison; on the GPU runs it was orders of magnitude off, see
// docs/benchmarks.md): the search keeps, per depth d (jobs scheduled), how many nodes it popped and how many
// children of theirs survived bounding and were pushed (kept). With b(d) = kept(d) / popped(d)
// the mean number of open children a depth-d node leaves, the expected subtree of an open node
// at depth d is S(d) = 1 + b(d) S(d + 1) (Knuth's estimator with the observed branching factors
// instead of one random probe), and the remaining work is sum_d open(d) S(d). It counts the
// nodes still to pop, the open ones included. Depths never popped borrow the branching factor of
// the shallower depth (a node's children are never more than its parent's).
//
// The statistics come from the subtrees already explored, which a depth-first search visits in
// bound order: the estimate is a forecast, checked against completed runs in docs/benchmarks.md.
//
// Neither is a time one can trust: replayed on completed depth-first runs, nodes / closed share
// was 0.3-25x off while it held within 1.5x for half a run (a depth-first search explores the
// smallest bounds, the largest subtrees, first; the even split then makes the closed share lag
// the work and jump at the end). The solver log's "left" column uses the offline estimate of
// estimator.hpp instead (docs/tree_estimate.md); forecast_seconds stays for the GPU's join rule.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace pfsp {

struct depth_profile {
  // Indexed by depth d = jobs scheduled, 0 .. n (size n + 1).
  std::vector<std::uint64_t> popped;  // nodes taken from the pools at depth d (branched or pruned then), cumulative
  std::vector<std::uint64_t> kept;    // their children pushed as open nodes (depth d + 1), cumulative
  std::vector<std::uint64_t> open;    // open nodes at depth d now (a snapshot)

  explicit depth_profile(int n = 0)
      : popped(static_cast<std::size_t>(n) + 1, 0),
        kept(static_cast<std::size_t>(n) + 1, 0),
        open(static_cast<std::size_t>(n) + 1, 0) {}
};

// Expected nodes still to pop below and including the open nodes; 0 when none is open.
inline double estimate_remaining(const depth_profile& p) {
  const std::size_t depths = p.open.size();
  if (depths == 0) return 0.0;
  std::vector<double> b(depths, 0.0);
  double last = 0.0;
  for (std::size_t d = 0; d < depths; ++d) {
    const std::uint64_t pop = d < p.popped.size() ? p.popped[d] : 0;
    const std::uint64_t kept = d < p.kept.size() ? p.kept[d] : 0;
    if (pop > 0) last = static_cast<double>(kept) / static_cast<double>(pop);
    b[d] = last;
  }
  b[depths - 1] = 0.0;  // complete schedules have no children
  double subtree = 1.0, total = 0.0;
  for (std::size_t i = depths; i-- > 0;) {
    subtree = i + 1 < depths ? 1.0 + b[i] * subtree : 1.0;
    total += static_cast<double>(p.open[i]) * subtree;
  }
  return total;
}

// Tree-weight estimate: nodes still to branch after `branched` nodes closed the share `done` of
// the tree weight; infinity while nothing is closed (no evidence yet), 0 when all is.
inline double tree_weight_remaining(std::uint64_t branched, double done) {
  if (done >= 1.0) return 0.0;
  if (done <= 0.0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(branched) * (1.0 - done) / done;
}

// Time left from the closed share's recent rate (a time series of the tree weight, as SCIP's
// forecasts do): the rate over the last max(5 s, half the run) of `history` (snapshots
// in time order, each with elapsed and tree_done), extrapolated linearly to 1. On a hard
// instance the share can stand still for minutes while a few subtrees hold all the work, and
// the tree-weight estimate alone (tree_weight_remaining, proportional to the nodes so far) would
// then promise an early end: a standing share gives infinity. -1 while the history is too short.
template <class Snapshot>
double forecast_seconds(const std::vector<Snapshot>& history, double now, double done) {
  if (done >= 1.0) return 0.0;
  const double window = std::max(5.0, 0.5 * now);
  const Snapshot* from = nullptr;
  for (const Snapshot& s : history)
    if (s.elapsed >= now - window && s.tree_done >= 0) {
      from = &s;
      break;
    }
  if (!from || now - from->elapsed < 0.5) return -1.0;
  const double rate = (done - from->tree_done) / (now - from->elapsed);
  if (rate <= 0) return std::numeric_limits<double>::infinity();
  return (1.0 - done) / rate;
}

}  // namespace pfsp
