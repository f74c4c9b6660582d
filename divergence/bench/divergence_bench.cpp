// pfsp_divergence_bench: the papers' workloads on the GPU, every strategy against its plain
// kernel. Prints markdown tables and writes JSON stamped with commit, GPU and command line.
//
//   suites: termination (Frey Fig. 5 left), branch (Frey Fig. 5 right), julia (Frey Fig. 7),
//           remap-kernels (Zhang 3.3: redirection vs layout, one chunk), remap-pipeline (Zhang
//           4.1/5.6: pipelined remapping with and without efficiency control), sweep (Frey's
//           parameter sweep), profile (each kernel once, small: for ncu and compute-sanitizer).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "divergence/gpu/runner.hpp"
#include "divergence/sweep.hpp"

#ifndef PFSP_GIT_COMMIT
#define PFSP_GIT_COMMIT "unknown"
#endif

namespace pfsp::divergence::bench {
namespace {

using gpu::timing_options;
using nlohmann::json;

struct row {
  std::string suite, workload, technique, params;
  double ms = 0.0, plain_ms = 0.0;
  std::string note;
};

std::string fixed(double v, int d) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(d);
  o << v;
  return o.str();
}

std::string describe(const task_pool_params& p) {
  std::string s = std::string(to_string(p.pool)) + " " + to_string(p.control);
  if (p.control == fetch_control::ballot || p.control == fetch_control::atomic)
    s += "(" + std::to_string(p.idle_threshold) + ")";
  if (p.pool != pool_kind::persistent) s += " c=" + std::to_string(p.chunk);
  if (p.check_interval > 1) s += " u=" + std::to_string(p.check_interval);
  return s;
}

class report {
 public:
  void add(row r) { rows_.push_back(std::move(r)); }
  void print(std::ostream& os) const {
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"suite", "workload", "technique", "params", "ms", "speedup", "note"});
    for (const auto& r : rows_)
      cells.push_back({r.suite, r.workload, r.technique, r.params, fixed(r.ms, 3),
                       r.plain_ms > 0 && r.ms > 0 ? fixed(r.plain_ms / r.ms, 2) + "x" : "-", r.note});
    std::vector<std::size_t> w(cells[0].size(), 0);
    for (const auto& c : cells)
      for (std::size_t i = 0; i < c.size(); ++i) w[i] = std::max(w[i], c[i].size());
    for (std::size_t k = 0; k < cells.size(); ++k) {
      os << "|";
      for (std::size_t i = 0; i < cells[k].size(); ++i)
        os << " " << cells[k][i] << std::string(w[i] - cells[k][i].size(), ' ') << " |";
      os << "\n";
      if (k == 0) {
        os << "|";
        for (std::size_t i = 0; i < w.size(); ++i) os << std::string(w[i] + 2, '-') << "|";
        os << "\n";
      }
    }
  }
  json to_json() const {
    json a = json::array();
    for (const auto& r : rows_)
      a.push_back({{"suite", r.suite},
                   {"workload", r.workload},
                   {"technique", r.technique},
                   {"params", r.params},
                   {"ms", r.ms},
                   {"plain_ms", r.plain_ms},
                   {"speedup", r.plain_ms > 0 && r.ms > 0 ? r.plain_ms / r.ms : 0.0},
                   {"note", r.note}});
    return a;
  }

 private:
  std::vector<row> rows_;
};

struct config {
  bool quick = false;
  timing_options timing;
};

// --- Frey: termination divergence ------------------------------------------------------------

// The paper's variants (a vote after every iteration), then the best ones with deferred votes
// (check_interval u = 8).
std::vector<task_pool_params> termination_techniques() {
  return {
      {pool_kind::persistent, fetch_control::all, 0, 1, 1}, {pool_kind::persistent, fetch_control::all, 0, 1, 8},
      {pool_kind::global, fetch_control::any, 1, 1, 1},     {pool_kind::global, fetch_control::ballot, 2, 4, 1},
      {pool_kind::local, fetch_control::any, 4096, 1, 1},   {pool_kind::hybrid, fetch_control::all, 32, 1, 1},
      {pool_kind::hybrid, fetch_control::any, 0, 1, 1},     {pool_kind::hybrid, fetch_control::any, 32, 1, 1},
      {pool_kind::hybrid, fetch_control::ballot, 32, 4, 1}, {pool_kind::hybrid, fetch_control::atomic, 32, 4, 1},
      {pool_kind::local, fetch_control::any, 4096, 1, 8},   {pool_kind::hybrid, fetch_control::any, 32, 1, 8},
      {pool_kind::hybrid, fetch_control::ballot, 32, 4, 8},
  };
}

void termination_suite(const std::string& suite, const std::string& name, const gpu::termination_spec& spec,
                       const config& cfg, report& rep, double persistent_baseline_note = 0) {
  (void)persistent_baseline_note;
  const double plain = gpu::run_termination(spec, std::nullopt, cfg.timing).time.median_ms;
  rep.add({suite, name, "plain", "one thread per task", plain, plain, ""});
  double persistent = 0.0;
  for (const auto& p : termination_techniques()) {
    const double ms = gpu::run_termination(spec, p, cfg.timing).time.median_ms;
    std::string note;
    if (p.pool == pool_kind::persistent && p.check_interval == 1) {
      persistent = ms;
    } else if (persistent > 0) {
      note = "vs persistent " + fixed(persistent / ms, 2) + "x";
    }
    rep.add({suite, name, p.pool == pool_kind::persistent ? "persistent threads" : "task pool", describe(p), ms, plain,
             note});
  }
}

void run_termination(const config& cfg, report& rep) {
  for (double kill : {0.1, 0.01, 0.001}) {
    gpu::mc_termination_spec spec;
    spec.tasks = cfg.quick ? 20000 : 1u << 24;  // ~60 tasks per resident thread: small tail
    spec.kill = kill;
    termination_suite("termination", "monte_carlo kill=" + fixed(kill, 3), spec, cfg, rep);
  }
}

void run_julia(const config& cfg, report& rep) {
  for (int offset : {0, 1, 2}) {
    gpu::julia_spec spec;
    spec.width = cfg.quick ? 256 : 4096;
    spec.height = cfg.quick ? 128 : 4096;
    spec.offset = offset;
    spec.crunch = cfg.quick ? 200 : 2000;
    termination_suite("julia", "julia offset=" + std::to_string(offset), spec, cfg, rep);
  }
}

// --- Frey: branch divergence ------------------------------------------------------------------

void run_branch(const config& cfg, report& rep) {
  for (double p : {0.01, 0.05, 0.2, 0.5, 0.84, 0.95}) {
    gpu::mc_branch_spec spec;
    spec.tasks = cfg.quick ? 20000 : 1u << 21;
    spec.branch = p;
    spec.outer = cfg.quick ? 20 : 50;
    spec.inner = cfg.quick ? 20 : 1000;  // the paper's inner loop; its outer loop is 1000
    const std::string name = "monte_carlo branch p=" + fixed(p, 2);
    const double plain = gpu::run_branch(spec, std::nullopt, cfg.timing).time.median_ms;
    rep.add({"branch", name, "plain", "if (draw < p) inner loop", plain, plain, ""});
    for (const context_switch_params cs : {context_switch_params{96, 1, false}, context_switch_params{160, 1, false},
                                           context_switch_params{96, 4, false}}) {
      const double ms = gpu::run_branch(spec, cs, cfg.timing).time.median_ms;
      rep.add({"branch", name, cs.vote_interval > 1 ? "context switch (deferred)" : "context switch",
               "pool=" + std::to_string(cs.pool_contexts) + " n=" + std::to_string(cs.vote_interval), ms, plain, ""});
    }
  }
}

// --- Zhang: remapping -------------------------------------------------------------------------

gpu::remap_spec gafort_spec(const config& cfg, std::uint32_t work) {
  gpu::remap_spec s;
  s.workload = gpu::remap_workload::gafort;
  s.chunk_elements = cfg.quick ? 16384 : 1u << 19;
  s.chunks = cfg.quick ? 3 : 32;  // enough chunks for the pipeline depth to settle
  s.work = work;
  return s;
}

gpu::remap_spec bs_spec(const config& cfg) {
  gpu::remap_spec s;
  s.workload = gpu::remap_workload::black_scholes;
  s.chunk_elements = cfg.quick ? 16384 : 1u << 20;
  s.chunks = cfg.quick ? 3 : 24;
  s.bs_passes = cfg.quick ? 2 : 512;  // the SDK sample's NUM_ITERATIONS
  return s;
}

void run_remap_kernels(const config& cfg, report& rep) {
  std::vector<std::pair<std::string, gpu::remap_spec>> cases;
  for (std::uint32_t work : {4u, 64u, 1024u})
    cases.push_back({"gafort work=" + std::to_string(work), gafort_spec(cfg, work)});
  cases.push_back({"black_scholes", bs_spec(cfg)});
  for (const auto& [name, spec] : cases) {
    for (gpu::remap_plan_kind kind : {gpu::remap_plan_kind::lam, gpu::remap_plan_kind::sort}) {
      const auto t = gpu::time_remap_kernels(spec, kind, cfg.timing);
      const double plain = t.plain.median_ms;
      const std::string plan = std::string(gpu::to_string(kind)) + " (T x" + fixed(t.predicted, 2) + ", " +
                               std::to_string(t.moved) + " moved, CPU " + fixed(t.plan_ms, 1) + " ms)";
      if (kind == gpu::remap_plan_kind::lam) rep.add({"remap-kernels", name, "plain", "", plain, plain, ""});
      rep.add({"remap-kernels", name, "redirection", plan, t.redirected.median_ms, plain, "kernel only"});
      rep.add({"remap-kernels", name, "layout", plan, t.layout_kernel.median_ms, plain, "kernel only"});
      rep.add({"remap-kernels", name, "layout+moves", plan, t.layout_total.median_ms, plain,
               "D[] upload, gather, kernel, scatter"});
    }
  }
}

void run_remap_pipeline(const config& cfg, report& rep) {
  struct variant {
    std::string technique;
    bool remap;
    gpu::remap_strategy strategy;
    bool control;
  };
  const std::vector<variant> variants = {
      {"plain", false, {}, true},
      {"LAM layout + control", true, {gpu::remap_plan_kind::lam, remap_mechanism::layout_transformation}, true},
      {"LAM redirection + control", true, {gpu::remap_plan_kind::lam, remap_mechanism::reference_redirection}, true},
      {"sort layout + control", true, {gpu::remap_plan_kind::sort, remap_mechanism::layout_transformation}, true},
      {"LAM layout, no control", true, {gpu::remap_plan_kind::lam, remap_mechanism::layout_transformation}, false},
      {"LAM redirection, no control", true, {gpu::remap_plan_kind::lam, remap_mechanism::reference_redirection}, false},
  };
  for (const auto& [name, spec] : {std::pair{std::string("gafort work=1024"), gafort_spec(cfg, 1024)},
                                   std::pair{std::string("black_scholes"), bs_spec(cfg)}}) {
    double plain = 0.0;
    for (const auto& v : variants) {
      pipeline_options opt;
      opt.remap = v.remap;
      opt.workers = cfg.quick ? 2 : 12;
      opt.max_depth = 12;
      opt.efficiency.enabled = v.control;
      const auto r = gpu::run_remap_pipeline(spec, v.strategy, opt);
      const double ms = 1e3 * r.report.wall_seconds;
      if (!v.remap) plain = ms;
      const std::string note = "remapped " + std::to_string(r.report.remapped) + "/" + std::to_string(spec.chunks) +
                               ", late " + std::to_string(r.report.late) + ", skipped " +
                               std::to_string(r.report.skipped) + ", depth " + std::to_string(r.report.final_depth) +
                               ", control " + to_string(r.report.final_state) + ", kernels " + fixed(r.kernel_ms, 2) +
                               " ms, moves " + fixed(r.moves_ms, 2) + " ms, drain " +
                               fixed(1e3 * r.report.drain_seconds, 1) + " ms";
      rep.add({"remap-pipeline", name, v.technique, std::to_string(spec.chunks) + " chunks", ms, plain, note});
    }
  }
}

// --- sweep ------------------------------------------------------------------------------------

json run_sweep(const config& cfg, report& rep) {
  json out = json::array();
  std::vector<std::pair<std::string, gpu::termination_spec>> cases;
  gpu::mc_termination_spec mc;
  mc.tasks = cfg.quick ? 20000 : 1u << 20;
  mc.kill = 0.01;
  cases.push_back({"monte_carlo kill=0.010", mc});
  gpu::julia_spec j;
  j.width = cfg.quick ? 256 : 1024;
  j.height = cfg.quick ? 128 : 1024;
  j.offset = 0;
  cases.push_back({"julia offset=0", j});
  sweep_grid grid;
  grid.check_intervals = {1, 8};
  if (cfg.quick) {
    grid.global_chunks = {1};
    grid.hybrid_chunks = {0, 32};
    grid.local_chunks = {256};
    grid.idle_thresholds = {1, 16};
  }
  timing_options t = cfg.timing;
  t.repeats = std::min(t.repeats, 3);
  for (const auto& [name, spec] : cases) {
    const double plain = gpu::run_termination(spec, std::nullopt, t).time.median_ms;
    const auto points =
        sweep(grid, [&](const task_pool_params& p) { return gpu::run_termination(spec, p, t).time.median_ms; });
    json pts = json::array();
    for (const auto& pt : points) pts.push_back({{"params", describe(pt.params)}, {"ms", pt.seconds}});
    out.push_back({{"workload", name}, {"plain_ms", plain}, {"points", pts}});
    // The best of each pool kind, and the worst overall, in the table.
    for (pool_kind pool : {pool_kind::global, pool_kind::local, pool_kind::hybrid, pool_kind::persistent}) {
      const auto it =
          std::find_if(points.begin(), points.end(), [&](const sweep_point& s) { return s.params.pool == pool; });
      if (it != points.end())
        rep.add({"sweep", name, std::string("best ") + to_string(pool), describe(it->params), it->seconds, plain,
                 "of " + std::to_string(points.size()) + " settings"});
    }
    rep.add({"sweep", name, "worst", describe(points.back().params), points.back().seconds, plain, ""});
  }
  return out;
}

// --- profile: each kernel once, small, for ncu and compute-sanitizer ---------------------------

void run_profile(const config& cfg, report& rep) {
  timing_options once;
  once.warmups = 0;
  once.repeats = 1;
  gpu::mc_termination_spec mc;
  mc.tasks = cfg.quick ? 20000 : 1u << 20;
  mc.kill = 0.01;
  auto add = [&](const std::string& w, const std::string& t, double ms) { rep.add({"profile", w, t, "", ms, 0, ""}); };
  add("monte_carlo", "plain", gpu::run_termination(mc, std::nullopt, once).time.median_ms);
  for (const auto& p : termination_techniques())
    add("monte_carlo", describe(p), gpu::run_termination(mc, p, once).time.median_ms);
  gpu::julia_spec j;
  j.width = cfg.quick ? 256 : 1024;
  j.height = cfg.quick ? 128 : 1024;
  add("julia", "plain", gpu::run_termination(j, std::nullopt, once).time.median_ms);
  add("julia", "hybrid any",
      gpu::run_termination(j, task_pool_params{pool_kind::hybrid, fetch_control::any, 32, 1, 1}, once).time.median_ms);
  add("julia", "hybrid any u=8",
      gpu::run_termination(j, task_pool_params{pool_kind::hybrid, fetch_control::any, 32, 1, 8}, once).time.median_ms);
  gpu::mc_branch_spec b;
  b.tasks = cfg.quick ? 20000 : 1u << 20;
  b.outer = cfg.quick ? 20 : 50;
  b.inner = cfg.quick ? 20 : 200;
  add("branch", "plain", gpu::run_branch(b, std::nullopt, once).time.median_ms);
  add("branch", "context switch", gpu::run_branch(b, context_switch_params{96, 1, false}, once).time.median_ms);
  add("branch", "context switch deferred",
      gpu::run_branch(b, context_switch_params{96, 4, false}, once).time.median_ms);
  const auto g = gpu::time_remap_kernels(gafort_spec(cfg, 64), gpu::remap_plan_kind::lam, once);
  add("gafort", "plain / redirected / layout", g.plain.median_ms + g.redirected.median_ms + g.layout_total.median_ms);
}

std::string gpu_stamp() {
  try {
    const auto d = gpu::current_device();
    return d.name + " (sm_" + std::to_string(d.major) + std::to_string(d.minor) + ", " +
           std::to_string(d.multiprocessors) + " SMs)";
  } catch (const std::exception& e) {
    return std::string("unavailable: ") + e.what();
  }
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace
}  // namespace pfsp::divergence::bench

int main(int argc, char** argv) {
  using namespace pfsp::divergence::bench;
  CLI::App app{"pfsp_divergence_bench: divergence strategies of Zhang et al. and Frey et al. on the GPU"};
  std::vector<std::string> suites{"termination", "branch", "julia", "remap-kernels", "remap-pipeline"};
  std::string json_path;
  config cfg;
  app.add_option("--suite", suites,
                 "termination, branch, julia, remap-kernels, remap-pipeline, sweep, profile (several allowed)")
      ->delimiter(',');
  app.add_flag("--quick", cfg.quick, "small sizes (smoke runs, sanitizers, profilers)");
  app.add_option("--repeats", cfg.timing.repeats, "timed repeats per measurement (median reported)");
  app.add_option("--warmups", cfg.timing.warmups, "untimed runs before the timed ones");
  app.add_option("--blocks-per-sm", cfg.timing.blocks_per_sm, "persistent grids: blocks per SM (0: occupancy)");
  app.add_option("--json", json_path, "write the results as JSON here");
  CLI11_PARSE(app, argc, argv);

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  const char* env_commit = std::getenv("PFSP_GIT_COMMIT");
  const std::string commit = env_commit && *env_commit ? env_commit : PFSP_GIT_COMMIT;
  const std::string gpu_name = gpu_stamp();
  std::cout << "# pfsp_divergence_bench  commit " << commit << "  gpu " << gpu_name << "\n# " << command << "\n\n";

  report rep;
  nlohmann::json sweeps = nlohmann::json::array();
  try {
    for (const auto& s : suites) {
      const auto t0 = std::chrono::steady_clock::now();
      if (s == "termination")
        run_termination(cfg, rep);
      else if (s == "branch")
        run_branch(cfg, rep);
      else if (s == "julia")
        run_julia(cfg, rep);
      else if (s == "remap-kernels")
        run_remap_kernels(cfg, rep);
      else if (s == "remap-pipeline")
        run_remap_pipeline(cfg, rep);
      else if (s == "sweep")
        sweeps = run_sweep(cfg, rep);
      else if (s == "profile")
        run_profile(cfg, rep);
      else
        throw std::runtime_error("unknown suite " + s);
      std::cerr << "suite " << s << ": " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                << " s\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    rep.print(std::cout);
    return 1;
  }
  rep.print(std::cout);
  if (!json_path.empty()) {
    nlohmann::json j{{"machine", {{"commit", commit}, {"gpu", gpu_name}, {"command", command}, {"utc", utc_now()}}},
                     {"rows", rep.to_json()},
                     {"sweeps", sweeps}};
    std::ofstream(json_path) << j.dump(2) << "\n";
  }
  return 0;
}
