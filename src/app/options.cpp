#include "app/options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <memory>

#include "app/enum_options.hpp"
#include "app/gpu_cli.hpp"
#include "app/solver_config.hpp"
#include "base/enum_names.hpp"
#include "base/error.hpp"
#include "gpu/plan.hpp"
#include "gpu/strategy.hpp"

namespace pfsp {
namespace {

// --help: the groups of help_group in their order (a group not listed there after them, in the
// order of registration), the --help-all ones left out but named in a last line. CLI11 2.1's
// make_help with its make_groups step replaced (make_groups is not virtual there).
class grouped_formatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    return make_description(app) + make_usage(app, name) + make_positionals(app) + grouped(app, mode) +
           make_subcommands(app, mode) + "\n" + make_footer(app);
  }

 private:
  std::string grouped(const CLI::App* app, CLI::AppFormatMode mode) const {
    static const std::vector<std::string> order{
        "Options",       help_group::search,  help_group::engine,      help_group::outputs, help_group::checkpoints,
        help_group::gpu, help_group::devices, help_group::distributed, help_group::tuning,  help_group::mpi_refused};
    std::vector<std::string> groups = order;
    for (const std::string& g : app->get_groups())
      if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    const bool all = mode == CLI::AppFormatMode::All;
    std::string out;
    bool hidden = false;
    for (const std::string& g : groups) {
      std::vector<const CLI::Option*> opts =
          app->get_options([&g](const CLI::Option* o) { return o->get_group() == g && o->nonpositional(); });
      if (g.empty() || opts.empty()) continue;
      if (!all && (g == help_group::tuning || g == help_group::mpi_refused)) {
        hidden = true;
        continue;
      }
#if !defined(PFSP_HAVE_GPU)
      if (g == help_group::gpu || g == help_group::devices) {
        out += make_group(g + " (refused: this pfsp was built without CUDA)", false, opts);
        continue;
      }
#endif
      out += make_group(g, false, opts);
    }
    if (hidden) out += "\nMore options, for benchmarking and tuning: --help-all\n";
    return out;
  }
};

// Puts the options registered since the first `first` into `group`: a function that registers a
// group's options starts with first = app.get_options().size() and ends with this, so that an
// option added to it lands in its group.
void group_from(CLI::App& app, std::size_t first, const char* group) {
  for (std::size_t i = first; i < app.get_options().size(); ++i) app.get_options()[i]->group(group);
}

// What to solve and how: backend, threads, bound, branching, selection, the initial upper bound.
void add_search_options(CLI::App& app, solve_args& a) {
  const std::size_t first = app.get_options().size();
  add_enum_option(app, "--backend", a.backend, "auto (gpu if there is one, else cpu-mt), cpu, cpu-mt or gpu");
  app.add_option("--threads", a.threads, "threads for cpu-mt (and host threads for gpu)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  add_enum_or_auto_option(app, "--bound", a.bound,
                          "lower bound: lb1 (one-machine), lb2 (two-machine Johnson), lb1-lb2 (chain), auto (the "
                          "fastest measured: lb1-lb2 on the GPU device loop below 200 jobs but at 100-199 jobs x 20-39 "
                          "machines, and on the CPU at 20 jobs and up to 10 machines; lb1 elsewhere)");
  add_parsed_option(app, "--lb2-pairs", a.lb2_pairs, parse_lb2_pairs,
                    "machine pairs of LB2: all (m(m-1)/2), adjacent (Nabeshima's m-1 pairs k,k+1), learn[:K] (the "
                    "K pairs that most often give the maximum in a short search before the run; default K = m-1), "
                    "or auto (learn on the GPU device loop and the CPU solvers, all on the GPU host loop; with "
                    "--resume: the checkpoint's pairs)")
      ->default_str(to_string(a.lb2_pairs));
  // No default shown: the backend's (or, with --resume, the checkpoint's) when not given.
  app.add_option_function<std::string>(
         "--branching", [&a](const std::string& v) { a.branch = from_string<branching>(v, "--branching"); },
         "forward, backward, min-branch or min-min (dynamic bidirectional); default min-branch on the CPU, "
         "min-min on the GPU")
      ->check(CLI::IsMember(enum_choices<branching>()));
  add_enum_option(app, "--selection", a.select, "depth-first, breadth-first or best-first (cpu only)");
  add_enum_option(
      app, "--child-order", a.order,
      "the order of a node's children (the CPU solvers and the GPU's device loop): bound (the smallest "
      "bound first; the GPU's default) or incumbent (the CPU's default; solution-guided: first the child that "
      "places its job nearest where the incumbent schedule has it, the bound breaking ties; the same "
      "tree below a fixed upper bound, a better schedule sooner)");
  add_enum_option(app, "--dominance", a.dominance,
                  "swap dominance: prune a child whose last two prefix jobs swapped finish no later on every "
                  "machine (exact; bound/dominance.hpp). auto (on for the CPU solvers, off on the GPU, where it "
                  "cost more than it saved at 20 machines), on (the GPU device loop runs it where LB1 runs in "
                  "the parents kernel), off");
  app.add_option("--memo", a.memo_mb,
                 "MiB of memo dominance table per search thread (CPU solvers): prune a node when one expanded "
                 "before over the same prefix and suffix job sets is no later on every machine at both ends (exact; "
                 "search/memo_table.hpp); replaces swap dominance. 0: off; -1: auto (up to 50 jobs and 10 "
                 "machines 64 a thread, 512 in all at most; else off)")
      ->check(CLI::Range(-1, 1 << 20));
  add_parsed_option(app, "--ub", a.ub, parse_ub,
                    "initial upper bound: prune nodes with bound >= UB (e.g. the optimum, as in the papers), or "
                    "best-known: the best known makespan of a Taillard instance (from Taillard's table)");
  group_from(app, first, help_group::search);
}

// The incumbent engine beside the search, and the start heuristic.
void add_engine_options(CLI::App& app, solve_args& a) {
  const std::size_t first = app.get_options().size();
  app.add_option("--improver-threads", a.improver_threads,
                 "threads of the incumbent engine (iterated-greedy walkers) beside the search, every backend: "
                 "seeded by its best leaves, feeding it better incumbents (-1 = auto, of the cores the process may run "
                 "on: gpu: the cores but one, at most 8; cpu: the same when n > 20; "
                 "cpu-mt: --heuristic-share of --threads; 0 = none)")
      ->check(CLI::Range(-1, 256))
      ->capture_default_str();
  app.add_option("--heuristic-share", a.heuristic_share,
                 "cpu-mt: the share of --threads that run the incumbent engine instead of the branch-and-bound "
                 "(-1 = auto: 1 when n >= 100 and m >= 20, the search keeping one thread; 0.5 when n > 20; else 0); "
                 "ignored when --improver-threads is given")
      ->check(CLI::Range(-1.0, 1.0))
      ->capture_default_str();
  app.add_option("--gpu-walkers", a.gpu_walkers,
                 "gpu: iterated-greedy walkers of the incumbent engine on the GPU, one thread block each, beside "
                 "the search (-1 = auto: when n >= 200 and 15 <= m <= 32, two per multiprocessor, one where two do not "
                 "fit; 0 = none)")
      ->check(CLI::Range(-1, 1000000))
      ->capture_default_str();
  app.add_option("--beam", a.beam,
                 "threads of the incumbent engine that run a bidirectional iterative beam search instead of "
                 "walkers (-1 = auto: a quarter of the engine's threads, at least one, when it has two or more and "
                 "n > 20; 0 = none)")
      ->check(CLI::Range(-1, 256))
      ->capture_default_str();
  add_enum_option(app, "--beam-target", a.beam_aim,
                  "the beam's targets: auto (best where the passes run on the CPU, m >= 40 and n < 15 m, else bisect), "
                  "bisect (bisected between a lower bound, raised by short branch-and-bound "
                  "probes, and the engine's best) or best (each pass for a "
                  "schedule better than the engine's best, Libralesso et al. 2022)");
  add_enum_option(app, "--beam-device", a.beam_on,
                  "where the bisecting beam's passes run: auto (the GPU on the gpu backend where n >= 100, else "
                  "the CPU), cpu or gpu (needs --backend gpu; on the search's first device, taking at most a "
                  "quarter of its free memory and 8 GiB, beside --gpu-memory's engines)");
  app.add_option("--seed", a.seed,
                 "random seed of the incumbent engine and of the iterated-greedy start (a single-threaded start "
                 "heuristic is reproducible for a seed)")
      ->check(CLI::Range(0, 2147483647))
      ->capture_default_str();
  add_enum_option(app, "--heuristic", a.heuristic,
                  "first incumbent: ig (iterated greedy, Ruiz-Stuetzle 2007, from NEH), neh, none, or auto (neh "
                  "where improver threads run iterated greedy beside the search, ig elsewhere)");
  app.add_option("--ig-iterations", a.ig_iterations,
                 "iterated greedy rounds (deterministic, seed 1); -1 = auto, about 4e7/(n^2 m), at most 5000")
      ->check(CLI::Range(-1, 100000000))
      ->capture_default_str();
  app.add_flag("--no-neh", a.no_neh, "same as --heuristic none");
  group_from(app, first, help_group::engine);
}

// Limits, the result's outputs and the solver log.
void add_output_options(CLI::App& app, solve_args& a) {
  const std::size_t first = app.get_options().size();
  app.add_option("--time-limit", a.time_limit, "stop after this many seconds (0 = none)")->check(CLI::Range(0.0, 1e9));
  app.add_option("--ascent", a.ascent,
                 "lower-bound ascent: after a first search of this many seconds that stops with its bound below "
                 "its schedule, complete searches below L = that bound + 1, and higher as the trees allow (each exact; "
                 "one without a "
                 "schedule below L proves the optimum at least L, one with one proves the optimum) until the "
                 "optimum or the time limit; for trees small from the optimum and huge from the incumbent "
                 "(src/app/ascent.hpp). 0 (default): none")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--node-limit", a.node_limit, "stop after this many branched nodes (0 = none)")
      ->check(CLI::Range(0LL, 4000000000000000000LL));
  app.add_option("--json", a.json, "write the result as JSON to this file (atomically)");
  app.add_option("--gantt", a.gantt,
                 "draw the schedule found as a Gantt chart (SVG: machines as rows, the critical path and the "
                 "makespan marked) to this file (atomically)");
  app.add_option("--log", a.log,
                 "write the solver log (header, a row per progress interval, summary; docs/solver_log.md) to this "
                 "file too, flushed per line, whatever --quiet and --no-progress say");
  app.add_flag("-q,--quiet", a.quiet, "print only 'status makespan lower_bound'; no solver log on stderr");
  app.add_flag("--no-progress", a.no_progress, "no solver log on stderr; the whole report on stdout instead");
  app.add_option("--progress-interval", a.progress_interval,
                 "seconds between rows of the solver log and progress-trace snapshots in the JSON")
      ->check(CLI::Range(0.01, 1e6))
      ->capture_default_str();
  app.add_option("--estimate-seconds", a.estimate_seconds,
                 "before the search, estimate the tree's size for this many seconds (stratified probes from the "
                 "initial upper bound, one thread; docs/tree_estimate.md), so that the solver log's 'left' "
                 "column counts down to it; the time counts against the time limit (0 = none: 'left' says ?)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  group_from(app, first, help_group::outputs);
}

void add_checkpoint_options(CLI::App& app, solve_args& a) {
  const std::size_t first = app.get_options().size();
  app.add_option("--checkpoint", a.checkpoint,
                 "cpu, cpu-mt, gpu (--gpu-loop device): save the search state to this file (atomically) periodically "
                 "and when the run stops");
  add_enum_option(app, "--checkpoint-format", a.checkpoint_format,
                  "binary (version 2: compact, checksummed, records the LB2 pairs) or text (version 1); --resume "
                  "reads either");
  app.add_option("--checkpoint-interval", a.checkpoint_interval, "seconds between checkpoints")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  app.add_option("--resume", a.resume,
                 "continue the search saved in this checkpoint (same instance; bound, branching and --ub are taken "
                 "from it unless given; backend and threads may differ)");
  group_from(app, first, help_group::checkpoints);
}

// The experiments of the papers reproduced (docs/experiments.md): --help-all only.
void add_experiment_options(CLI::App& app, solve_args& a) {
  app.add_flag("--profile", a.profile, "time spent bounding versus the rest (the papers' Table I)")
      ->group(help_group::tuning);
  app.add_flag("--shared-queue", a.shared_queue, "cpu-mt: the papers' baseline, one mutex-protected queue")
      ->group(help_group::tuning);
}

// --devices' text as a selection: gpu::parse_devices where CUDA is built; elsewhere the option is
// refused before its value is parsed (add_gpu_cli_options).
gpu::device_selection parse_devices(const std::string& spec) {
#if defined(PFSP_HAVE_GPU)
  return gpu::parse_devices(spec);
#else
  (void)spec;
  return {};
#endif
}

// Help groups (app/options.hpp): where the loop runs and on which device, in help_group::gpu;
// --devices in help_group::devices; the pool, kernel and host-loop knobs, which benchmarks and
// tuning set, in help_group::tuning (--help-all).

// Called with an option's value when it is given (CLI11's Option::each).
using on_given = std::function<void(std::string)>;

// The pool: its size, the kernel's block size, how parents are selected and children ordered.
void add_pool_options(CLI::App& solve, gpu::gpu_policy& p, const on_given& host_only) {
  solve
      .add_option("--pool-size", p.pool_size,
                  "gpu: children bounded an iteration of the device loop (0 = 16777216 up to 50 jobs at 20 machines or "
                  "more, else 4194304) or a launch of the host loop (4096..262144 typical; 0 = auto-tune)")
      ->check(CLI::Range(0LL, 16777216LL))
      ->capture_default_str()
      ->type_name("INT")
      ->group(help_group::tuning);
  solve
      .add_option("--threads-per-block", p.threads_per_block, "gpu: threads per block, multiple of 32 (0 = auto-tune)")
      ->check(CLI::IsMember({0, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024}))
      ->capture_default_str()
      ->group(help_group::tuning);
  add_enum_option(solve, "--gpu-selection", p.select,
                  "gpu: pool selection: hybrid (best-first up to --hybrid-max open nodes, then depth-first down to "
                  "--hybrid-min), depth-first, best-first, breadth-first")
      ->each(host_only)
      ->group(help_group::tuning);
  add_enum_option(solve, "--sort", p.sort,
                  "gpu: thread-data reordering of each pool by (limit1, limit2): none, host, device (CUB)")
      ->group(help_group::tuning);
}

// The bounding kernel: its variant and where its tables live.
void add_kernel_options(CLI::App& solve, gpu::gpu_policy& p) {
  add_enum_option(solve, "--kernel", p.kernel,
                  "gpu: bounding kernel variant: plain, refactored (papers' __cosf/__expf rewrite), branchless")
      ->group(help_group::tuning);
  add_enum_option(solve, "--memory", p.memory, "gpu: bound tables in shared (when they fit) or global memory")
      ->group(help_group::tuning);
  add_enum_flag_option(solve, "--compact-times", gpu::compact_mode::on, p.compact_times,
                       "gpu: compact tables: 8-bit processing times, 8/16-bit Johnson orders, 16-bit lags (same "
                       "bounds, less shared memory). --compact-times[=on] whenever every time is below 256, =off "
                       "never, =auto (default) only where the int tables miss shared memory and the compact ones fit")
      ->group(help_group::tuning);
}

// The host loop's own: its streams and the hybrid selection's thresholds.
void add_host_loop_options(CLI::App& solve, gpu::gpu_policy& p, const on_given& host_only) {
  solve
      .add_option("--streams", p.streams,
                  "gpu: 1 (no overlap) or 2 (host branches pool k+1 while the GPU bounds pool k)")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str()
      ->each(host_only)
      ->group(help_group::tuning);
  solve
      .add_option("--hybrid-max", p.hybrid_max,
                  "gpu: hybrid selection switches to depth-first above this many open nodes (0 = 8 x pool)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->type_name("INT")
      ->each(host_only)
      ->group(help_group::tuning);
  solve.add_option("--hybrid-min", p.hybrid_min, "gpu: and back to best-first below this many (0 = pool)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->type_name("INT")
      ->each(host_only)
      ->group(help_group::tuning);
}

// Which loop, how the device loop bounds, and on which devices.
void add_loop_options(CLI::App& solve, gpu_cli_options& o) {
  add_enum_option(solve, "--gpu-loop", o.request.loop,
                  "gpu: where the B&B loop runs: host (the papers' model: the host selects, branches and prunes, "
                  "the GPU bounds), device (the whole loop on the GPU: a depth-first node stack in device memory), "
                  "or auto: device, unless an option of the host loop is given (--gpu-selection, --streams, "
                  "--hybrid-max/min, --gpu-strategy other than plain, --sort host)")
      ->group(help_group::gpu);
  add_enum_option(solve, "--loop-bound", o.policy.bound_step,
                  "gpu, device loop: parts (each parent's front/back/remain computed once and read by its "
                  "children's threads; lb1-lb2 as a chain, LB2 only on the children LB1 kept) or recompute (the "
                  "papers' kernel: every child's thread rebuilds its parent's parts; --sort applies to it)")
      ->group(help_group::tuning);
  solve
      .add_option("--lb2-lanes", o.policy.lb2_lanes,
                  "gpu, device loop, lb1-lb2 with --loop-bound parts: lanes that bound one child in the chain's LB2 "
                  "pass, walking its machine pairs in rounds (1, 2, 4, 8 or 16; the same bounds, the same tree)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16}))
      ->group(help_group::tuning);
  add_enum_option(solve, "--lb2-table", o.policy.lb2_table,
                  "gpu, device loop, lb1-lb2 with --loop-bound parts: the chain's LB2 pass from each parent's table "
                  "in shared memory, a warp a parent (on), or as the pairs' walks, a thread a child (off, the "
                  "default: faster at 20 machines). The same bounds, the same tree")
      ->group(help_group::tuning);
  add_enum_option(solve, "--lb2-pack", o.policy.lb2_pack,
                  "gpu, device loop, lb1-lb2 with --loop-bound parts, up to 64 jobs: the chain's LB2 pass two "
                  "children a thread, their pair walks in the 16-bit halves of 32-bit words (on), or a thread a "
                  "child (off); auto (the default): on from 33 jobs or 20 machines (measured faster at 50x20 and "
                  "20x20). The same bounds, the same tree")
      ->group(help_group::tuning);
  add_enum_option(solve, "--lb1-fused", o.policy.lb1_fused,
                  "gpu, device loop, --loop-bound parts, 5, 10 or 20 machines: the LB1 pass (--bound lb1 and the "
                  "chain's first pass) in the parents kernel, a thread a parent bounding its children from its "
                  "parts in registers, and with --bound lb1 also choosing their direction and pruning them there "
                  "(on), or a thread a child (off); auto (the default): the chain at 20 machines up to 50 jobs, "
                  "--bound lb1 at 10 and 20 machines up to n m = 2000 (where each was measured faster). The same "
                  "bounds, the same tree")
      ->group(help_group::tuning);
  solve
      .add_option("--stack-margin", o.policy.loop.useful_stack_margin,
                  "gpu, device loop, under a time limit: once the tree is judged hopeless (after 2 s), the node stack "
                  "grows to at most this many times the nodes the loop can still pop before the limit; before the "
                  "judgment to an eighth of the memory's cap (0: neither, only the memory's cap)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str()
      ->group(help_group::tuning);
  solve
      .add_option("--hopeless-share", o.policy.loop.hopeless_share,
                  "gpu, device loop, under a time limit, with the beam's passes on the GPU: the loop yields the GPU "
                  "to the passes once the tree share it closes by the limit, at its rate so far, is below this "
                  "(0: never)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->group(help_group::tuning);
  add_parsed_option(solve, "--devices", o.request.devices, parse_devices,
                    "gpu, device loop: the CUDA devices to search on, one loop engine each, sharing work and the "
                    "incumbent: a list such as 0,1,2,3 (an ordinal may repeat: several engines on one device) or "
                    "all")
      ->group(help_group::devices);
  solve
      .add_option_function<std::size_t>(
          "--gpu-memory", [&p = o.policy](const std::size_t& mib) { p.memory_cap = mib << 20; },
          "gpu, device loop: MiB of GPU memory each loop engine may take (its pool buffers and its node stack, "
          "which starts small and grows on demand up to this and, under a time limit, to what the time left can "
          "pop; when full, the stack's bottom nodes spill to host memory (--spill-memory), and past that the pools "
          "shrink to what fits, which changes the order of search). 0 (default): the stack may grow to half the "
          "device's free memory")
      ->check(CLI::Range(0LL, 1LL << 24))
      ->type_name("MIB")
      ->group(help_group::gpu);
  solve
      .add_option_function<std::size_t>(
          "--spill-memory", [&p = o.policy](const std::size_t& mib) { p.spill_cap = mib << 20; },
          "gpu, device loop: MiB of host memory the loop engines may spill their stacks' bottom nodes to, all "
          "together (0: none; the pools then shrink to the stacks' room). Default: a quarter of the host's "
          "available memory when the search starts")
      ->check(CLI::Range(0LL, 1LL << 30))
      ->type_name("MIB")
      ->group(help_group::gpu);
  solve.add_option("--device", o.policy.device, "gpu: CUDA device ordinal")
      ->check(CLI::Range(0, 63))
      ->capture_default_str()
      ->group(help_group::gpu);
}

// The GPU backend's options (gpu_cli.hpp's gpu_cli_options), registered in every build so that
// pfsp, pfsp-mpi and the Python module know every name; a build without CUDA refuses each when
// given, naming it.
void add_gpu_cli_options(CLI::App& solve, gpu_cli_options& o) {
  const std::size_t before = solve.get_options().size();
  // --gpu-selection, --streams, --hybrid-max and --hybrid-min given: --gpu-loop auto takes the host loop.
  const on_given host_only = [&o](const std::string&) { o.request.host_loop_options = true; };
  add_pool_options(solve, o.policy, host_only);
  add_kernel_options(solve, o.policy);
  add_host_loop_options(solve, o.policy, host_only);
  add_loop_options(solve, o);
#if !defined(PFSP_HAVE_GPU)
  const auto refuse = [](const std::string&) {
    throw CLI::ValidationError("this pfsp was built without CUDA (nvcc was not found at configure time)");
  };
  for (std::size_t i = before; i < solve.get_options().size(); ++i) solve.get_options()[i]->each(refuse);
#else
  (void)before;
#endif
}

// The GPU backend's options: the divergence strategies' and the GPU layer's.
void add_gpu_options(CLI::App& app, solve_args& a) {
  // Registered in every build, so that bad values are exit code 2 with CUDA or without.
  add_enum_option(app, "--gpu-strategy", a.gpu_strategy,
                  "gpu: divergence strategy of the bounding step: plain (one thread per child), persistent (Frey "
                  "task pools), context-switch (Frey; the LB2 pair loop as managed branch), split (LB1, "
                  "compaction, LB2 on the survivors), remap (Zhang's LAM); docs/gpu_strategies.md")
      ->group(help_group::tuning);
  app.add_option("--strategy-params", a.strategy_params,
                 "gpu: key=value,... for --gpu-strategy. persistent: pool=global|local|hybrid|persistent, "
                 "fetch=any|all|ballot|atomic, k=1..32, chunk=0..65536, interval=1..64; context-switch: "
                 "contexts=32..1024 (multiple of 32), vote=1..64; remap: classes=2..1024, control=on|off")
      ->group(help_group::tuning);
  add_gpu_cli_options(app, a.gpu);
}

}  // namespace

void register_solve_options(CLI::App& app, solve_args& a) {
  app.add_option("instance", a.instance_spec, "ta001..ta120, random:N,M,SEED, or a file")->required();
  add_search_options(app, a);
  add_engine_options(app, a);
  add_output_options(app, a);
  add_checkpoint_options(app, a);
  add_experiment_options(app, a);
  add_gpu_options(app, a);
}

CLI::App* add_solve_subcommand(CLI::App& app, solve_args& a) {
  CLI::App* solve = app.add_subcommand("solve", "Solve an instance to proven optimality");
  use_grouped_help(*solve);
  register_solve_options(*solve, a);
  return solve;
}

void use_grouped_help(CLI::App& app) {
  app.formatter(std::make_shared<grouped_formatter>());
  app.set_help_all_flag("--help-all", "Print this help with the benchmarking and tuning options too");
}

std::string requested_help(const CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::CallForAllHelp*>(&e)) return app.help("", CLI::AppFormatMode::All);
  if (dynamic_cast<const CLI::CallForHelp*>(&e)) return app.help();
  if (e.get_exit_code() == 0) return std::string(e.what()) + "\n";  // --version
  return "";
}

const std::vector<std::string>& gpu_backend_options() {
  static const std::vector<std::string> names = [] {
    CLI::App scratch;
    solve_args a;
    add_gpu_options(scratch, a);
    std::vector<std::string> v;
    for (const CLI::Option* o : scratch.get_options())
      if (o->nonpositional() && o != scratch.get_help_ptr()) v.push_back(o->get_name());
    return v;
  }();
  return names;
}

void check_devices_usable(const solve_args& a) {
#if defined(PFSP_HAVE_GPU)
  if (!a.gpu.request.devices.given()) return;
  const std::string given = "--devices " + gpu::to_string(a.gpu.request.devices);
  if (a.backend == backend_choice::cpu || a.backend == backend_choice::cpu_mt)
    throw input_error(given + " needs the gpu backend (--backend " + std::string(to_string(a.backend)) + " given)");
  if (a.backend == backend_choice::auto_ && !gpu_cli_available())
    throw input_error(given + ": no CUDA device is available on this machine");
#else
  (void)a;  // refused when parsed
#endif
}

void note_given_options(const CLI::App& app, solve_args& a) {
  a.bound_given = app.count("--bound") > 0;
  a.branch_given = app.count("--branching") > 0;
  a.order_given = app.count("--child-order") > 0;
  a.ub_given = app.count("--ub") > 0;
  a.lb2_pairs_given = app.count("--lb2-pairs") > 0;
}

const std::vector<unsupported_option>& mpi_unsupported_options() {
  static const std::vector<unsupported_option> v{
      {"--selection", "each chunk is solved depth-first"},
      {"--log", "pfsp-mpi writes no solver log"},
      {"--progress-interval", "pfsp-mpi writes no solver log"},
      {"--profile", "the ranks do not time their bounding"},
      {"--gpu-strategy", "the ranks' GPU solver is the device loop with its defaults"},
      {"--strategy-params", "the ranks' GPU solver is the device loop with its defaults"},
      {"--ascent", "pfsp-mpi runs one distributed search from one upper bound"},
      {"--memo", "the ranks' chunk searches run the swap rule, not the memo"},
  };
  return v;
}

void register_mpi_options(CLI::App& app, mpi_args& a) {
  use_grouped_help(app);
  register_solve_options(app, a.solve);
  for (const auto& u : mpi_unsupported_options()) app.get_option(u.name)->group(help_group::mpi_refused);
  // The GPU backend's options (CUDA builds): each rank's GPU solver is the device loop with the
  // policy's defaults, on the devices --devices gives it (src/mpi/devices.hpp).
  for (const std::string& name : gpu_backend_options())
    if (CLI::Option* o = app.get_option_no_throw(name); o && name != "--devices") o->group(help_group::mpi_refused);
  if (CLI::Option* d = app.get_option_no_throw("--devices")) {
    d->description(d->get_description() +
                   " on every rank; or local: the node's devices cut into one contiguous block per worker rank "
                   "on it (not given: one device per rank, by its place on the node)");
    d->transform(
        [&a](std::string v) {
          static const std::string local = "local";
          a.dist.devices_local = v == local;
          if (a.dist.devices_local) v.clear();  // as if not given, for gpu::parse_devices
          return v;
        },
        "", "local");
  }
  app.add_option("--local-backend", a.dist.local_backend, "the older name of --backend under pfsp-mpi")
      ->check(CLI::IsMember({"cpu", "cpu-mt", "gpu"}))
      ->excludes("--backend")
      ->group(help_group::distributed);
  app.add_option("--frontier-per-worker", a.dist.frontier_per_worker, "frontier nodes built on rank 0 per worker rank")
      ->check(CLI::Range(1LL, 1LL << 24))
      ->capture_default_str()
      ->group(help_group::distributed);
  app.add_option("--chunk-nodes", a.dist.chunk_nodes,
                 "frontier nodes a chunk: a number, or auto (16 on the GPU backend, where each chunk costs a device "
                 "loop's set-up; 4 elsewhere)")
      ->transform(
          [](std::string v) {
            if (v == "auto") return std::string("0");
            const std::optional<int> k = whole_int(v);
            if (!k || *k < 1 || *k > (1 << 24))
              throw CLI::ValidationError("expected auto or a whole number in [1, 16777216], got '" + v + "'");
            return v;
          },
          "", "auto|N")
      ->type_name("auto|N")
      ->default_str("auto")
      ->group(help_group::distributed);
  app.add_option("--split-after", a.dist.split_after,
                 "seconds a chunk runs before rank 0, its frontier empty and a worker waiting, asks for part of it "
                 "back (-1 = never)")
      ->check(CLI::Range(-1.0, 1e9))
      ->capture_default_str()
      ->group(help_group::distributed);
  app.add_option("--ranks-join", a.dist.ranks_join,
                 "at-once: every worker gets chunks from the start; lazy: the first chunk is the whole frontier, for "
                 "one worker, the others join when it has run --split-after seconds (a small tree costs one "
                 "worker's time; not yet measured on the GPU since a fix, so not the default: docs/distributed.md)")
      ->check(CLI::IsMember({"at-once", "lazy"}))
      ->capture_default_str()
      ->group(help_group::distributed);
  app.add_option("--worker-timeout", a.dist.worker_timeout,
                 "seconds without a heartbeat after which rank 0 gives a worker's chunk to the others (the run "
                 "survives a lost rank under mpirun --enable-recovery; docs/decisions/011-lost-ranks.md)")
      ->check(CLI::Range(2.0, 1e9))
      ->capture_default_str()
      ->group(help_group::distributed);
}

void check_mpi_options(const CLI::App& app, mpi_args& a) {
  note_given_options(app, a.solve);
  for (const CLI::Option* o : app.get_options())
    if (o->get_group() == help_group::mpi_refused && o->count() > 0) {
      std::string why = "the ranks' GPU solver is the device loop with its defaults";
      for (const auto& u : mpi_unsupported_options())
        if (o->check_name(u.name)) why = u.why;
      throw input_error(o->get_name() + ": not supported by pfsp-mpi (" + why + ")");
    }
  if (!a.dist.local_backend.empty())
    a.solve.backend = from_string<backend_choice>(a.dist.local_backend, "--local-backend");
}

}  // namespace pfsp
