// LB2 over a learned subset of machine pairs (--lb2-pairs learn[:K]; Gmys, Mezmaz, Melab and
// Tuyttens, EJOR 2020, learn which pairs give LB2 its value). Before the main search, a bounded
// depth-first search with LB2 over all pairs (forward branching, children pruned at ub; in
// kLearnChunks disjoint root subtrees on as many threads) counts,
// for every child it bounds, which pair attains the maximum; the K pairs that did so most often
// are kept, most frequent first, so that the early exit at ub comes sooner. Deterministic: the
// same instance, ub and budget give the same pairs on any machine. Host only.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "bound/bound_data.hpp"
#include "problem/instance.hpp"

namespace pfsp {

struct pair_learning {
  std::vector<std::pair<int, int>> pairs;  // the K kept, most frequent first
  std::vector<std::uint64_t> wins;         // how often each kept pair attained the max
  std::uint64_t evaluations = 0;           // children bounded by the learning search
  double seconds = 0;
};

// The learning search runs in this many chunks (disjoint root subtrees, one thread each).
inline constexpr int kLearnChunks = 8;

// k: pairs to keep (1 .. m(m-1)/2); ub: prune children with a bound >= ub; budget: children to
// bound at most, up to 50 jobs and 190 pairs (50x20); a child costs n x pairs, so above that the
// budget shrinks in proportion (500x20: a tenth), and the learning keeps its time of 50x20.
// 10000 children (about 0.1-0.2 s on one core at 20-50 x 20) keep 8-9 of the 10
// pairs that 200000 (3.5-7 s) keep on ta021, ta051 and ta056 (docs/benchmarks.md): the learning
// is counted in the run's wall time, and 20-job proofs last a few tenths of a second (at 500x20
// the whole budget took 0.55-0.67 s on the H100 machine's 16 cores, before the search's clock).
// all: the tables of every pair of inst where the caller has them (else built here).
pair_learning learn_pairs(const instance& inst, int k, int ub, std::uint64_t budget = 10000,
                          const bound_data* all = nullptr);

// The children learn_pairs bounds with `budget` on an instance of n jobs and `pairs` machine pairs.
std::uint64_t scaled_learning_budget(std::uint64_t budget, int n, int pairs);

}  // namespace pfsp
