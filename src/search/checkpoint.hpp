// Checkpoint/restart of a depth-first search: the state a solver can be stopped in and resumed
// from (docs/decisions/003-checkpoints.md), its versioned text format, and the checks that a
// checkpoint fits the run that wants to resume it. Plain C++: no JSON, no file system beyond
// reading one file; the CLI writes files atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "problem/instance.hpp"
#include "search/control.hpp"
#include "search/node_pool.hpp"
#include "search/types.hpp"

namespace pfsp {

// Everything needed to continue a search exactly where it stopped. Open nodes are kept as the
// stacks they were in (one for the sequential solver and the shared queue, one per thread for
// work stealing), each from bottom (oldest) to top (next to be popped).
struct search_state {
  static constexpr int format_version = 1;

  // The instance (identity: n, m and the hash of the processing times; the name is informative).
  std::string instance_name;
  int n = 0;
  int m = 0;
  std::uint64_t times_hash = 0;

  // What defines the tree.
  bound_kind bound = bound_kind::lb1;
  branching branch = branching::min_min;
  std::optional<int> ub_option;  // --ub of the first run, if any
  int threshold = 0;             // pruning threshold at the start of the first run (initial_threshold)

  // The incumbent (schedule empty: none found yet).
  int best_makespan = 0;
  std::vector<int> best_schedule;

  // Cumulative statistics of all runs so far; stats.total_seconds is the elapsed time.
  solve_stats stats;
  bool complete = false;  // the search ended: no open node, the result is final
  std::string backend;    // what wrote it (informative)

  // Open nodes: stack k holds nodes [sum of stack_sizes[0..k), + stack_sizes[k]).
  std::vector<std::size_t> stack_sizes;
  std::vector<node_meta> nodes;
  std::vector<job_t> perms;  // n jobs per node

  std::size_t open() const { return nodes.size(); }
  const job_t* perm(std::size_t i) const { return perms.data() + i * static_cast<std::size_t>(n); }

  // Appends a pool's nodes as one stack (bottom first).
  void add_stack(const dfs_pool& pool);
};

// FNV-1a (64 bits) over n, m and the processing times (32-bit little-endian words). O(nm).
std::uint64_t times_hash(const instance_view& inst);

// The state at a stop point, before the open nodes are added: identity and tree options from
// `inst` and `opt`, incumbent from `best`, statistics = opt.resume's (if any) + `piece`, elapsed
// = opt.resume's + `piece_seconds`.
search_state make_search_state(const instance& inst, const solve_options& opt, int threshold, const incumbent& best,
                               const solve_stats& piece, double piece_seconds, std::string_view backend);

// Statistics of a resumed run: the checkpoint's (if opt.resume) plus this run's.
solve_stats cumulative_stats(const solve_options& opt, const solve_stats& piece, double piece_seconds);

// Fills `pools` from the state's stacks: stack k goes on top of pools[k % pools.size()].
void restore_stacks(const search_state& s, const std::vector<dfs_pool*>& pools);

// Calls opt.on_checkpoint if it is set; `state` is built only then.
template <class Build>
void emit_checkpoint(const solve_options& opt, Build&& build) {
  if (opt.on_checkpoint) opt.on_checkpoint(build());
}

// The text format (version 1): one `key value` per line, open nodes as
// `node limit1 limit2 lb j0 .. j(n-1)`, and `end <FNV-1a of everything before that line>`.
std::string to_text(const search_state& s);

// Parses to_text's output. Errors are input_error "FILE:LINE: what was expected".
search_state parse_search_state(std::string_view text, const std::string& file);

// Reads and parses a checkpoint file.
search_state read_search_state(const std::string& path);

// Throws input_error naming `file` and the first mismatch unless `s` can be resumed by a run on
// `inst` with `opt` (same instance, bound, branching and --ub; depth-first selection), and checks
// that its incumbent is a permutation of the stated makespan.
void check_resumable(const search_state& s, const instance& inst, const solve_options& opt, const std::string& file);

}  // namespace pfsp
