// Vocabulary of the search layer: options, statistics, status and result of a solve.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.hpp"
#include "bound/lb2.hpp"

namespace pfsp {

using job_t = std::uint16_t;  // job index in a permutation (instances up to 65535 jobs)

// Where children are placed. forward/backward are static; min_branch and min_min evaluate both
// directions' children and pick per node (Gmys, Mezmaz, Melab, Tuyttens, EJOR 2020).
enum class branching : int { forward = 0, backward = 1, min_branch = 2, min_min = 3 };
constexpr auto enum_names(branching) {
  using e = enum_name<branching>;
  return std::array{e{branching::forward, "forward"}, e{branching::backward, "backward"},
                    e{branching::min_branch, "min-branch"}, e{branching::min_min, "min-min"}};
}

// The order in which a node's surviving children are explored (a depth-first search pops the first
// next): bound, the smallest bound first; incumbent, solution-guided search (Beck 2007): first the
// child whose newly placed job the incumbent schedule has nearest the position it takes, the
// bound breaking ties, so the search follows its best schedule and leaves it where the bound
// forbids (decision 014). The same tree below a fixed upper bound; only when the incumbent
// improves differs.
enum class child_order : int { bound = 0, incumbent = 1 };
constexpr auto enum_names(child_order) {
  using e = enum_name<child_order>;
  return std::array{e{child_order::bound, "bound"}, e{child_order::incumbent, "incumbent"}};
}

enum class selection : int { depth_first = 0, breadth_first = 1, best_first = 2 };
constexpr auto enum_names(selection) {
  using e = enum_name<selection>;
  return std::array{e{selection::depth_first, "depth-first"}, e{selection::breadth_first, "breadth-first"},
                    e{selection::best_first, "best-first"}};
}

// The names are the JSON's "status" and `pfsp solve -q`'s first word.
enum class solve_status : int {
  optimal = 0,
  proven_bound = 1,
  time_limit = 2,
  node_limit = 3,
  interrupted = 4,
  error = 5
};
constexpr auto enum_names(solve_status) {
  using e = enum_name<solve_status>;
  return std::array{e{solve_status::optimal, "optimal"},         e{solve_status::proven_bound, "proven_bound"},
                    e{solve_status::time_limit, "time_limit"},   e{solve_status::node_limit, "node_limit"},
                    e{solve_status::interrupted, "interrupted"}, e{solve_status::error, "error"}};
}

struct search_state;  // search/checkpoint.hpp

// A snapshot for the live progress line.
struct progress_info {
  double elapsed = 0;
  std::uint64_t nodes = 0;  // nodes branched
  int best = 0;             // incumbent makespan
  std::uint64_t open = 0;   // nodes waiting in pools
  double explored = 0;      // sum of (n - depth)! / n! over closed nodes, in [0, 1]
  // Where the solver knows them (the GPU device loop), else negative: the global lower bound
  // (smallest bound over the open nodes, or the threshold when none is open), the closed share
  // of the tree weight and the estimated nodes still to branch from it, and the per-depth
  // (Knuth-style) estimate beside it (search/tree_estimate.hpp).
  int global_lb = -1;
  double remaining = -1;
  double tree_done = -1;
  double forecast_seconds = -1;  // time left at the closed share's recent rate (infinity: not moving)
  double remaining_by_depth = -1;
};

struct solve_options {
  bound_kind bound = bound_kind::lb1;
  branching branch = branching::min_branch;  // fastest measured on the CPU (docs/benchmarks.md)
  selection select = selection::depth_first;
  // Prune forward children dominated by swapping their last two prefix jobs (bound/dominance.hpp).
  bool dominance = false;
  // The order of a node's children (CPU solvers; the GPU's device loop keeps the bound's).
  child_order order = child_order::bound;
  // Memo dominance (search/memo_table.hpp) in a table of this many bytes per search thread (0:
  // off); on, it replaces the swap rule (CPU solvers).
  std::size_t memo_bytes = 0;
  std::optional<int> initial_ub;  // --ub: prune every node with lb >= this (papers' 6.1)
  bool use_neh = true;            // NEH gives the first incumbent
  double time_limit = 0;          // seconds, 0 = none
  // Where time_limit counts from: the caller's start (pfsp solve's, so that the start heuristic and
  // the pair learning count against the limit); unset = the solver's start. Statistics' times
  // still count from the solver's start.
  std::optional<std::chrono::steady_clock::time_point> time_origin;
  std::uint64_t node_limit = 0;  // branched nodes, 0 = none
  int threads = 1;               // cpu-mt
  bool shared_queue = false;     // cpu-mt: the papers' single mutex-protected queue
  // cpu, best- and breadth-first: memory for the open nodes (about 2n + 64 bytes each); past it,
  // subtrees are explored depth-first one at a time (the search stays exact, memory bounded). The
  // CLI lowers it to half of what the process may still take (base/host_memory.hpp).
  std::size_t pool_memory = std::size_t{2} << 30;
  bool profile = false;                                   // time bounding versus the rest (papers' Table I)
  const std::atomic<bool>* interrupt = nullptr;           // set by the SIGINT handler
  std::function<void(const progress_info&)> on_progress;  // called about once a second
  double progress_interval = 1.0;
  // Checkpoint/restart (CPU depth-first solvers; docs/decisions/003-checkpoints.md).
  // resume: continue from this state instead of the root (its threshold, incumbent via `start`,
  //   and statistics, to which this run's are added; the limits count this run only).
  // on_checkpoint: receives the state every checkpoint_interval seconds and once at the end
  //   (complete, or stopped early); called from the solver's thread, never concurrently.
  const search_state* resume = nullptr;
  // Incumbents found beside the search (the GPU device loop polls it at its syncs and offers it
  // its improving leaves as seeds); null = none.
  class incumbent_feed* feed = nullptr;
  std::function<void(const search_state&)> on_checkpoint;
  double checkpoint_interval = 60.0;
};

struct solve_stats {
  std::uint64_t branched = 0;     // nodes whose children were generated
  std::uint64_t bounds = 0;       // lower bounds computed
  std::uint64_t pruned = 0;       // children discarded by their bound
  std::uint64_t leaves = 0;       // complete schedules reached
  std::uint64_t dominated = 0;    // of the pruned children, those pruned by swap dominance (bound/dominance.hpp)
  std::uint64_t memo_pruned = 0;  // popped nodes pruned by memo dominance, not branched (search/memo_table.hpp)
  double bound_seconds = 0;       // time in bounding (with profile)
  double setup_seconds = 0;       // part of total_seconds spent setting up a device (GPU backend)
  double total_seconds = 0;
  double explored = 0;  // fraction of the search space closed

  solve_stats& operator+=(const solve_stats& o) {
    branched += o.branched;
    bounds += o.bounds;
    pruned += o.pruned;
    leaves += o.leaves;
    dominated += o.dominated;
    memo_pruned += o.memo_pruned;
    bound_seconds += o.bound_seconds;
    explored += o.explored;
    return *this;
  }
};

struct solve_result {
  solve_status status = solve_status::error;
  int makespan = 0;           // of `schedule`; 0 if none was found
  std::vector<int> schedule;  // 0-based job indices, best found
  int lower_bound = 0;        // proven lower bound on the optimum
  solve_stats stats;
  std::string backend;               // what ran: "cpu", "cpu-mt(work-stealing, 2 threads)", ...
  std::vector<std::string> notes;    // decisions taken at run time (e.g. the GPU pool size)
  std::vector<progress_info> trace;  // snapshots about every progress interval (GPU device loop), for the JSON
};

}  // namespace pfsp
