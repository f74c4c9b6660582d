// The distributed search's plain-C++ core (no MPI): the frontier the coordinator cuts the tree
// into, and the solving of one chunk of frontier nodes by any local solver. The MPI driver
// (distributed.hpp) moves chunks and results between ranks; with one rank it calls the same
// functions in a loop, which is how the CPU tests check the decomposition without MPI.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <string_view>
#include <vector>

#include "bound/bound_data.hpp"
#include "search/checkpoint.hpp"
#include "search/control.hpp"
#include "search/incumbent_feed.hpp"
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

// Continues build_frontier's breadth-first expansion of `open` (e.g. a resumed run's open nodes)
// until `target` open nodes or none is left.
void expand_frontier(const bound_data& data, const solve_options& opt, int threshold, incumbent& best,
                     std::size_t target, std::deque<frontier_node>& open, solve_stats& stats);

// A chunk of frontier nodes as a search state the solvers resume from: threshold `threshold`,
// no statistics, the nodes as one stack (the first node at the bottom), and `data`'s LB2 machine
// pairs (which the resuming solver checks against its own tables).
search_state chunk_state(const bound_data& data, const solve_options& opt, int threshold,
                         const std::vector<frontier_node>& nodes);

// The distributed run as one checkpoint (whole-run checkpoints, docs/distributed.md): threshold,
// incumbent, `total` statistics (the resumed run's included; total_seconds = `seconds`), and as
// one stack the nodes of every chunk in flight (as sent, or as its worker last reported them) and
// the unsent frontier. Any front end and any number of ranks resume it: the set of nodes still to
// branch is the same whatever the order. `backend` is informative.
search_state run_state(const bound_data& data, const solve_options& opt, int threshold, const incumbent& best,
                       const solve_stats& total, double seconds, const std::vector<const frontier_node*>& open,
                       std::string_view backend);

// A state's open nodes as a frontier (bottom of its first stack first).
std::deque<frontier_node> frontier_of(const search_state& s);

// The open nodes of a chunk solver's final state (what remains of an unfinished chunk).
std::vector<frontier_node> nodes_of(const search_state& s);

// Solves a chunk completely (or until a limit) with a local solver; `start` carries the best
// known makespan (its schedule may be empty on a worker).
using chunk_solver = std::function<solve_result(const solve_options& opt, const incumbent& start)>;

// One chunk to solve: its nodes, the pruning value, the limits, and what runs beside it.
struct chunk_job {
  const std::vector<frontier_node>* nodes = nullptr;
  int ub = 0;                                              // the best makespan known (prunes lb >= ub)
  double seconds_left = -1;                                // negative: no time limit
  const std::atomic<bool>* interrupt = nullptr;            // stops the chunk (a signal, or rank 0 asks it back)
  incumbent_feed* feed = nullptr;                          // better schedules from elsewhere, polled by the solver
  std::function<void(const search_state&)> on_checkpoint;  // the chunk's periodic states (one rank)
  double checkpoint_interval = 0;
  // The run writes no checkpoint: a chunk that ends on its time limit, or is stopped for good
  // (`final_stop`: rank 0 asked it back to end the run, not to split it), returns its open nodes'
  // lower bound (result.lower_bound) but not the nodes, which only a checkpoint would need (a GPU
  // chunk holds up to millions: hundreds of MB to gather, send and queue on rank 0).
  bool drop_left_at_stop = false;
  const std::atomic<bool>* final_stop = nullptr;
};

struct chunk_run {
  solve_result result;              // its stats count the nodes branched in this run only
  bool complete = true;             // optimal or proven_bound: nothing left
  std::vector<frontier_node> left;  // unfinished: the open nodes still to branch
  bool left_dropped = false;        // unfinished, its nodes not kept (chunk_job::drop_left_at_stop)
};

// Runs `solve` on the chunk resumed as a search (chunk_state). An unfinished chunk returns what
// its solver's final state holds; if the solver saved none, the chunk's own nodes and no
// statistics (nothing is counted twice: exact either way).
chunk_run run_chunk(const bound_data& data, const solve_options& opt, const chunk_solver& solve, const chunk_job& job);

}  // namespace pfsp::dist
