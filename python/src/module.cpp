// pfsp._core: the nanobind module under the Python package `pfsp` (python/pfsp/__init__.py).
// It binds the instance loaders of src/problem and the solve pipeline of src/app/solve_api, the
// same function `pfsp solve` calls; the Python layer turns its JSON result into pfsp.Result.
//
// Threads: solve() runs solve_instance on a worker thread and waits on the calling thread with
// the GIL released, waking every poll interval (and at each progress snapshot) to take the GIL,
// call the progress callback and PyErr_CheckSignals. A Python exception there (KeyboardInterrupt
// from Ctrl-C, or one raised by the callback) sets the solver's stop flag; the call waits for the
// search to stop (it polls the flag every few milliseconds) and re-raises it. The worker thread
// never touches a Python object.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "app/cli.hpp"
#include "app/options.hpp"
#include "app/output_paths.hpp"
#include "app/solve_api.hpp"
#include "app/solver_log.hpp"
#include "base/error.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "problem/taillard.hpp"
#include "report/gantt.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace pfsp {
namespace {

// What solve() returns: the instance and the outcome, from which the Python layer reads the
// JSON report (the same text `pfsp solve --json` writes).
struct py_outcome {
  instance inst;
  solve_outcome outcome;
  std::vector<std::string> warnings;

  std::string json() const { return result_json(inst, outcome.opt, outcome.result, outcome.info); }
};

nb::dict progress_dict(const progress_info& p) {
  nb::dict d;
  d["elapsed"] = p.elapsed;
  d["nodes"] = p.nodes;
  d["best"] = p.best;
  d["open"] = p.open;
  d["explored"] = p.explored;
  d["lower_bound"] = p.global_lb >= 0 ? nb::cast(p.global_lb) : nb::none();
  d["tree_done"] = p.tree_done >= 0 ? nb::cast(p.tree_done) : nb::none();
  d["forecast_seconds"] = p.forecast_seconds >= 0 ? nb::cast(p.forecast_seconds) : nb::none();
  return d;
}

std::string outcome_gantt(const py_outcome& o, const std::string& title, int width, bool critical) {
  if (o.outcome.result.schedule.empty()) throw input_error("no Gantt chart: no schedule was found");
  gantt_options g;
  g.title = title;
  g.width = width;
  g.critical = critical;
  return gantt_svg(o.inst, o.outcome.result.schedule, g);
}

// The options of `pfsp solve` as the registry holds them (app/options.hpp, register_solve_options:
// the CLI's names, help groups, defaults and help text), one dict each in --help-all's order; the
// Python layer takes its keywords from it (name without "--", "-" as "_").
nb::list solve_option_table() {
  CLI::App app;
  solve_args a;
  register_solve_options(app, a);
  nb::list out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional() || o == app.get_help_ptr() || o == app.get_help_all_ptr()) continue;
    nb::dict d;
    d["name"] = o->get_name();
    d["flag"] = o->get_expected_min() == 0;
    d["group"] = o->get_group();
    d["default"] = o->get_default_str();
    d["help"] = o->get_description();
    out.append(d);
  }
  return out;
}

// `pfsp solve INSTANCE ARGS` parsed by the CLI's own parser into a solve_args: the same checks and
// messages (a bad value is pfsp.InputError with the text `pfsp` prints after "pfsp: ").
solve_args parse_solve_args(const std::string& spec, const std::vector<std::string>& args) {
  CLI::App app{"pfsp"};
  solve_args a;
  CLI::App* solve = add_solve_subcommand(app, a);
  std::vector<std::string> all{"pfsp", "solve"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back("--");
  all.push_back(spec);
  std::vector<char*> argv;
  for (std::string& s : all) argv.push_back(s.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    throw input_error(e.what());
  }
  note_given_options(*solve, a);
  return a;
}

py_outcome solve(const instance& inst, const solve_args& a, const std::string& command, const std::string& spec,
                 nb::object progress, double poll_seconds) {
  check_solve_args(a);
  check_output_paths(a);  // --json, --gantt, --log, --checkpoint: before anything runs
  check_devices_usable(a);
  struct shared_state {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::optional<progress_info> pending;  // the latest snapshot not yet given to the callback
    std::vector<std::string> warnings;
  } st;
  std::atomic<bool> stop{false};
  solve_hooks hooks;
  if (!progress.is_none())
    hooks.on_progress = [&st](const progress_info& p) {
      {
        std::lock_guard lock(st.m);
        st.pending = p;
      }
      st.cv.notify_one();
    };
  std::optional<solver_log> log;  // --log FILE (never on the console from Python)
  add_solver_log_hooks(hooks, inst, a, log, nullptr);
  hooks.on_warning = [&st](const std::string& w) {
    std::lock_guard lock(st.m);
    st.warnings.push_back(w);
  };

  py_outcome out{inst, {}, {}};
  std::exception_ptr failure;
  std::optional<nb::python_error> raised;  // from the callback or a signal handler
  const auto poll = std::chrono::duration<double>(poll_seconds);
  {
    std::thread worker([&] {
      try {
        out.outcome = solve_instance(out.inst, a, hooks, &stop);
      } catch (...) {
        failure = std::current_exception();
      }
      {
        std::lock_guard lock(st.m);
        st.done = true;
      }
      st.cv.notify_one();
    });
    for (;;) {
      bool finished = false;
      std::optional<progress_info> p;
      {
        nb::gil_scoped_release release;
        std::unique_lock lock(st.m);
        st.cv.wait_for(lock, poll, [&] { return st.done || st.pending.has_value(); });
        finished = st.done;
        p.swap(st.pending);
      }
      if (!raised) {
        try {
          if (p) progress(progress_dict(*p));
          if (PyErr_CheckSignals() != 0) throw nb::python_error();
        } catch (nb::python_error& e) {
          raised.emplace(std::move(e));
          stop.store(true);
        }
      }
      if (finished) break;
    }
    nb::gil_scoped_release release;
    worker.join();
  }
  out.warnings = std::move(st.warnings);
  if (raised) {
    // The partial result (status interrupted) rides on the exception when the search got that far.
    if (!failure) {
      try {
        out.outcome.info.command = command;
        out.outcome.info.instance_spec = spec;
        nb::setattr(raised->value(), "_pfsp_outcome", nb::cast(std::move(out)));
      } catch (...) {
        // An exception object without a __dict__: raised without the result.
      }
    }
    throw std::move(*raised);
  }
  if (failure) std::rethrow_exception(failure);
  if (log) log->summary(out.outcome.result, out.outcome.info.wall_seconds);
  out.outcome.info.command = command;
  out.outcome.info.instance_spec = spec;  // empty for a matrix: the JSON then names no spec
  return out;
}

instance from_times(const std::string& name, int n, int m, const std::vector<long long>& times) {
  check_sizes(n, m, name, 0);
  instance inst;
  inst.name = name;
  inst.n = n;
  inst.m = m;
  inst.p.reserve(times.size());
  const int limit = time_limit(n, m);
  for (std::size_t i = 0; i < times.size(); ++i) {
    // Checked here in 64 bits (a Python int may not fit an int), with validate()'s message.
    const long long t = times[i];
    if (t < 1 || t > limit)
      throw file_error(name, 0,
                       "processing time of job " + std::to_string(i % n + 1) + " on machine " +
                           std::to_string(i / n + 1) + " must be an integer in 1.." + std::to_string(limit) + ", got " +
                           std::to_string(t));
    inst.p.push_back(static_cast<int>(t));
  }
  validate(inst, name);
  return inst;
}

}  // namespace
}  // namespace pfsp

NB_MODULE(_core, mod) {
  using namespace pfsp;
  mod.doc() = "pfsp's C++ core (nanobind); use the package pfsp";

  // pfsp::error -> pfsp.Error (RuntimeError); pfsp::input_error -> pfsp.InputError (also a
  // ValueError), with the messages `pfsp` prints after "pfsp: ".
  static nb::object error_type = nb::steal(PyErr_NewException("pfsp.Error", PyExc_RuntimeError, nullptr));
  static nb::object input_error_type = nb::steal(
      PyErr_NewException("pfsp.InputError", nb::make_tuple(error_type, nb::handle(PyExc_ValueError)).ptr(), nullptr));
  mod.attr("Error") = error_type;
  mod.attr("InputError") = input_error_type;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const input_error& e) {
      PyErr_SetString(input_error_type.ptr(), e.what());
    } catch (const error& e) {
      PyErr_SetString(error_type.ptr(), e.what());
    }
  });

  nb::class_<instance>(mod, "Instance")
      .def_static("load", &load_instance, "spec"_a)
      .def_static(
          "taillard",
          [](const std::string& name) {
            if (!find_taillard(name))
              throw input_error("unknown instance name '" + name + "' (Taillard's instances are ta001 .. ta120)");
            return taillard_instance(name);
          },
          "name"_a)
      .def_static("from_file", &read_instance_file, "path"_a)
      .def_static("from_times", &from_times, "name"_a, "n"_a, "m"_a, "times"_a)
      .def_ro("name", &instance::name)
      .def_ro("n", &instance::n)
      .def_ro("m", &instance::m)
      .def_ro("p", &instance::p)
      .def_prop_ro("best_known",
                   [](const instance& inst) -> nb::object {
                     if (!inst.known) return nb::none();
                     nb::dict d;
                     d["lb"] = inst.known->lb;
                     d["ub"] = inst.known->ub;
                     d["optimal"] = inst.known->optimal;
                     return d;
                   })
      .def(
          "makespan",
          [](const instance& inst, const std::vector<int>& one_based) {
            std::vector<int> s;
            s.reserve(one_based.size());
            for (int j : one_based) s.push_back(j - 1);
            try {
              return evaluate_schedule(inst, s);
            } catch (const input_error&) {
              throw;
            } catch (const error& e) {
              throw input_error(std::string(e.what()) + " (1-based jobs 1.." + std::to_string(inst.n) + " expected)");
            }
          },
          "schedule"_a);

  // The options of a solve, parsed from `pfsp solve`'s command line (parse_solve_args).
  nb::class_<solve_args>(mod, "SolveArgs")
      .def_static("parse", &parse_solve_args, "spec"_a, "args"_a)
      .def_rw("instance_spec", &solve_args::instance_spec)
      .def_ro("json", &solve_args::json)
      .def_ro("gantt", &solve_args::gantt);

  nb::class_<py_outcome>(mod, "Outcome")
      .def("json", &py_outcome::json)
      .def("gantt_svg", &outcome_gantt, "title"_a, "width"_a, "critical"_a)
      .def_ro("warnings", &py_outcome::warnings)
      .def_prop_ro("exit_code", [](const py_outcome& o) { return exit_code_for(o.outcome.result.status); });

  mod.def("solve", &solve, "instance"_a, "args"_a, "command"_a, "spec"_a, "progress"_a.none(), "poll_seconds"_a = 0.05);
  mod.def("write_file_atomically", &write_file_atomically, "path"_a, "text"_a);
  mod.def("solve_options", &solve_option_table);
  mod.def("version", [] { return std::string(PFSP_VERSION); });
  mod.def("default_threads", &default_threads);
  mod.def("time_limit", &time_limit, "n"_a, "m"_a);
  mod.def("gpu_built", [] {
#if defined(PFSP_HAVE_GPU)
    return true;
#else
    return false;
#endif
  });
  mod.def("gpu_available", [] {
#if defined(PFSP_HAVE_GPU)
    return gpu_cli_available();
#else
    return false;
#endif
  });
  mod.def("commit", &git_commit);
}
