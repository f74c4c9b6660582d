#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/gantt_cli.hpp"
#include "app/options.hpp"
#include "app/output_paths.hpp"
#include "app/solve_api.hpp"
#include "app/solver_log.hpp"
#include "app/visible_devices.hpp"
#include "base/error.hpp"
#include "base/process_clock.hpp"
#include "bound/bound_data.hpp"
#include "gpu/strategy.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "search/estimator.hpp"
#include "search/expander.hpp"
#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif

namespace pfsp {
namespace {

std::string join_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

void print_header(std::ostream& out, const instance& inst) {
  out << "instance     " << inst.name << "  (" << inst.n << " jobs x " << inst.m << " machines)";
  if (inst.known)
    out << "  best known " << inst.known->ub
        << (inst.known->optimal ? " (optimal)" : " (open, lb " + std::to_string(inst.known->lb) + ")");
  out << '\n';
}

solver_log_setup log_setup(const instance& inst, const solve_options& opt, const run_info& info,
                           const std::string& backend, const solve_args& a, bool device_loop, double heuristic_seconds,
                           bool resumed) {
  solver_log_setup s;
  s.version = PFSP_VERSION;
  s.commit = git_commit();
  s.instance = inst.name;
  s.n = inst.n;
  s.m = inst.m;
  if (inst.known)
    s.best_known = std::to_string(inst.known->ub) +
                   (inst.known->optimal ? ", optimal" : ", open, lb " + std::to_string(inst.known->lb));
  s.backend = backend + (backend == "cpu-mt" || backend == "gpu" ? ", " + std::to_string(a.threads) + " threads" : "") +
              (backend == "gpu" ? (device_loop ? ", device loop" : ", host loop") : "");
  s.bound = std::string(to_string(opt.bound));
  s.lb2_pairs = info.lb2_pairs;
  s.branching = std::string(to_string(opt.branch));
  s.selection = std::string(to_string(a.select));
  std::ostringstream ub;
  if (info.initial_ub) {
    ub << info.initial_ub << " (" << info.initial_ub_source;
    if (info.initial_ub_source != "--ub" && !resumed)
      ub << ", " << std::fixed << std::setprecision(3) << heuristic_seconds << " s";
    ub << ")";
  } else {
    ub << "none";
  }
  s.initial_ub = ub.str();
  s.time_limit = opt.time_limit;
  s.node_limit = opt.node_limit;
  s.interval = opt.progress_interval;
  s.tree_estimate = device_loop;
  return s;
}

// Whether the solver log goes to stderr (its header and summary there): neither --quiet nor
// --no-progress.
bool log_on_stderr(const solve_args& a) { return !a.quiet && !a.no_progress; }

void print_resume(std::ostream& out, const solve_args& a, const search_state& resumed) {
  out << "resume       " << a.resume << ": " << resumed.open() << " open nodes, " << resumed.stats.branched
      << " nodes branched in " << std::fixed << std::setprecision(1) << resumed.stats.total_seconds << " s before"
      << (resumed.complete ? " (search complete)" : "") << '\n'
      << std::defaultfloat;
}

// The header's "options" and "resume" lines, once the start heuristic has run (hook on_start).
void print_plan(std::ostream& out, const instance& inst, const solve_args& a, const solve_plan& plan) {
  const std::string& backend = plan.backend;
  const solve_options& opt = plan.opt;
  const run_info& info = plan.info;
  const search_state* resumed = plan.resumed;
  if (log_on_stderr(a)) {  // the log's header says the instance and the options: the resume line only
    if (resumed) print_resume(out, a, *resumed);
    out << std::flush;
    return;
  }
  print_header(out, inst);
  out << "options      backend " << backend
      << (backend == "cpu-mt" ? " (" + std::to_string(a.threads) + " threads)" : "") << ", bound "
      << to_string(opt.bound) << ", branching " << to_string(opt.branch) << ", selection " << to_string(a.select)
      << ", initial ub ";
  if (info.initial_ub)
    out << info.initial_ub << " (" << info.initial_ub_source
        << (info.initial_ub_source == "--ub" || resumed
                ? std::string()
                : ", " + std::to_string(info.heuristic_seconds).substr(0, 5) + " s")
        << ")";
  else
    out << "none";
  out << '\n';
  if (resumed) print_resume(out, a, *resumed);
  out << std::flush;
}

// --estimate-seconds: the tree the search will branch from its initial upper bound, estimated by
// stratified probes over the search's own expander (same bound, pairs, branching and dominance;
// search/estimator.hpp, docs/tree_estimate.md); 0 when not asked, or with no upper bound to probe
// from, or when resumed (the tree is then a part of one).
double tree_nodes_before(const solve_plan& plan, const solve_args& a) {
  if (!(a.estimate_seconds > 0) || !plan.data || plan.info.initial_ub <= 0 || plan.resumed) return 0;
  expander ex(*plan.data, plan.opt.bound, plan.opt.branch, false, plan.opt.dominance);
  const probe_options o{.ub = plan.info.initial_ub, .slots = 64, .by_front = true};
  return estimate_tree_size(ex, o, a.estimate_seconds, static_cast<std::uint64_t>(a.seed)).mean;
}

}  // namespace

void add_solver_log_hooks(solve_hooks& hooks, const instance& inst, const solve_args& a, std::optional<solver_log>& log,
                          std::ostream* console) {
  hooks.on_checked = [&a, &log, console] { log.emplace(a.quiet || a.no_progress ? nullptr : console, a.log); };
  if ((console && !(a.quiet || a.no_progress)) || !a.log.empty())  // log->active()
    hooks.on_progress = [&log, then = hooks.on_progress](const progress_info& p) {
      log->row(p);
      if (then) then(p);
    };
  hooks.on_search = [&inst, &a, &log](const solve_plan& plan) {
    solver_log_setup s = log_setup(inst, plan.opt, plan.info, plan.backend, a, plan.device_loop,
                                   plan.info.heuristic_seconds, plan.resumed != nullptr);
    s.tree_nodes = tree_nodes_before(plan, a);
    log->header(s);
  };
}

namespace {

// The CLI's hooks into solve_instance: the solver log (docs/solver_log.md: on stderr unless
// --quiet or --no-progress, stdout having the result either way, and in full to --log FILE),
// opened once the options are checked; the header; warnings on stderr.
solve_hooks cli_hooks(const instance& inst, const solve_args& a, std::optional<solver_log>& log, std::ostream& out,
                      std::ostream& err) {
  solve_hooks hooks;
  add_solver_log_hooks(hooks, inst, a, log, &err);
  if (!a.quiet) hooks.on_start = [&out, &inst, &a](const solve_plan& plan) { print_plan(out, inst, a, plan); };
  // (print_plan's instance and options lines only without the log's header on stderr)
  hooks.on_warning = [&err](const std::string& w) { err << "pfsp: warning: " << w << '\n' << std::flush; };
  return hooks;
}

// The result on stdout, each field once (docs/cli.md, "Output"): with the solver log on stderr,
// whose header and summary say the instance, options, status, bounds, nodes and times, stdout
// has --quiet's line, the schedule and what the summary lacks; with --no-progress the whole
// report; with --quiet the one line. Then --json and --gantt.
void report_outcome(const instance& inst, const solve_args& a, const solve_outcome& o, std::ostream& out,
                    std::ostream& err) {
  const solve_options& opt = o.opt;
  const solve_result& r = o.result;
  const run_info& info = o.info;
  if (a.quiet)
    out << to_string(r.status) << ' ' << (r.schedule.empty() ? 0 : r.makespan) << ' ' << r.lower_bound << '\n';
  else if (log_on_stderr(a))
    print_result_beside_log(out, r, info);
  else
    print_result(out, inst, opt, r, info);
  if (!a.json.empty()) write_file_atomically(a.json, result_json(inst, opt, r, info));
  if (!a.gantt.empty()) {
    if (r.schedule.empty())
      err << "pfsp: warning: --gantt " << a.gantt << " not written: no schedule was found\n";
    else
      write_gantt(a.gantt, inst, r.schedule);
  }
}

// The pfsp executable on a GPU or auto backend: CUDA_VISIBLE_DEVICES narrowed to the GPUs the run
// uses, before the first CUDA call (app/visible_devices.hpp).
void narrow_devices(solve_args& a) {
#if defined(PFSP_HAVE_GPU)
  if (narrowing_visible_devices_allowed() && (a.backend == backend_choice::gpu || a.backend == backend_choice::auto_))
    a.gpu.visible = narrow_visible_devices(a.gpu);
#else
  (void)a;
#endif
}

int do_solve(const solve_args& a, const std::string& command, std::ostream& out, std::ostream& err,
             const std::atomic<bool>* interrupt) {
  gpu::parse_strategy(to_string(a.gpu_strategy), a.strategy_params);  // its errors before the instance's
  check_devices_usable(a);
  check_output_paths(a);  // --json, --gantt, --log, --checkpoint: before anything runs
  const instance inst = load_instance(a.instance_spec);
  std::optional<solver_log> log;
  const solve_hooks hooks = cli_hooks(inst, a, log, out, err);
  const double before_clock = seconds_since_process_start();
  solve_outcome o = solve_instance(inst, a, hooks, interrupt);
  o.info.command = command;
  o.info.before_clock_seconds = before_clock;
  log->summary(o.result, o.info.wall_seconds);
  report_outcome(inst, a, o, out, err);
  if (!o.checkpoint_error.empty()) throw input_error(o.checkpoint_error);
  return exit_code_for(o.result.status);
}

int do_info(const std::string& spec, std::ostream& out) {
  const instance inst = load_instance(spec);
  print_header(out, inst);
  const bound_data data(inst);
  std::vector<job_t> perm(inst.n);
  for (int j = 0; j < inst.n; ++j) perm[j] = static_cast<job_t>(j);
  expander e1(data, bound_kind::lb1, branching::forward);
  expander e2(data, bound_kind::lb2, branching::forward);
  const int lb1 = e1.root_bound(perm.data(), -1, inst.n, INT_MAX);
  const int lb2 = e2.root_bound(perm.data(), -1, inst.n, INT_MAX);
  const neh_result h = neh(inst);
  long long total = 0;
  int pmin = INT_MAX, pmax = 0;
  for (int v : inst.p) {
    total += v;
    pmin = std::min(pmin, v);
    pmax = std::max(pmax, v);
  }
  out << "times        " << pmin << " .. " << pmax << ", total " << total << '\n';
  out << "root LB1     " << lb1 << '\n';
  out << "root LB2     " << lb2 << "   (" << data.view().npairs << " machine pairs)\n";
  out << "NEH          " << h.makespan << '\n';
  if (inst.known)
    out << "best known   lb " << inst.known->lb << ", ub " << inst.known->ub
        << (inst.known->optimal ? " (optimal)" : " (open)") << '\n';
  return exit_ok;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err, const std::atomic<bool>* interrupt) {
  CLI::App app{"pfsp: exact branch-and-bound for the permutation flow-shop problem (n jobs, m machines, makespan)"};
  app.footer(
      "INSTANCE is ta001..ta120 (Taillard, generated from the seeds), random:N,M,SEED, or a file in\n"
      "Taillard's format or the OR-Library/VRF job-per-row format (detected automatically).\n"
      "Exit codes: 0 optimal (or bound proven), 1 internal error, 2 bad input or option,\n"
      "3 time limit, 4 node limit, 5 out of memory, 130 interrupted (Ctrl-C prints the best schedule and\n"
      "bound so far).");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("pfsp ") + PFSP_VERSION + " (commit " + git_commit() + ")");

  solve_args a;
  CLI::App* solve = add_solve_subcommand(app, a);

  std::string info_spec;
  auto* info = app.add_subcommand("info", "Sizes, root bounds, NEH value and best known bounds of an instance");
  info->add_option("instance", info_spec, "ta001..ta120, random:N,M,SEED, or a file")->required();

  std::string gantt_result, gantt_svg_path, gantt_instance;
  auto* gantt = app.add_subcommand("gantt", "Draw the schedule of a result (pfsp solve --json) as a Gantt chart (SVG)");
  gantt->add_option("result", gantt_result, "a result JSON written by pfsp solve --json")->required();
  gantt->add_option("-o,--output", gantt_svg_path, "the SVG file to write (atomically)")->required();
  gantt->add_option("--instance", gantt_instance,
                    "the instance (name, random:N,M,SEED or file) when the result's cannot be loaded (a file moved)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      // The help of the subcommand asked (pfsp solve --help, --help-all), once; or the version.
      out << requested_help(app, e);
      return exit_ok;
    }
    err << "pfsp: " << e.what() << "\n";
    return exit_input;
  }
  try {
    note_given_options(*solve, a);
    if (solve->parsed()) {
      narrow_devices(a);
      return do_solve(a, join_args(argc, argv), out, err, interrupt);
    }
    if (gantt->parsed()) return gantt_from_result(gantt_result, gantt_svg_path, gantt_instance, out);
    return do_info(info_spec, out);
  } catch (const input_error& e) {
    err << "pfsp: " << e.what() << "\n";
    return exit_input;
  } catch (const std::bad_alloc& e) {
    err << "pfsp: out of memory (" << e.what()
        << "): an allocation failed; give the process more memory (a ulimit -v or a batch system's limit), or "
           "ask for less (--threads, --memo, --beam, --gpu-memory)\n";
    return exit_out_of_memory;
  } catch (const std::exception& e) {
    err << "pfsp: " << e.what() << "\n";
    return exit_internal;
  }
}

}  // namespace pfsp
