// The command-line interface: `pfsp solve INSTANCE [options]`, `pfsp info INSTANCE`,
// `pfsp gantt RESULT.json -o FILE.svg`.
#pragma once

#include <atomic>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "problem/instance.hpp"
#include "search/types.hpp"

namespace pfsp {

struct solve_hooks;    // app/solve_api.hpp
struct solver_config;  // app/solver_config.hpp
using solve_args = solver_config;
class solver_log;  // app/solver_log.hpp

// Exit codes (documented in the README and `pfsp --help`).
enum exit_code : int {
  exit_ok = 0,        // optimal, or proven bound (search complete)
  exit_internal = 1,  // internal error (a bug; please report)
  exit_input = 2,     // bad option, instance name or file
  exit_time_limit = 3,
  exit_node_limit = 4,
  exit_out_of_memory = 5,  // an allocation failed (std::bad_alloc): the host's memory or a ulimit
  exit_interrupted = 130   // Ctrl-C
};

int exit_code_for(solve_status s);

// Runs the CLI. `interrupt` is set by the SIGINT handler in main.
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err, const std::atomic<bool>* interrupt);

// Human-readable and JSON reports (report.cpp).
struct run_info {
  std::string command;      // the command line
  std::string backend_opt;  // as requested
  int threads = 1;
  int initial_ub = 0;
  std::string initial_ub_source;  // "ig", "neh", "--ub", "checkpoint", "none"
  std::string resume_file;        // --resume
  std::string checkpoint_file;    // --checkpoint
  std::string instance_spec;      // as given to pfsp solve (name, random:N,M,SEED or file): `pfsp gantt` reloads it
  std::string lb2_pairs = "all";  // --lb2-pairs, and the pairs it gave ("1-2 2-3 ...", 1-based machines)
  // Time to answer as a user waits for it: from the instance loaded to the result checked, with
  // the start heuristic and the pair learning that the solver's own time (stats.total_seconds)
  // leaves out.
  double wall_seconds = 0;
  double heuristic_seconds = 0;
  double learn_seconds = 0;
  // Fixed cost (issue 21 item 5): how long the search waited for the GPU's context, created on a
  // thread meanwhile (0 without a GPU backend), and, from the CLI, the time from the process's
  // start (pfsp's static initialisation) to the solve's clock (0 from the Python API).
  double context_wait_seconds = 0;
  double before_clock_seconds = 0;
  // The wall time in steps: start (options, resume, start heuristic), pairs (learning), engine
  // (the incumbent engine's start), context (the wait above), search (the backend's solve, its
  // set-up and tear-down included), finish (the engine's stop, the schedule's check).
  std::vector<std::pair<std::string, double>> wall_phases;
  int engine_threads = 0;  // threads of the incumbent engine beside the search (0: none)
};
void print_result(std::ostream& out, const instance& inst, const solve_options& opt, const solve_result& r,
                  const run_info& info);
// The result beside the solver log (on stderr, whose summary has status, makespan, lower bound,
// gap, nodes, explored share and times): each field once, so stdout has the machine-readable line
// `status makespan lower_bound` (--quiet's), the schedule, and what the summary lacks (set-up,
// the wall steps of a GPU run, --profile, notes).
void print_result_beside_log(std::ostream& out, const solve_result& r, const run_info& info);
std::string result_json(const instance& inst, const solve_options& opt, const solve_result& r, const run_info& info);
// Writes `text` to `path` atomically (temporary file in the same directory, fsync, rename).
void write_file_atomically(const std::string& path, const std::string& text);
std::string git_commit();

// The solver log's hooks into solve_instance (docs/solver_log.md): `log` opened once the options
// are checked, on `console` (null, --quiet or --no-progress: none) and to --log FILE; its header
// when the search starts; a row per progress snapshot (chained before `hooks.on_progress`, kept).
// The caller writes log->summary when solve_instance returns. pfsp solve and the Python module.
void add_solver_log_hooks(solve_hooks& hooks, const instance& inst, const solve_args& a, std::optional<solver_log>& log,
                          std::ostream* console);

}  // namespace pfsp
