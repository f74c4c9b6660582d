// The typed configuration of a solve: every `pfsp solve` option as the value it means (enums
// from the names tables beside them, numbers, optional where "auto" is resolved later, when the
// backend and the instance are known; --ub and --lb2-pairs as small structs parsed from their
// text; the GPU backend's options as the gpu::gpu_policy and gpu::plan_request that gpu/plan.hpp
// takes). register_solve_options (app/options.hpp) registers it into CLI11 for pfsp and pfsp-mpi,
// each option parsed once, when the command line is; solve_instance (app/solve_api.hpp) resolves
// it; the Python module sets it field by field through the same parse functions.
//
// Checked later, against the instance or the machine: --ub best-known (resolve_ub: the
// instance's best known makespan), learn:K's K (check_lb2_pairs: at most the instance's machine
// pairs), and --devices' ordinals (gpu::make_plan: against the driver's device count).
//
// Still text, and why: INSTANCE (a Taillard name, random:N,M,SEED or a file: load_instance reads
// it), the file names (--json, --gantt, --log, --checkpoint, --resume: opened where they are
// used), and --strategy-params (its keys depend on --gpu-strategy; both are parsed together by
// gpu::parse_strategy, gpu/strategy.hpp, in every build).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "app/gpu_cli.hpp"  // gpu_cli_options: plain C++ (a gpu_policy and a plan_request)
#include "base/cores.hpp"
#include "base/enum_names.hpp"
#include "bound/bound_kind.hpp"
#include "gpu/strategy.hpp"
#include "search/types.hpp"

namespace pfsp {

inline int default_threads() { return usable_cores(); }

// --backend: auto (gpu where there is a device, else cpu-mt) is resolved by solve_instance.
enum class backend_choice : int { auto_ = 0, cpu = 1, cpu_mt = 2, gpu = 3 };
constexpr auto enum_names(backend_choice) {
  using e = enum_name<backend_choice>;
  return std::array{e{backend_choice::auto_, "auto"}, e{backend_choice::cpu, "cpu"},
                    e{backend_choice::cpu_mt, "cpu-mt"}, e{backend_choice::gpu, "gpu"}};
}

// --heuristic: the first incumbent; auto is NEH where improver threads run, IG elsewhere.
enum class heuristic_choice : int { auto_ = 0, ig = 1, neh = 2, none = 3 };
constexpr auto enum_names(heuristic_choice) {
  using e = enum_name<heuristic_choice>;
  return std::array{e{heuristic_choice::auto_, "auto"}, e{heuristic_choice::ig, "ig"}, e{heuristic_choice::neh, "neh"},
                    e{heuristic_choice::none, "none"}};
}

// --beam-target: what the engine's beam threads aim at (heuristic/improver.hpp, beam_plan); auto
// resolves to one of the others (app/solve_api.hpp, resolve_beam_target).
enum class beam_target : int { bisect = 0, best = 1, auto_ = 2 };
constexpr auto enum_names(beam_target) {
  using e = enum_name<beam_target>;
  return std::array{e{beam_target::auto_, "auto"}, e{beam_target::bisect, "bisect"}, e{beam_target::best, "best"}};
}

// --beam-device: where the bisecting beam's passes run (gpu/device_beam.hpp): auto (the GPU on the
// gpu backend where n >= 100, else the CPU), cpu or gpu.
enum class beam_device : int { auto_ = 0, cpu = 1, gpu = 2 };
constexpr auto enum_names(beam_device) {
  using e = enum_name<beam_device>;
  return std::array{e{beam_device::auto_, "auto"}, e{beam_device::cpu, "cpu"}, e{beam_device::gpu, "gpu"}};
}

// --dominance: swap dominance (bound/dominance.hpp) on the forward children: auto (on: every CPU
// solver, and the GPU device loop where LB1 runs in the parents kernel), on, off.
enum class dominance_mode : int { auto_ = 0, on = 1, off = 2 };
constexpr auto enum_names(dominance_mode) {
  using e = enum_name<dominance_mode>;
  return std::array{e{dominance_mode::auto_, "auto"}, e{dominance_mode::on, "on"}, e{dominance_mode::off, "off"}};
}

// The whole of `text` as an int, or nullopt (std::stoi's syntax: leading blanks and a sign
// taken); the options' numbers that also take a word (--ub, --lb2-pairs learn:K, --chunk-nodes).
std::optional<int> whole_int(const std::string& text);

// --ub: none, a makespan, or best-known (the CSV's best upper bound of a named instance, found
// by resolve_ub once the instance is loaded: solve_api.hpp).
struct ub_option {
  enum class kind : int { none = 0, makespan = 1, best_known = 2 };
  kind given = kind::none;
  int makespan = 0;  // kind::makespan: 1..2000000000
  bool operator==(const ub_option&) const = default;
};
// --ub's text ("" is none); throws input_error "--ub X: expected a makespan in 1..2000000000 or
// best-known". to_string gives it back ("" for none).
ub_option parse_ub(std::string_view text);
std::string to_string(const ub_option& ub);

// --lb2-pairs: LB2's machine pairs: all, Nabeshima's adjacent ones, the K learned by a short
// search (learn[:K]), or auto (learn on the GPU device loop, all elsewhere: solve_instance).
enum class lb2_pairs_mode : int { automatic = 0, all = 1, adjacent = 2, learn = 3 };
constexpr auto enum_names(lb2_pairs_mode) {
  using e = enum_name<lb2_pairs_mode>;
  return std::array{e{lb2_pairs_mode::automatic, "auto"}, e{lb2_pairs_mode::all, "all"},
                    e{lb2_pairs_mode::adjacent, "adjacent"}, e{lb2_pairs_mode::learn, "learn"}};
}
struct lb2_pairs_option {
  lb2_pairs_mode mode = lb2_pairs_mode::automatic;
  // learn:K's K, at least 1 (at most the instance's machine pairs: check_lb2_pairs, solve_api.hpp);
  // 0: learn's default, m-1.
  int learn = 0;
  bool operator==(const lb2_pairs_option&) const = default;
};
// --lb2-pairs' text; throws input_error "--lb2-pairs: 'X': expected ..." (CLI11's form).
// to_string gives it back ("learn:K" where K was given).
lb2_pairs_option parse_lb2_pairs(std::string_view text);
std::string to_string(const lb2_pairs_option& pairs);

// --checkpoint-format: binary (version 2) or text (version 1).
enum class checkpoint_encoding : int { binary = 0, text = 1 };
constexpr auto enum_names(checkpoint_encoding) {
  using e = enum_name<checkpoint_encoding>;
  return std::array{e{checkpoint_encoding::binary, "binary"}, e{checkpoint_encoding::text, "text"}};
}

// --bound auto: the fastest measured (docs/benchmarks.md, "The default bound by size"). LB1 on the
// CPU and the host loop. On the GPU device loop the LB1 -> LB2 chain below 200 jobs (ta021-ta030:
// about half LB1's time to proof; 50x20: the same tree share closed in a slice) and LB1 alone from
// 200 jobs, where its 3-5x node rate (and no LB2 pair learning) proves 200x10, 200x20 and 500x20
// instances sooner than the chain's tighter bound does; and LB1 alone from 100 jobs at 20-39
// machines (one H100, bench/results/2026-12-07-h100-bound-100x20: ta082-ta084 from scratch in
// 22.2 s summed against 26.3 s, five trees below fixed bounds 1.1-3.7x sooner; at 100x10 the
// chain was a little faster, at 40 and 60 machines the two were not compared).
inline constexpr int kLb1AloneFromJobs = 200;
inline constexpr int kLb1AloneAt20MachinesFromJobs = 100;
constexpr bound_kind default_bound(bool device_loop, int jobs, int machines) {
  const bool lb1_alone =
      jobs >= kLb1AloneFromJobs || (jobs >= kLb1AloneAt20MachinesFromJobs && machines >= 20 && machines < 40);
  return device_loop && !lb1_alone ? bound_kind::lb1_lb2 : bound_kind::lb1;
}

// --bound auto on the CPU solvers (cpu, cpu-mt): the LB1 -> LB2 chain over learned pairs at 20 jobs
// and up to 10 machines, LB1 elsewhere (docs/decisions/014-smaller-tree.md, one H200 host's cores,
// two threads a run: ta011-ta020 from the optimum 7.0 s in all against LB1's 16.9 s, ta017 6.3 s
// against 16.5 s; LB1 faster at 20x20 (ta030: 5.1 s against 10.0 s) and 50x10 (ta042: 4.9 s
// against 8.8 s)).
constexpr bound_kind default_cpu_bound(int jobs, int machines) {
  return jobs <= 20 && machines <= 10 ? bound_kind::lb1_lb2 : bound_kind::lb1;
}

// --dominance auto: on for the CPU solvers, off on the GPU (decision 014: at 20 machines the rule
// cut ta021-ta030's tree by 0.25 % and cost the device loop 8 % of its time).
constexpr bool default_dominance(bool gpu) { return !gpu; }

// --memo auto: MiB of memo dominance table (search/memo_table.hpp) per search thread of the CPU
// solvers, 0 for off: on up to 50 jobs and 10 machines, where it was measured faster than the swap
// rule it replaces (decision 014, sequential, the 2-core development machine: ta017 from its
// optimum 2.17 M nodes in 3.9 s against 4.65 M in 7.1 s; ta042, ta043, ta050 0.83-0.85x the
// nodes, 0.93-1.05x the time), off elsewhere (ta030, 20x20: 0.93x the nodes, 1.05x the time).
// 64 MiB a thread, 512 MiB in all at most (8 a thread at least): one table serves the threads.
constexpr int default_memo_mb(bool gpu, int jobs, int machines, int threads) {
  if (gpu || jobs > 50 || machines > 10) return 0;
  const int share = 512 / (threads > 0 ? threads : 1);
  return share > 64 ? 64 : (share < 8 ? 8 : share);
}

// `pfsp solve`'s options, with the CLI's defaults (README, "Usage").
struct solver_config {
  std::string instance_spec;
  backend_choice backend = backend_choice::auto_;
  int threads = default_threads();
  std::optional<bound_kind> bound;            // nullopt: auto (default_bound)
  lb2_pairs_option lb2_pairs;                 // --lb2-pairs (auto: learn on the GPU device loop, all elsewhere)
  int improver_threads = -1;                  // -1: auto (solve_api.cpp, engine_threads)
  double heuristic_share = -1;                // cpu-mt: share of --threads running the incumbent engine; -1: auto
  int seed = 1;                               // the incumbent engine's and the start heuristic's random seed
  int gpu_walkers = -1;                       // the engine's walkers on the GPU (gpu backend); -1: auto, 0: none
  int beam = -1;                              // engine threads of the beam search; -1: auto (engine_beam_threads)
  beam_target beam_aim = beam_target::auto_;  // --beam-target
  beam_device beam_on = beam_device::auto_;   // --beam-device
  // nullopt: the backend's default (min-min on the GPU, min-branch elsewhere) or, with --resume,
  // the checkpoint's; branch_given says whether the command line named one.
  std::optional<branching> branch;
  selection select = selection::depth_first;
  // --child-order: solution-guided by default on the CPU solvers (decision 014: ta011-ta020 and
  // ta041-ta050 from scratch on two threads in 35.5 s summed, the bound's order 46.5 s; ta042 8.2
  // against 20.4 s; sequential from NEH 0.46x the nodes, fewer on 17 of the 18 both proved); the
  // GPU backend keeps the bound's unless order_given (plan_backend, solve_api.cpp).
  child_order order = child_order::incumbent;
  dominance_mode dominance = dominance_mode::auto_;  // --dominance
  int memo_mb = -1;                                  // --memo: MiB of memo table per search thread (0: off; -1: auto)
  ub_option ub;                                      // --ub
  bool no_neh = false;
  heuristic_choice heuristic = heuristic_choice::auto_;
  int ig_iterations = -1;  // auto
  double time_limit = 0;
  double ascent = 0;            // --ascent: seconds of the first search before the lower-bound ascent (0: none)
  double estimate_seconds = 0;  // --estimate-seconds: the tree-size estimate before the search (0: none)
  long long node_limit = 0;
  std::string json;
  std::string gantt;  // --gantt FILE.svg
  std::string log;    // --log FILE: the solver log (docs/solver_log.md)
  bool quiet = false;
  bool no_progress = false;
  bool profile = false;
  bool shared_queue = false;
  std::string checkpoint;
  checkpoint_encoding checkpoint_format = checkpoint_encoding::binary;
  double checkpoint_interval = 60;
  double progress_interval = 1.0;
  std::string resume;
  gpu::gpu_strategy gpu_strategy = gpu::gpu_strategy::plain;  // validated in every build (gpu/strategy.hpp)
  std::string strategy_params;
  // Given on the command line (with --resume, those not given come from the checkpoint; without
  // branch_given, the backend's default branching is taken).
  bool bound_given = false;
  bool branch_given = false;
  bool order_given = false;
  bool ub_given = false;
  bool lb2_pairs_given = false;
  gpu_cli_options gpu;  // the GPU backend's options (registered in CUDA builds; defaults elsewhere)
};

// The name pfsp solve_api and the Python module have used for it.
using solve_args = solver_config;

}  // namespace pfsp
