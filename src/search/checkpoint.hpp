// Checkpoint/restart of a depth-first search: the state a solver can be stopped in and resumed
// from (docs/decisions/003-checkpoints.md), its two versioned formats (binary, version 2, the
// default: docs/decisions/006-binary-checkpoints.md; line-oriented text, version 1), and the
// checks that a checkpoint fits the run that wants to resume it. Plain C++: no JSON, no file
// system beyond reading one file; the CLI writes files atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bound/bound_data.hpp"
#include "problem/instance.hpp"
#include "search/control.hpp"
#include "search/node_pool.hpp"
#include "search/types.hpp"

namespace pfsp {

// Everything needed to continue a search exactly where it stopped. Open nodes are kept as the
// stacks they were in (one for the sequential solver and the shared queue, one per thread for
// work stealing), each from bottom (oldest) to top (next to be popped).
struct search_state {
  static constexpr int format_version = 1;         // the text format
  static constexpr int binary_format_version = 2;  // the binary format

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
  // LB2's machine pairs (k < l, 0-based) in the order the bound evaluates them; empty = all
  // m (m - 1) / 2 in the papers' order, and always empty with bound lb1. Bounds, hence the
  // children's order and the tree, depend on them (--lb2-pairs learn picks them before the run).
  std::vector<std::pair<int, int>> lb2_pairs;

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
// = opt.resume's + `piece_seconds`. The bound_data overload also records its LB2 pairs.
search_state make_search_state(const instance& inst, const solve_options& opt, int threshold, const incumbent& best,
                               const solve_stats& piece, double piece_seconds, std::string_view backend);
search_state make_search_state(const bound_data& data, const solve_options& opt, int threshold, const incumbent& best,
                               const solve_stats& piece, double piece_seconds, std::string_view backend);

// The LB2 pairs `data` evaluates as a search_state records them: empty for bound lb1 and for all
// pairs in the papers' order.
std::vector<std::pair<int, int>> lb2_pairs_of(const bound_data& data, bound_kind bound);

// "all (190 pairs)", "adjacent (19 pairs: 1-2 2-3 ...)" or "19 of 190 pairs: 3-7 1-2 ..." (1-based).
std::string describe_lb2_pairs(const std::vector<std::pair<int, int>>& pairs, int m);

// Throws input_error naming `file` unless `data` evaluates exactly the pairs `s` was made with.
void check_lb2_pairs(const search_state& s, const bound_data& data, const std::string& file);

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
// It has no field for LB2 pairs: a state with some (lb2_pairs not empty) is an input_error.
std::string to_text(const search_state& s);

// Parses to_text's output. Errors are input_error "FILE:LINE: what was expected".
search_state parse_search_state(std::string_view text, const std::string& file);

// The binary format (version 2, docs/decisions/006-binary-checkpoints.md): a 132-byte header of
// little-endian fixed-width fields after the magic, the names, pairs, incumbent and stack sizes,
// the open nodes in 8-bit (n <= 255) or 16-bit job ids with the bound as an offset of 1, 2 or 4
// bytes, and a checksum of every preceding byte. O(size), at memory speed.
std::string to_binary(const search_state& s);

// Parses to_binary's output. Every size is checked against the input's length before anything is
// allocated; errors are input_error "FILE: byte offset K: what was expected".
search_state parse_binary_search_state(std::string_view bytes, const std::string& file);

// Whether a checkpoint's first bytes are the binary format's (else it is read as text).
bool is_binary_checkpoint(std::string_view first_bytes);

// Either format, told apart by the first bytes.
search_state parse_checkpoint(std::string_view bytes, const std::string& file);

// 64-bit FNV-1a over 4 interleaved lanes of 8-byte words, combined by byte-wise FNV-1a with the
// length: the binary format's checksum. Four independent multiply chains run at memory speed
// where byte-wise FNV-1a is latency-bound (about 1 byte per 4 cycles). O(len).
std::uint64_t block_checksum(const void* data, std::size_t len);

// Reads and parses a checkpoint file of either format.
search_state read_search_state(const std::string& path);

// Throws input_error naming `file` and the first mismatch unless `s` can be resumed by a run on
// `inst` with `opt` (same instance, bound, branching and --ub; depth-first selection), and checks
// that its incumbent is a permutation of the stated makespan. The bound_data overload also
// checks the LB2 pairs (check_lb2_pairs).
void check_resumable(const search_state& s, const instance& inst, const solve_options& opt, const std::string& file);
void check_resumable(const search_state& s, const bound_data& data, const solve_options& opt, const std::string& file);

}  // namespace pfsp
