// The distributed search's plain-C++ core (no MPI): the frontier the coordinator cuts the tree
// into, and the solving of one chunk of frontier nodes by any local solver. The MPI driver
// (distributed.hpp) moves chunks and results between ranks; with one rank it calls the same
// functions in a loop, which is how the CPU tests check the decomposition without MPI.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "bound/bound_data.hpp"
#include "search/checkpoint.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp::dist {

struct frontier_node {
  node_meta meta;
  std::vector<job_t> perm;
};

// Breadth-first expansion from the root with the expander (the same bounds, branching and
// pruning as every solver) until `target` open nodes or none is left. Leaves found on the way
// are offered to `best`; the counters of the expansion are returned in `stats` (the root's
// bound included).
std::deque<frontier_node> build_frontier(const bound_data& data, const solve_options& opt, int threshold,
                                         incumbent& best, std::size_t target, solve_stats& stats);

// A chunk of frontier nodes as a search state the solvers resume from: threshold `threshold`,
// no statistics, the nodes as one stack (the first node at the bottom), and `data`'s LB2 machine
// pairs (which the resuming solver checks against its own tables).
search_state chunk_state(const bound_data& data, const solve_options& opt, int threshold,
                         const std::vector<frontier_node>& nodes);

// Solves a chunk completely (or until a limit) with a local solver; `start` carries the best
// known makespan (its schedule may be empty on a worker).
using chunk_solver = std::function<solve_result(const solve_options& opt, const incumbent& start)>;

}  // namespace pfsp::dist
