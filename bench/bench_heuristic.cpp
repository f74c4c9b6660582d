// pfsp_bench_heuristic: the incumbent engine alone (heuristic/improver.hpp), as it runs beside the
// branch-and-bound: T walker threads from NEH for S seconds per instance, R repetitions with
// different seeds. Prints a markdown table (makespan, relative deviation from Taillard's best
// known, time to the last improvement, rounds) and the mean deviation per size class, and writes
// JSON (stamped) for bench/results_page.py.
//   pfsp_bench_heuristic --instances ta081-ta090 --seconds 20 --threads 2 --json out.json
// With --pass-widths, one beam pass per width instead (heuristic/beam.hpp on --threads CPU threads
// and, in CUDA builds with a device, gpu/device_beam.hpp), its target Taillard's best known plus
// --pass-slack percent: the seconds of each, the speed-up and whether both returned the same
// schedule (exit 1 if not).
//   pfsp_bench_heuristic --instances ta081,ta101,ta111 --pass-widths 256,4096,65536 --pass-slack 1
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

#include "app/solve_api.hpp"
#include "bench_common.hpp"
#include "bound/bound_data.hpp"
#include "heuristic/improver.hpp"
#if defined(PFSP_HAVE_GPU)
#include "gpu/bounder.hpp"
#include "gpu/device_beam.hpp"
#include "gpu/walkers.hpp"
#endif
#include "heuristic/neh.hpp"
#include "problem/io.hpp"

namespace {

// The machine stamp with the GPU this benchmark used (bench::stamp says "none": the shared stamp is
// the CPU benchmarks').
nlohmann::json stamp_with_gpu(int argc, char** argv, bool used_gpu) {
  nlohmann::json m = pfsp::bench::stamp(argc, argv);
#if defined(PFSP_HAVE_GPU)
  if (used_gpu && pfsp::gpu::device_count() > 0) m["gpu"] = pfsp::gpu::query_device(0).name;
#else
  (void)used_gpu;
#endif
  return m;
}

using namespace pfsp;
using clock_type = std::chrono::steady_clock;

struct run_record {
  std::string name;
  int n = 0, m = 0, seed = 0, neh = 0, value = 0, best_known = 0;
  double last_improvement = 0, deviation = 0;
  std::uint64_t rounds = 0, gpu_rounds = 0;
  int beam_width = 0, beam_improvements = 0;
  concurrent_improver::elite_stats elite;
};

// One run: the engine from NEH until `seconds` have passed, sampling its best every 10 ms.
// --beam-target: best, bisect (no prover: the lower bound stays the root bound) or probe (bisect
// with pfsp's prover, the sequential branch-and-bound with the chained bound over all pairs).
run_record run_one(const std::string& name, double seconds, int threads, int gpu_walkers, int beam, int seed,
                   const walk_options& walk, const std::string& target) {
  const instance inst = load_instance(name);
  run_record r;
  r.name = name;
  r.n = inst.n;
  r.m = inst.m;
  r.seed = seed;
  r.best_known = inst.known ? inst.known->ub : 0;
  const auto t0 = clock_type::now();
  const neh_result h = neh(inst);
  r.neh = h.makespan;
  const bound_data data(inst);
  beam_plan plan =
      engine_beam_plan(data, bound_kind::lb1_lb2, target == "best" ? beam_target::best : beam_target::bisect);
  if (target == "bisect") plan.prove_below = {};
  concurrent_improver engine(inst, h.schedule, threads, static_cast<std::uint32_t>(seed), walk, beam, plan);
#if defined(PFSP_HAVE_GPU)
  std::unique_ptr<gpu::gpu_walkers> on_gpu;
  if (gpu_walkers != 0)
    on_gpu = std::make_unique<gpu::gpu_walkers>(
        inst, 0, std::max(0, gpu_walkers), static_cast<std::uint64_t>(seed),
        gpu::walker_hooks{[&] { return engine.best_value(); }, [&] { return engine.best_schedule(); },
                          [&](const std::vector<int>& s) { engine.publish_external(s); }});
#else
  if (gpu_walkers != 0) throw std::runtime_error("--gpu-walkers: this build has no CUDA");
#endif
  int last = engine.best_value();
  while (true) {
    const double t = std::chrono::duration<double>(clock_type::now() - t0).count();
    if (t >= seconds) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (engine.best_value() < last) {
      last = engine.best_value();
      r.last_improvement = std::chrono::duration<double>(clock_type::now() - t0).count();
    }
  }
#if defined(PFSP_HAVE_GPU)
  if (on_gpu) {
    on_gpu->stop();
    r.gpu_rounds = on_gpu->rounds();
  }
#endif
  engine.stop();
  r.beam_width = engine.beam_width();
  r.beam_improvements = engine.beam_improvements();
  r.elite = engine.elite();
  r.value = evaluate_schedule(inst, engine.best_schedule());
  r.rounds = engine.rounds();
  if (r.best_known > 0) r.deviation = 100.0 * (r.value - r.best_known) / r.best_known;
  return r;
}

std::string size_class(const run_record& r) { return std::to_string(r.n) + "x" + std::to_string(r.m); }

void print_summary(const std::vector<run_record>& runs) {
  std::map<std::string, std::pair<double, int>> by_class;
  for (const auto& r : runs) {
    auto& [sum, count] = by_class[size_class(r)];
    sum += r.deviation;
    ++count;
  }
  bench::table t({"class", "runs", "mean deviation %"});
  for (const auto& [cls, v] : by_class) t.add({cls, std::to_string(v.second), bench::fixed(v.first / v.second, 3)});
  std::cout << '\n' << t.markdown();
}

nlohmann::json to_json(const run_record& r) {
  return {{"instance", r.name},
          {"n", r.n},
          {"m", r.m},
          {"seed", r.seed},
          {"neh", r.neh},
          {"makespan", r.value},
          {"best_known", r.best_known},
          {"deviation_percent", r.deviation},
          {"last_improvement_s", r.last_improvement},
          {"rounds", r.rounds},
          {"gpu_rounds", r.gpu_rounds},
          {"beam_width", r.beam_width},
          {"beam_improvements", r.beam_improvements},
          {"elite_size", r.elite.size},
          {"elite_mean_distance", r.elite.mean_distance},
          {"elite_accepted", r.elite.accepted},
          {"elite_restarts", r.elite.restarts}};
}

struct pass_record {
  std::string name;
  int width = 0, target = 0, cpu_value = 0, gpu_value = 0;  // value 0: the pass found none
  double cpu_seconds = 0, gpu_seconds = -1;                 // -1: no GPU pass
  bool same = true;
};

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// One pass per width on the CPU and, where a device is, on the GPU, for a makespan of at most
// Taillard's best known plus `slack` percent.
std::vector<pass_record> time_passes(const std::string& name, const std::vector<int>& widths, int threads,
                                     double slack) {
  const instance inst = load_instance(name);
  if (!inst.known) throw std::runtime_error(name + ": --pass-widths needs an instance with a best known makespan");
  beam_search cpu(inst, beam_options{.threads = std::max(1, threads)});
#if defined(PFSP_HAVE_GPU)
  std::unique_ptr<gpu::device_beam> device;
  if (gpu::device_count() > 0) device = std::make_unique<gpu::device_beam>(inst, 0);
#endif
  std::vector<pass_record> out;
  for (const int width : widths) {
    pass_record r{name, width, static_cast<int>(inst.known->ub * (1 + slack / 100)) + 1};
    auto t0 = clock_type::now();
    const std::vector<int> c = cpu.pass(width, r.target, nullptr);
    r.cpu_seconds = seconds_since(t0);
    r.cpu_value = c.empty() ? 0 : evaluate_schedule(inst, c);
#if defined(PFSP_HAVE_GPU)
    if (device) {
      t0 = clock_type::now();
      const std::vector<int> g = device->pass(width, r.target, nullptr);
      r.gpu_seconds = seconds_since(t0);
      r.gpu_value = g.empty() ? 0 : evaluate_schedule(inst, g);
      r.same = g == c;
    }
#endif
    out.push_back(r);
    std::fprintf(stderr, "%s width %d: cpu %.3f s, gpu %.3f s\n", name.c_str(), width, r.cpu_seconds, r.gpu_seconds);
  }
  return out;
}

int run_pass_timing(const std::string& instances, const std::vector<int>& widths, int threads, double slack,
                    const std::string& json_path, int argc, char** argv) {
  std::vector<pass_record> all;
  pfsp::bench::table t({"instance", "width", "target", "CPU s", "GPU s", "speed-up", "found (CPU)", "same schedule"});
  for (const auto& name : pfsp::bench::expand_instances(instances))
    for (const pass_record& r : time_passes(name, widths, threads, slack)) {
      all.push_back(r);
      const bool gpu = r.gpu_seconds >= 0;
      t.add({r.name, std::to_string(r.width), std::to_string(r.target), pfsp::bench::fixed(r.cpu_seconds, 3),
             gpu ? pfsp::bench::fixed(r.gpu_seconds, 3) : "-",
             gpu && r.gpu_seconds > 0 ? pfsp::bench::fixed(r.cpu_seconds / r.gpu_seconds, 1) + "x" : "-",
             r.cpu_value ? std::to_string(r.cpu_value) : "none", gpu ? (r.same ? "yes" : "NO") : "-"});
    }
  std::cout << t.markdown();
  if (!json_path.empty()) {
    nlohmann::json j;
    j["benchmark"] = "pfsp_bench_heuristic";
    const bool used_gpu = std::any_of(all.begin(), all.end(), [](const pass_record& r) { return r.gpu_seconds >= 0; });
    j["machine"] = stamp_with_gpu(argc, argv, used_gpu);
    j["config"] = {{"mode", "passes"}, {"threads", threads}, {"widths", widths}, {"slack_percent", slack}};
    for (const auto& r : all)
      j["passes"].push_back({{"instance", r.name},
                             {"width", r.width},
                             {"target", r.target},
                             {"cpu_seconds", r.cpu_seconds},
                             {"gpu_seconds", r.gpu_seconds},
                             {"cpu_makespan", r.cpu_value},
                             {"gpu_makespan", r.gpu_value},
                             {"same_schedule", r.same}});
    pfsp::bench::write_text_atomically(json_path, j.dump(1) + "\n");
  }
  for (const auto& r : all)
    if (!r.same) return 1;  // the GPU pass must return the CPU pass's schedule
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pfsp_bench_heuristic: the incumbent engine (iterated-greedy walkers) alone"};
  std::string instances = "ta081-ta090", json_path;
  double seconds = 10;
  int threads = 1, reps = 1, seed = 1, gpu_walkers = 0, beam = 0;
  pfsp::walk_options walk;
  app.add_option("--instances", instances, "instances, e.g. ta081-ta090,ta111");
  app.add_option("--seconds", seconds, "seconds per run")->check(CLI::Range(0.01, 1e6));
  app.add_option("--threads", threads, "CPU walker threads")->check(CLI::Range(0, 1024));
  app.add_option("--gpu-walkers", gpu_walkers, "GPU walkers on device 0 (-1: two per multiprocessor; CUDA builds)")
      ->check(CLI::Range(-1, 1000000));
  app.add_option("--beam", beam,
                 "how many of the --threads run the bidirectional iterative beam search (heuristic/beam.hpp)")
      ->check(CLI::Range(0, 1024));
  std::string target = "probe";
  app.add_option("--beam-target", target,
                 "the beam's targets: probe (bisected, the lower bound raised by the sequential branch-and-bound: "
                 "pfsp solve's default), bisect (bisected, the root bound only) or best (the engine's best)")
      ->check(CLI::IsMember({"probe", "bisect", "best"}))
      ->capture_default_str();
  app.add_option("--reps", reps, "runs per instance (seeds seed, seed+1, ...)")->check(CLI::Range(1, 1000));
  app.add_option("--seed", seed, "first seed")->check(CLI::Range(0, 1 << 30));
  app.add_option("--destruct", walk.destruct, "jobs removed per round")->check(CLI::Range(1, 1000));
  app.add_option("--temperature", walk.temperature, "acceptance temperature factor")->check(CLI::Range(0.0, 100.0));
  app.add_option("--partial-ls", walk.partial_ls, "local search on the partial solution (0/1)");
  app.add_option("--random-ties", walk.random_ties, "random tie-breaking and sideways moves (0/1)");
  app.add_option("--idle-ties", walk.idle_ties, "ties broken first by the idle time the inserted job meets (0/1)");
  app.add_option(
      "--restart-rounds", walk.restart_rounds,
      "rounds without its own improvement before a CPU walker restarts from the engine's best (-1 auto, 0 never)");
  app.add_option("--elite", walk.elite,
                 "elite pool size E: stagnant CPU walkers restart from a member chosen by tournament "
                 "(heuristic/elite_pool.hpp; 0: from the engine's best)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--elite-distance", walk.elite_distance,
                 "least insertion distance between two elite members (-1: auto, max(destruct, n/10))")
      ->check(CLI::Range(-1, 100000));
  app.add_option("--relink", walk.relink, "with --elite: restart from a path-relinking child of two members (0/1)");
  app.add_option("--json", json_path, "write the results as JSON");
  std::vector<int> pass_widths;
  app.add_option("--pass-widths", pass_widths,
                 "time one beam pass per width (CPU on --threads, GPU where there is one) at the best known + 1 "
                 "instead of running the engine")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 22));
  double slack = 0;
  app.add_option("--pass-slack", slack,
                 "with --pass-widths: the passes' target is the best known plus this percent (0: a schedule at "
                 "the best known or better; a few percent: passes that reach the leaves)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    if (!pass_widths.empty()) return run_pass_timing(instances, pass_widths, threads, slack, json_path, argc, argv);
    std::vector<run_record> runs;
    pfsp::bench::table t({"instance", "seed", "NEH", "makespan", "best known", "dev %", "last impr. s", "rounds",
                          "GPU rounds", "beam width", "beam impr.", "elite dist."});
    for (const auto& name : pfsp::bench::expand_instances(instances)) {
      for (int r = 0; r < reps; ++r) {
        runs.push_back(run_one(name, seconds, threads, gpu_walkers, beam, seed + r, walk, target));
        const auto& x = runs.back();
        t.add({x.name, std::to_string(x.seed), std::to_string(x.neh), std::to_string(x.value),
               std::to_string(x.best_known), pfsp::bench::fixed(x.deviation, 3),
               pfsp::bench::fixed(x.last_improvement, 2), std::to_string(x.rounds), std::to_string(x.gpu_rounds),
               std::to_string(x.beam_width), std::to_string(x.beam_improvements),
               pfsp::bench::fixed(x.elite.mean_distance, 1)});
        std::fprintf(stderr, "%s seed %d: %d (%.3f %%)\n", x.name.c_str(), x.seed, x.value, x.deviation);
      }
    }
    std::cout << t.markdown();
    print_summary(runs);
    if (!json_path.empty()) {
      nlohmann::json j;
      j["benchmark"] = "pfsp_bench_heuristic";
      j["machine"] = stamp_with_gpu(argc, argv, gpu_walkers != 0);
      j["config"] = {{"seconds", seconds},
                     {"threads", threads},
                     {"gpu_walkers", gpu_walkers},
                     {"beam", beam},
                     {"beam_target", target},
                     {"destruct", walk.destruct},
                     {"temperature", walk.temperature},
                     {"partial_ls", walk.partial_ls},
                     {"random_ties", walk.random_ties},
                     {"idle_ties", walk.idle_ties},
                     {"restart_rounds", walk.restart_rounds},
                     {"elite", walk.elite},
                     {"elite_distance", walk.elite_distance},
                     {"relink", walk.relink}};
      for (const auto& x : runs) j["runs"].push_back(to_json(x));
      pfsp::bench::write_text_atomically(json_path, j.dump(1) + "\n");
    }
  } catch (const std::exception& e) {
    std::cerr << "pfsp_bench_heuristic: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
