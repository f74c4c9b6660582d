#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli.hpp"
#include "app/solver_log.hpp"
#include "app_commit.hpp"  // generated at build time: PFSP_GIT_COMMIT
#include "base/error.hpp"

namespace pfsp {

std::string git_commit() { return PFSP_GIT_COMMIT; }

int exit_code_for(solve_status s) {
  switch (s) {
    case solve_status::optimal:
    case solve_status::proven_bound:
      return exit_ok;
    case solve_status::time_limit:
      return exit_time_limit;
    case solve_status::node_limit:
      return exit_node_limit;
    case solve_status::interrupted:
      return exit_interrupted;
    case solve_status::error:
      return exit_internal;
  }
  return exit_internal;
}

namespace {

std::string human(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(v >= 100 ? 0 : 2);
  if (v >= 1e9)
    s << v / 1e9 << " G";
  else if (v >= 1e6)
    s << v / 1e6 << " M";
  else if (v >= 1e3)
    s << v / 1e3 << " k";
  else
    s << v << " ";
  return s.str();
}

// The explored share as the solver log prints it (log_percent: enough digits that it moves while
// the run does; a 200-job run's share is 1 - 1e-11 after minutes, which six digits print as 100),
// with the report's space before the percent sign.
std::string explored_text(double fraction) {
  const std::string p = log_percent(fraction);
  return p.ends_with('%') ? p.substr(0, p.size() - 1) + " %" : p;
}

// The result's lines that the solver log's summary does not carry, shared by the whole report
// (print_result) and the one beside the log (print_result_beside_log).
void print_schedule(std::ostream& out, const solve_result& r) {
  if (r.schedule.empty()) return;
  out << "schedule    ";
  for (int j : r.schedule) out << ' ' << j + 1;
  out << '\n';
}

void print_proven_bound(std::ostream& out, const solve_result& r) {
  if (r.status == solve_status::proven_bound)
    out << "note         search complete: no schedule shorter than " << r.lower_bound
        << " exists; the best schedule found is longer (the initial upper bound was not reached)\n";
}

void print_setup(std::ostream& out, const solve_stats& st) {
  if (st.setup_seconds > 0)
    out << "setup        " << std::fixed << std::setprecision(3) << st.setup_seconds
        << " s of it setting up (the devices' contexts, tables and buffers; pfsp-mpi: until its first worker "
           "asked for work); search "
        << std::max(0.0, st.total_seconds - st.setup_seconds) << " s\n"
        << std::defaultfloat;
}

void print_details(std::ostream& out, const solve_result& r, const run_info& info) {
  const auto& st = r.stats;
  if (info.context_wait_seconds > 0) {  // a GPU backend: where the fixed cost goes
    out << "wall steps   " << std::fixed << std::setprecision(3) << info.before_clock_seconds << " s before the clock";
    for (const auto& [name, seconds] : info.wall_phases) out << ", " << name << ' ' << seconds;
    out << " s\n" << std::defaultfloat;
  }
  if (st.bound_seconds > 0)
    out << "profile      bounding " << std::fixed << std::setprecision(3) << st.bound_seconds << " s ("
        << std::setprecision(1) << 100.0 * st.bound_seconds / std::max(st.total_seconds, 1e-12)
        << " % of the run; summed over threads)\n"
        << std::defaultfloat;
  for (const auto& note : r.notes) out << "note         " << note << '\n';
}

}  // namespace

void print_result(std::ostream& out, const instance& inst, const solve_options& opt, const solve_result& r,
                  const run_info& info) {
  (void)opt;
  const auto& st = r.stats;
  out << "status       " << to_string(r.status) << '\n';
  if (r.schedule.empty()) {
    out << "makespan     none found below the initial upper bound\n";
  } else {
    out << "makespan     " << r.makespan;
    if (inst.known) out << "   (best known " << inst.known->ub << (inst.known->optimal ? ", optimal" : "") << ")";
    out << '\n';
  }
  out << "lower bound  " << r.lower_bound;
  if (inst.known) out << "   (best known " << inst.known->lb << ")";
  out << '\n';
  print_proven_bound(out, r);
  if (!r.schedule.empty() && r.status != solve_status::optimal && r.status != solve_status::proven_bound &&
      r.lower_bound > 0) {
    // (makespan - lower bound) / makespan, as HiGHS and SCIP print it and the solver log does.
    const double gap = 100.0 * (r.makespan - r.lower_bound) / r.makespan;
    out << "gap          " << std::fixed << std::setprecision(2) << gap << " %\n" << std::defaultfloat;
  }
  print_schedule(out, r);
  out << "nodes        " << st.branched << " branched, " << st.bounds << " bounds, " << st.pruned << " pruned, "
      << st.leaves << " leaves\n";
  out << "explored     " << explored_text(st.explored) << "\n";
  out << "time         " << std::fixed << std::setprecision(3) << st.total_seconds << " s   ("
      << human(st.total_seconds > 0 ? static_cast<double>(st.branched) / st.total_seconds : 0.0) << "nodes/s, "
      << human(st.total_seconds > 0 ? static_cast<double>(st.bounds) / st.total_seconds : 0.0) << "bounds/s)\n"
      << std::defaultfloat;
  print_setup(out, st);
  if (info.wall_seconds > 0)
    out << "wall         " << std::fixed << std::setprecision(3) << info.wall_seconds << " s   (start heuristic "
        << info.heuristic_seconds << " s, pair learning " << info.learn_seconds << " s, search and the rest "
        << std::max(0.0, info.wall_seconds - info.heuristic_seconds - info.learn_seconds) << " s)\n"
        << std::defaultfloat;
  print_details(out, r, info);
}

void print_result_beside_log(std::ostream& out, const solve_result& r, const run_info& info) {
  out << to_string(r.status) << ' ' << (r.schedule.empty() ? 0 : r.makespan) << ' ' << r.lower_bound << '\n';
  print_schedule(out, r);
  print_proven_bound(out, r);
  print_setup(out, r.stats);
  print_details(out, r, info);
}

namespace {

nlohmann::json instance_json(const instance& inst, const run_info& info) {
  nlohmann::json i = {{"name", inst.name}, {"n", inst.n}, {"m", inst.m}};
  if (!info.instance_spec.empty()) i["spec"] = info.instance_spec;
  if (inst.known) i["best_known"] = {{"lb", inst.known->lb}, {"ub", inst.known->ub}, {"optimal", inst.known->optimal}};
  return i;
}

// The search's and the process's seconds: wall time and its phases where the caller measured them.
void add_times(nlohmann::json& j, const solve_result& r, const run_info& info) {
  j["time_seconds"] = r.stats.total_seconds;
  if (info.wall_seconds > 0) {
    j["wall_seconds"] = info.wall_seconds;
    j["heuristic_seconds"] = info.heuristic_seconds;
    j["pair_learning_seconds"] = info.learn_seconds;
    j["context_wait_seconds"] = info.context_wait_seconds;
    j["before_clock_seconds"] = info.before_clock_seconds;  // 0 from the Python API (no process start of its own)
    for (const auto& [name, seconds] : info.wall_phases) j["wall_phases"][name] = seconds;
  }
  if (r.stats.bound_seconds > 0) j["bound_seconds"] = r.stats.bound_seconds;
  if (r.stats.setup_seconds > 0) j["setup_seconds"] = r.stats.setup_seconds;
}

// Progress snapshots: global lower bound and remaining-tree estimate over time (GPU device loop).
nlohmann::json progress_json(const std::vector<progress_info>& trace) {
  nlohmann::json t = nlohmann::json::array();
  for (const progress_info& p : trace)
    t.push_back({{"elapsed", p.elapsed},
                 {"branched", p.nodes},
                 {"best", p.best},
                 {"open", p.open},
                 {"global_lb", p.global_lb},
                 {"tree_done", p.tree_done},
                 {"remaining_estimate", p.remaining},
                 {"forecast_seconds", p.forecast_seconds},
                 {"remaining_by_depth", p.remaining_by_depth}});
  return t;
}

nlohmann::json options_json(const solve_options& opt, const run_info& info) {
  return {{"backend", info.backend_opt},
          {"threads", info.threads},
          {"bound", std::string(to_string(opt.bound))},
          {"lb2_pairs", info.lb2_pairs},
          {"branching", std::string(to_string(opt.branch))},
          {"selection", std::string(to_string(opt.select))},
          {"child_order", std::string(to_string(opt.order))},
          {"dominance", opt.dominance && opt.memo_bytes == 0},
          {"memo_mib", opt.memo_bytes >> 20},
          {"initial_ub", info.initial_ub},
          {"initial_ub_source", info.initial_ub_source},
          {"time_limit", opt.time_limit},
          {"node_limit", opt.node_limit}};
}

}  // namespace

std::string result_json(const instance& inst, const solve_options& opt, const solve_result& r, const run_info& info) {
  nlohmann::json j;
  j["status"] = std::string(to_string(r.status));
  j["makespan"] = r.schedule.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.makespan);
  std::vector<int> one_based;
  for (int x : r.schedule) one_based.push_back(x + 1);
  j["schedule"] = one_based;
  j["lower_bound"] = r.lower_bound;
  j["instance"] = instance_json(inst, info);
  j["nodes"] = {{"branched", r.stats.branched},
                {"bounds", r.stats.bounds},
                {"pruned", r.stats.pruned},
                {"leaves", r.stats.leaves},
                {"swap_dominated", r.stats.dominated},
                {"memo_pruned", r.stats.memo_pruned}};
  j["explored_fraction"] = r.stats.explored;
  add_times(j, r, info);
  j["backend"] = r.backend;
  j["engine_threads"] = info.engine_threads;
  j["notes"] = r.notes;
  if (!r.trace.empty()) j["progress"] = progress_json(r.trace);
  j["options"] = options_json(opt, info);
  if (!info.resume_file.empty()) j["resumed_from"] = info.resume_file;
  if (!info.checkpoint_file.empty()) j["checkpoint"] = info.checkpoint_file;
  j["commit"] = git_commit();
  j["command"] = info.command;
  return j.dump(2) + "\n";
}

// A crash (or a second Ctrl-C) at any moment leaves either the old file or the new one: the text
// goes to a temporary file in the same directory (so rename stays within one file system), is
// flushed to the disk (fsync), and replaces `path` by rename(2), which is atomic on POSIX; the
// directory is then synced so that the rename itself survives a power loss.
void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return input_error(what + ": " + std::strerror(e));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw input_error("cannot write '" + tmp + "': " + std::strerror(errno));
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const input_error e = fail("error while writing '" + tmp + "'");
      ::close(fd);
      throw e;
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) {
    const input_error e = fail("cannot flush '" + tmp + "' to disk");
    ::close(fd);
    throw e;
  }
  if (::close(fd) != 0) throw fail("error while closing '" + tmp + "'");
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw fail("cannot rename '" + tmp + "' to '" + path + "'");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const int dfd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // best effort: some file systems refuse fsync on directories
    ::close(dfd);
  }
}

}  // namespace pfsp
