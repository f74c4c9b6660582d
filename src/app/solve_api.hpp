// The solve pipeline behind `pfsp solve`, as a library: the options as the CLI takes them (the
// typed solver_config, app/solver_config.hpp; "auto" resolved here), the start heuristic, LB2 pair learning, the
// backend call (cpu, cpu-mt, gpu), the concurrent improver, the makespan re-check and the checkpoint notes. The CLI
// (cli.cpp) and the Python module (python/src/module.cpp) both call solve_instance, so there is one path from options
// to result.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/cli.hpp"
#include "app/solver_config.hpp"
#include "bound/bound_data.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/neh.hpp"
#include "problem/instance.hpp"
#include "search/checkpoint.hpp"
#include "search/types.hpp"

namespace pfsp {

// Throws input_error with the CLI's messages where a value is outside what `pfsp solve` accepts
// (the CLI's parser checks the same before; callers without it, like the Python module, need this).
void check_solve_args(const solve_args& a);

// The start heuristic's schedule: NEH, or iterated greedy from NEH with --ig-iterations rounds
// (auto: auto_ig_iterations), --seed, and at most a tenth of --time-limit. heuristic is ig or neh.
// pfsp and pfsp-mpi both call it.
neh_result run_start_heuristic(const instance& inst, const solve_args& a, heuristic_choice heuristic);

// The incumbent engine's beam plan for --beam-target: bisect binds its prover to the sequential
// branch-and-bound over `data` with `bound` (data must outlive the engine); best has none.
// pfsp and pfsp-mpi both call it.
beam_plan engine_beam_plan(const bound_data& data, bound_kind bound, beam_target aim);

// --beam-target auto: the engine's best where the passes run on the CPU, the shop has 40 machines
// or more and fewer than 15 jobs a machine (VRF's wide shops, whose lower bounds lie 4-15 % below
// the schedules, so that bisected targets are out of reach and the probes never close), else
// bisected (from 15 jobs a machine the one-machine bound is within 1-2 %: 600x40 and 800x40 ended
// lower bisecting in all four runs; bench/results/2026-12-07-vm2core-beam-target-wide).
beam_target resolve_beam_target(const instance& inst, beam_target aim, bool device_beam);

// The result's lower bound raised to the engine's (its probes' closed searches), and a schedule at
// it reported optimal. pfsp and pfsp-mpi both call it after stopping the engine.
void take_engine_bound(const concurrent_improver& engine, solve_result& r);

// --ub (parsed: app/solver_config.hpp) for this instance: none, the makespan given, or best-known's
// value (the instance's best known makespan, Taillard's table; input_error for an instance without
// one). pfsp and pfsp-mpi both call it.
std::optional<int> resolve_ub(const instance& inst, const solve_args& a);

// LB2's machine pairs as --lb2-pairs (resolved: all, adjacent, learn or learn:K) asks for them.
struct lb2_pairs_choice {
  std::string spec = "all";                // --lb2-pairs as the reports show it (to_string), or "checkpoint"
  std::vector<std::pair<int, int>> pairs;  // 0-based machines; empty = all (before learning: learn too)
  int learn = 0;                           // pairs to learn before the search (0: none)
};
// pfsp solve's checks of --lb2-pairs (resolved: not auto) for this instance and bound (learn:K's K
// against its machine pairs; text_checkpoint: written with --checkpoint-format text, which cannot
// record pairs); the adjacent pairs at once. Throws input_error. Deterministic: pfsp-mpi's ranks
// all run it.
lb2_pairs_choice check_lb2_pairs(const instance& inst, const lb2_pairs_option& spec, bound_kind bound,
                                 bool text_checkpoint);
// Learns c.learn pairs (if any) by a short search pruning at `threshold` (bound/pair_learning.hpp)
// into c.pairs; sets info.learn_seconds and returns the result's note ("lb2 pairs learned ...").
// The tables of every machine pair of one instance, built on first use (the pair learning and the
// root floor share them).
struct all_pair_tables {
  const instance& inst;
  std::optional<bound_data> built;
  const bound_data& get() { return built ? *built : built.emplace(inst); }
};

std::string learn_lb2_pairs(const instance& inst, lb2_pairs_choice& c, int threshold, run_info& info,
                            all_pair_tables* tables = nullptr);
// "all", or "SPEC: 1-2 2-3 ..." (1-based machines): run_info::lb2_pairs.
std::string describe(const lb2_pairs_choice& c);

// What the solve is about to run, passed to solve_hooks::on_start (after the start heuristic,
// before pair learning: the CLI prints its header) and on_search (tables built, pairs learned,
// just before the search: the solver log's header).
struct solve_plan {
  std::string backend;  // resolved: cpu, cpu-mt or gpu
  const solve_options& opt;
  const run_info& info;
  const search_state* resumed;       // the checkpoint continued, or null
  bool device_loop;                  // the GPU backend's device loop runs
  const bound_data* data = nullptr;  // on_search: the search's tables (its LB2 pairs); null before
};

struct solve_hooks {
  // Called from the solver's thread about every progress interval (not concurrently).
  std::function<void(const progress_info&)> on_progress;
  // The options and the checkpoint to resume are checked (the CLI opens its outputs here).
  std::function<void()> on_checked;
  std::function<void(const solve_plan&)> on_start;
  std::function<void(const solve_plan&)> on_search;
  // A periodic checkpoint could not be written (the search goes on).
  std::function<void(const std::string&)> on_warning;
};

struct solve_outcome {
  solve_options opt;  // as resolved (bound, branching, limits); its callbacks and pointers cleared
  solve_result result;
  run_info info;
  // Non-empty: the final checkpoint was not written (the CLI reports the result, then fails).
  std::string checkpoint_error;
};

// Solves `inst` as `pfsp solve` does. `interrupt` (may be null) stops the search when set: the
// result then has status interrupted with the best schedule and the proven lower bound. Throws
// input_error for options the instance or the build cannot take, error for internal failures.
// a.instance_spec is used in messages and run_info only; a.json, a.gantt, a.log, a.quiet and
// a.no_progress are the caller's.
solve_outcome solve_instance(const instance& inst, const solve_args& a, const solve_hooks& hooks,
                             const std::atomic<bool>* interrupt);

}  // namespace pfsp
