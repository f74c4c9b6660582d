// pfsp_bench_solve: time to proof of the CPU solvers over a grid of instances and
// configurations (threads x bound x branching x initial upper bound), through the library API
// (the solver registry's cpu and cpu-mt entries, neh), with a time limit per run.
//
// Initial upper bound:
//   opt  the papers' protocol (Gmys et al. 2020, 6.1): prune every node whose bound is >= the
//        known optimum, so the run proves that no better schedule exists; the node count is
//        then independent of luck in finding good schedules (and of the thread count, up to
//        nothing: no leaf is ever better than the threshold).
//   neh  start from the NEH schedule only: the search must also find the optimum.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/enum_options.hpp"
#include "app/solver_registry.hpp"
#include "bench_common.hpp"
#include "bound/bound_data.hpp"
#include "heuristic/neh.hpp"
#include "problem/instance.hpp"
#include "problem/io.hpp"
#include "search/types.hpp"

namespace pfsp::bench {
namespace {

std::atomic<bool> g_interrupt{false};
extern "C" void on_sigint(int) { g_interrupt.store(true); }

struct config {
  int threads = 1;
  bound_kind bound = bound_kind::lb1;
  branching branch = branching::min_min;
  std::string ub;  // "opt" or "neh"
  std::string label() const {
    return (threads == 1 ? std::string("seq") : std::to_string(threads) + "t") + " " + std::string(to_string(bound)) +
           " " + std::string(to_string(branch)) + " ub=" + ub;
  }
};

// --config THREADS:BOUND:BRANCHING:UB; the enum parts by their names (base/enum_names.hpp).
config parse_config(const std::string& text) {
  std::vector<std::string> f;
  std::string cur;
  for (char ch : text + ":") {
    if (ch == ':') {
      f.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (f.size() != 4) throw std::invalid_argument("--config '" + text + "': expected THREADS:BOUND:BRANCHING:UB");
  return {std::stoi(f[0]), from_string<bound_kind>(f[1], "--config"), from_string<branching>(f[2], "--config"), f[3]};
}

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  using namespace pfsp;
  using namespace pfsp::bench;
  CLI::App app{"pfsp_bench_solve: time to proof of the CPU solvers over instances x configurations"};
  std::string instances = "ta001-ta030";
  std::string threads_s = "1", ub_s = "opt";
  std::vector<bound_kind> bounds{bound_kind::lb1};
  std::vector<branching> branchings{branching::min_min};
  std::vector<std::string> explicit_configs;
  double time_limit = 60;
  int repeat = 1;
  bool shared_queue = false;
  std::string json_path, commit;
  app.add_option("--instances", instances, "comma list: ta001..ta120, ranges ta001-ta030, random:N,M,SEED, files")
      ->capture_default_str();
  app.add_option("--threads", threads_s, "comma list; 1 = solve_sequential, >1 = solve_parallel")
      ->capture_default_str();
  add_enum_list_option(app, "--bound", bounds, "lower bounds");
  add_enum_list_option(app, "--branching", branchings, "branching rules");
  app.add_option("--ub", ub_s, "comma list of opt (known optimum as initial upper bound, papers' protocol), neh")
      ->capture_default_str();
  app.add_option("--config", explicit_configs,
                 "explicit configuration THREADS:BOUND:BRANCHING:UB (repeatable); replaces the grid")
      ->take_all();
  app.add_option("--time-limit", time_limit, "seconds per run (0 = none)")->capture_default_str();
  app.add_option("--repeat", repeat, "runs per (instance, configuration); times are medians")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--shared-queue", shared_queue, "multi-threaded runs use the papers' single mutex-protected queue");
  app.add_option("--json", json_path, "write the results as JSON to this file (rewritten after every run)");
  app.add_option("--commit", commit, "commit to stamp (default: the one this binary was built from)");
  CLI11_PARSE(app, argc, argv);
  std::signal(SIGINT, on_sigint);

  std::vector<config> configs;
  try {
    if (!explicit_configs.empty()) {
      for (const auto& c : explicit_configs) configs.push_back(parse_config(c));
    } else {
      for (const auto& t : split_list(threads_s))
        for (bound_kind b : bounds)
          for (branching br : branchings)
            for (const auto& u : split_list(ub_s)) configs.push_back({std::stoi(t), b, br, u});
    }
    for (const auto& c : configs) {
      if (c.ub != "opt" && c.ub != "neh") throw std::invalid_argument("unknown --ub '" + c.ub + "'");
      if (c.threads < 1) throw std::invalid_argument("threads must be >= 1");
    }
  } catch (const std::exception& e) {
    std::cerr << "pfsp_bench_solve: " << e.what() << "\n";
    return 2;
  }

  nlohmann::json out;
  out["benchmark"] = "pfsp_bench_solve";
  out["machine"] = stamp(argc, argv, commit);
  out["parameters"] = {
      {"time_limit", time_limit}, {"repeat", repeat}, {"shared_queue", shared_queue}, {"selection", "depth-first"}};
  out["results"] = nlohmann::json::array();

  table tab({"instance", "config", "status", "proven", "init ub", "nodes", "bounds", "time s", "cpu/wall", "Mnodes/s",
             "Mnodes/s/thread", "explored %"});
  std::cerr << "# " << out["machine"]["command"].get<std::string>() << "\n";

  for (const auto& name : expand_instances(instances)) {
    const instance inst = load_instance(name);
    const bound_data data(inst);
    const neh_result h = neh(inst);
    for (const auto& c : configs) {
      if (g_interrupt.load()) break;
      const bool known = inst.known && inst.known->optimal;
      if (c.ub == "opt" && !inst.known) {
        std::cerr << name << ": no known optimum, skipping " << c.label() << "\n";
        continue;
      }
      solve_options opt;
      opt.bound = c.bound;
      opt.branch = c.branch;
      opt.select = selection::depth_first;
      opt.use_neh = true;  // as the CLI: NEH is the first incumbent; --ub lowers the threshold
      if (c.ub == "opt") opt.initial_ub = inst.known->ub;
      opt.time_limit = time_limit;
      opt.threads = c.threads;
      opt.shared_queue = shared_queue;
      opt.interrupt = &g_interrupt;
      const incumbent start(h.makespan, h.schedule);
      const int init_ub = opt.initial_ub ? std::min(*opt.initial_ub, h.makespan) : h.makespan;

      // One thread: the sequential solver; more: cpu-mt (the registry's entries).
      const solver_entry& solver = *find_solver(c.threads == 1 ? "cpu" : "cpu-mt");
      std::vector<double> times, cpu_times;
      solve_result r;
      const load_average load_before = read_load();
      for (int k = 0; k < repeat; ++k) {
        const double c0 = process_cpu_seconds();
        r = solve(solver, data, opt, start);
        cpu_times.push_back(process_cpu_seconds() - c0);
        times.push_back(r.stats.total_seconds);
        if (r.status != solve_status::optimal && r.status != solve_status::proven_bound)
          break;  // do not repeat timeouts
      }
      const double t = median(times);
      const bool complete = r.status == solve_status::optimal || r.status == solve_status::proven_bound;
      // Proven: the lower bound the run proves reaches the known optimum (or, without one, the
      // search completed). Judged by the bound, not the status: cpu-mt can stop with
      // time_limit after its pools ran empty, and then its bound is the optimum.
      const bool proven = inst.known ? r.lower_bound >= inst.known->ub : complete;
      const double nps = t > 0 ? static_cast<double>(r.stats.branched) / t : 0;
      nlohmann::json rj;
      rj["instance"] = inst.name;
      rj["n"] = inst.n;
      rj["m"] = inst.m;
      rj["threads"] = c.threads;
      rj["solver"] = r.backend;
      rj["bound"] = std::string(to_string(c.bound));
      rj["branching"] = std::string(to_string(c.branch));
      rj["initial_ub_mode"] = c.ub;
      rj["initial_ub"] = init_ub;
      rj["neh"] = h.makespan;
      rj["known_optimum"] = inst.known ? nlohmann::json(inst.known->ub) : nlohmann::json(nullptr);
      rj["known_optimal"] = known;
      rj["status"] = std::string(to_string(r.status));
      rj["proven"] = proven;
      rj["complete"] = complete;
      rj["makespan"] = r.makespan;
      rj["lower_bound"] = r.lower_bound;
      rj["nodes_branched"] = r.stats.branched;
      rj["bounds"] = r.stats.bounds;
      rj["pruned"] = r.stats.pruned;
      rj["leaves"] = r.stats.leaves;
      rj["explored_fraction"] = r.stats.explored;
      rj["seconds"] = t;
      rj["seconds_runs"] = times;
      // CPU time of all threads; cpu / (wall x threads) well below 1 means the cores were shared.
      rj["cpu_seconds"] = median(cpu_times);
      rj["cpu_seconds_runs"] = cpu_times;
      rj["nodes_per_second"] = nps;
      rj["nodes_per_second_per_thread"] = nps / c.threads;
      // Per second of CPU time (all threads): the per-thread speed, less sensitive to sharing.
      rj["nodes_per_cpu_second"] =
          median(cpu_times) > 0 ? static_cast<double>(r.stats.branched) / median(cpu_times) : 0;
      rj["time_limit"] = time_limit;
      rj["load_before"] = {load_before.one, load_before.five, load_before.fifteen};
      const load_average load_after = read_load();
      rj["load_after"] = {load_after.one, load_after.five, load_after.fifteen};
      out["results"].push_back(rj);

      tab.add({inst.name, c.label(), std::string(to_string(r.status)), proven ? "yes" : "no", std::to_string(init_ub),
               std::to_string(r.stats.branched), std::to_string(r.stats.bounds), fixed(t, 3),
               fixed(t > 0 ? median(cpu_times) / (t * c.threads) : 0, 2), fixed(nps / 1e6, 3),
               fixed(nps / 1e6 / c.threads, 3), fixed(100.0 * r.stats.explored, 3)});
      std::cerr << inst.name << "  " << c.label() << "  " << to_string(r.status) << "  nodes " << r.stats.branched
                << "  " << fixed(t, 3) << " s  " << fixed(nps / 1e6, 3) << " Mnodes/s  load "
                << fixed(load_after.one, 2) << "\n";
      if (!json_path.empty()) {
        out["machine"]["load_at_end"] = {load_after.one, load_after.five, load_after.fifteen};
        write_text_atomically(json_path, out.dump(2) + "\n");
      }
    }
  }
  const load_average l = read_load();
  out["machine"]["load_at_end"] = {l.one, l.five, l.fifteen};
  out["interrupted"] = g_interrupt.load();
  std::cout << "# pfsp_bench_solve  commit " << out["machine"]["commit"].get<std::string>() << "  cpu "
            << out["machine"]["cpu"].get<std::string>() << "  gpu none  host "
            << out["machine"]["hostname"].get<std::string>() << "\n# " << out["machine"]["command"].get<std::string>()
            << "\n# depth-first; time limit " << time_limit << " s per run; nodes = nodes branched; load "
            << fixed(out["machine"]["load_at_start"][0].get<double>(), 2) << " -> " << fixed(l.one, 2) << "\n\n"
            << tab.markdown();
  if (!json_path.empty()) write_text_atomically(json_path, out.dump(2) + "\n");
  return g_interrupt.load() ? 130 : 0;
}
