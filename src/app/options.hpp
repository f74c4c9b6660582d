// The options schema of `pfsp solve`: every search option with its default (solve_args' initial
// values), its range or set of names (from the enums' tables, base/enum_names.hpp) and its help
// text, registered into CLI11 by one function. `pfsp solve` (cli.cpp) and `pfsp-mpi`
// (src/mpi/main.cpp) both call it, so the two front ends cannot disagree on a name, a default or
// a range; tests/test_options.cpp enumerates both and checks it.
#pragma once

#include <string>
#include <vector>

#include "app/solve_api.hpp"

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace pfsp {

// The help groups of `pfsp solve`'s and pfsp-mpi's options, in the order --help lists them. A new
// option goes into the group its user looks in; options only benchmarking or tuning needs go into
// `tuning`, which only --help-all lists.
namespace help_group {
inline constexpr const char* search = "What to solve and how";
inline constexpr const char* engine = "Incumbent engine (heuristics beside the search)";
inline constexpr const char* outputs = "Limits and outputs";
inline constexpr const char* checkpoints = "Checkpoints";
inline constexpr const char* gpu = "GPU";
inline constexpr const char* devices = "Several GPUs";
inline constexpr const char* distributed = "Distributed (pfsp-mpi)";
inline constexpr const char* tuning = "Benchmarking and tuning (--help-all)";
inline constexpr const char* mpi_refused = "Not supported by pfsp-mpi (refused when given; --help-all)";
}  // namespace help_group

// Gives `app` the grouped help: the groups above in their order, `tuning` and `mpi_refused` only
// with --help-all (which this adds), and a footer line pointing at --help-all.
void use_grouped_help(CLI::App& app);

// The text to print for a parse "error" that is a request (--help, --help-all, --version), or ""
// for a real error. `app` is the top-level app (its help delegates to the subcommand given).
std::string requested_help(const CLI::App& app, const CLI::ParseError& e);

// Registers INSTANCE and every `pfsp solve` option into `app`, each in its help group, bound to `a`'s fields; `a`'s
// values when called are the defaults shown. CUDA builds add the GPU backend's options
// (gpu_cli.hpp).
void register_solve_options(CLI::App& app, solve_args& a);

// `pfsp solve`: the subcommand of `app` with register_solve_options (cli.cpp's, and the tests').
CLI::App* add_solve_subcommand(CLI::App& app, solve_args& a);

// After app.parse(): sets a's *_given flags (the options given on the command line, which
// solve_instance tells from defaults: with --resume, those not given come from the checkpoint).
void note_given_options(const CLI::App& app, solve_args& a);

// The names of the GPU backend's options (--gpu-strategy, --strategy-params and, in CUDA builds,
// gpu_cli.hpp's), registered by register_solve_options; pfsp-mpi refuses them but --devices.
const std::vector<std::string>& gpu_backend_options();

// --devices given where no GPU would search: an input_error naming it (with --backend cpu or
// cpu-mt, or auto on a machine without a CUDA device) instead of a run on the CPU. Asks the CUDA
// driver: call it after CUDA_VISIBLE_DEVICES is set (app/visible_devices.hpp).
void check_devices_usable(const solve_args& a);

// pfsp-mpi's own options: how rank 0 cuts the frontier (docs/distributed.md).
struct distributed_args {
  long long frontier_per_worker = 64;  // frontier nodes built on rank 0 per worker rank
  long long chunk_nodes = 0;           // frontier nodes a chunk; 0: auto (dist::default_chunk_nodes)
  std::string local_backend;           // --local-backend, the older name of --backend under pfsp-mpi
  double split_after = 1.0;            // seconds before a running chunk may be asked back (-1: never)
  std::string ranks_join = "at-once";  // at-once: every worker from the start; lazy: one worker first,
                                       // the others after split_after (docs/distributed.md)
  double worker_timeout = 30.0;        // seconds without a heartbeat before a worker counts as lost
  bool devices_local = false;          // --devices local (CUDA builds): the node's devices shared by its ranks
};

// pfsp-mpi's whole configuration: the search options of `pfsp solve` and the distributed ones.
struct mpi_args {
  solve_args solve;
  distributed_args dist;
};

// A `pfsp solve` option that pfsp-mpi registers (same name, default and check, so that the two
// front ends cannot drift apart) but refuses when given, and why.
struct unsupported_option {
  std::string name;
  std::string why;
};
const std::vector<unsupported_option>& mpi_unsupported_options();

// pfsp-mpi's options: register_solve_options, the options of mpi_unsupported_options and the GPU
// backend's but --devices moved into the help group help_group::mpi_refused, and the distributed
// ones.
void register_mpi_options(CLI::App& app, mpi_args& a);

// After app.parse(): note_given_options, --local-backend into --backend, and an input_error
// naming the first unsupported option given.
void check_mpi_options(const CLI::App& app, mpi_args& a);

}  // namespace pfsp
