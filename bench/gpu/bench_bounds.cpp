// Bounding throughput: the GPU kernels against one CPU core running the same bound code on
// the same pool (CCPE 6.3's question, asked of the bounding step alone). For each instance it
// draws a pool of random parents at every depth, bounds all their children in both directions
// on the CPU (node_parts once per parent, child_bound per child, as the expander does) and on
// the GPU for every requested strategy, checks that the bounds agree, and prints a table and
// one JSON object per line (stamped with the device and the commit).
//
//   pfsp_gpu_bench [--instances ta021,ta051] [--bound lb2] [--children 262144] [--reps 20]
//                  [--kernels plain,refactored,branchless] [--memory shared,global] [--compact off,on]
//                  [--sort none,host,device] [--tpb 128|occ] [--ub opt|none|N] [--cpu-seconds 3]
//                  [--strategies plain,persistent,context-switch,split,remap]
//                  [--persistent-params pool=hybrid,fetch=ballot,k=4,chunk=32,interval=1]
//                  [--context-switch-params contexts=64,vote=1] [--remap-params control=off]
// (--gpu-strategy, docs/gpu_strategies.md; the persistent, context-switch and split strategies run
// the branchless variant only: other --kernels are skipped for them. remap defaults to control=off
// here, since the bench repeats one pool and the efficiency control would time its probes.)
// Comma lists run every combination. The enum options take the product's names
// (base/enum_names.hpp, registered by app/enum_options.hpp), as pfsp does.
// Exit 2: bad option; 1: no device, CUDA error, or a bound differing from the CPU's.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/enum_options.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "gpu/bounder.hpp"
#include "gpu/pool_layout.hpp"
#include "gpu/strategy.hpp"
#include "problem/io.hpp"
#include "random_parents.hpp"
#include "search/types.hpp"
#include "tool_options.hpp"

#ifndef PFSP_GIT_COMMIT
#define PFSP_GIT_COMMIT "unknown"
#endif

namespace {

using namespace pfsp;
using steady = std::chrono::steady_clock;

using gpu::tools::make_parents;
using gpu::tools::parent;
using gpu::tools::ub_choice;

// CPU reference and timing: bounds in the bounder's natural order (forward then backward).
// One pass over the pool (cut at max_seconds), repeated until half a second has passed.
std::vector<int> cpu_bounds(const bound_data& data, bound_kind kind, const std::vector<parent>& parents, int ub,
                            double max_seconds, double& rate) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  std::vector<int> front(m), back(m), remain(m), scratch(m), out, pass;
  std::vector<unsigned char> flags(static_cast<std::size_t>(n));
  std::uint64_t done = 0;
  const auto t0 = steady::now();
  auto elapsed = [&] { return std::chrono::duration<double>(steady::now() - t0).count(); };
  bool first_pass = true;
  do {
    pass.clear();
    for (const parent& p : parents) {
      node_parts(b, p.perm.data(), p.limit1, p.limit2, front.data(), back.data(), remain.data());
      const int first = p.limit1 + 1, count = p.limit2 - first;
      for (int i = 0; i < n; ++i)
        flags[static_cast<std::size_t>(p.perm[static_cast<std::size_t>(i)])] = (i < first || i >= p.limit2) ? 1 : 0;
      const unsigned char* f = flags.data();
      auto sched = [f](int j) { return f[j] != 0; };
      for (int dir = 0; dir < 2; ++dir)
        for (int c = 0; c < count; ++c) {
          const int job = p.perm[static_cast<std::size_t>(first + c)];
          pass.push_back(
              child_bound(kind, b, front.data(), back.data(), remain.data(), sched, job, dir == 0, ub, scratch.data()));
        }
      done += 2 * static_cast<std::uint64_t>(count);
      if ((done & 255) < 64 && elapsed() > max_seconds) break;
    }
    if (first_pass) out = pass;
    first_pass = false;
  } while (elapsed() < 0.5);
  rate = static_cast<double>(done) / elapsed();
  return out;
}

struct options {
  std::vector<std::string> instances{"ta021", "ta051"};
  bound_kind bound = bound_kind::lb2;
  std::size_t children = 262144;
  int reps = 20;
  std::vector<gpu::kernel_variant> kernels{gpu::kernel_variant::plain, gpu::kernel_variant::refactored,
                                           gpu::kernel_variant::branchless};
  std::vector<gpu::memory_placement> memory{gpu::memory_placement::shared, gpu::memory_placement::global};
  std::vector<gpu::compact_mode> compact{gpu::compact_mode::off};  // off and on only
  std::vector<gpu::pool_sort> sorts{gpu::pool_sort::none, gpu::pool_sort::host, gpu::pool_sort::device};
  std::optional<int> tpb = 128;  // nullopt: occ, the bounder's occupancy-derived block size
  ub_choice ub;
  double cpu_seconds = 3;
  std::uint32_t seed = 1;
  std::vector<gpu::gpu_strategy> strategies{gpu::gpu_strategy::plain};
  std::string persistent_params, context_switch_params, remap_params = "control=off";

  // --STRATEGY-params of a strategy; plain and split take none.
  std::string params_of(gpu::gpu_strategy s) const {
    switch (s) {
      case gpu::gpu_strategy::persistent:
        return persistent_params;
      case gpu::gpu_strategy::context_switch:
        return context_switch_params;
      case gpu::gpu_strategy::remap:
        return remap_params;
      default:
        return {};
    }
  }
};

// The command line into o. nullopt: run; otherwise the exit code (tool_options.hpp).
std::optional<int> parse_options(int argc, char** argv, options& o) {
  CLI::App app{"pfsp_gpu_bench: bounding throughput of the GPU kernels against one CPU core on the same pools"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later --reps wins
  app.add_option("--instances", o.instances, "comma list of instances (ta001..ta120, files)")
      ->delimiter(',')
      ->default_str("ta021,ta051");
  add_enum_option(app, "--bound", o.bound, "lower bound");
  app.add_option("--children", o.children,
                 "children per pool: random parents are drawn until the next one's children would exceed it")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "timed launches after two untimed ones; the median kernel time is reported")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  add_enum_list_option(app, "--kernels", o.kernels, "kernel variants");
  add_enum_list_option(app, "--memory", o.memory, "table placements requested; the bounder reports what ran");
  add_enum_list_option(app, "--compact", o.compact, "processing times as compact tables (--compact-times)",
                       {gpu::compact_mode::off, gpu::compact_mode::on});
  add_enum_list_option(app, "--sort", o.sorts, "pool sorts");
  app.add_option_function<std::string>(
         "--tpb", [&o](const std::string& v) { o.tpb = v == "occ" ? std::nullopt : std::optional<int>(std::stoi(v)); },
         "threads per block, or occ: the bounder's occupancy-derived block size")
      ->check(CLI::IsMember({"occ"}) | CLI::Range(1, 1024))
      ->default_str("128");
  gpu::tools::add_ub_option(app, o.ub, "initial upper bound: opt (the best known makespan), none, or a makespan");
  app.add_option("--cpu-seconds", o.cpu_seconds,
                 "the CPU reference's pass over the pool stops after this (it is timed for at least 0.5 s)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the random parents (pfsp_gpu_clock draws the same pool)")
      ->capture_default_str();
  add_enum_list_option(app, "--strategies", o.strategies,
                       "divergence strategies (--gpu-strategy); persistent, context-switch and split run the "
                       "branchless kernel only");
  app.add_option("--persistent-params", o.persistent_params, "--strategy-params of persistent");
  app.add_option("--context-switch-params", o.context_switch_params, "--strategy-params of context-switch");
  app.add_option("--remap-params", o.remap_params, "--strategy-params of remap")->capture_default_str();
  return gpu::tools::parse_command_line(app, argc, argv);
}

// One configuration of the grid: --kernels x (--memory x --compact) x --sort x --strategies.
struct cell {
  gpu::kernel_variant kernel;
  gpu::memory_placement memory;
  gpu::compact_mode compact;  // off or on
  gpu::pool_sort sort;
  gpu::strategy_params strategy;
};

// Every cell, in that order; strategies with kernels of their own run the branchless variant
// only. Throws input_error for bad --STRATEGY-params.
std::vector<cell> grid(const options& o) {
  std::vector<gpu::strategy_params> strategies;
  for (gpu::gpu_strategy s : o.strategies) strategies.push_back(gpu::parse_strategy(to_string(s), o.params_of(s)));
  std::vector<cell> cells;
  for (gpu::kernel_variant k : o.kernels)
    for (gpu::memory_placement m : o.memory)
      for (gpu::compact_mode c : o.compact)
        for (gpu::pool_sort s : o.sorts)
          for (const gpu::strategy_params& sp : strategies) {
            if (!gpu::uses_plain_kernel(sp.kind) && k != gpu::kernel_variant::branchless) continue;
            cells.push_back({k, m, c, s, sp});
          }
  return cells;
}

// The parents into the bounder's staging area of stream 0, as the search writes a pool.
void stage_parents(gpu::bounder& bd, const std::vector<parent>& parents, int n) {
  const int jb = bd.job_bytes();
  auto* perms = static_cast<unsigned char*>(bd.perms(0));
  for (std::size_t p = 0; p < parents.size(); ++p) {
    for (int i = 0; i < n; ++i) {
      const int j = parents[p].perm[static_cast<std::size_t>(i)];
      const std::size_t at = p * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
      if (jb == 1)
        perms[at] = static_cast<unsigned char>(j);
      else
        reinterpret_cast<std::uint16_t*>(perms)[at] = static_cast<std::uint16_t>(j);
    }
    bd.limits(0)[p] = gpu::pack_limits(parents[p].limit1, parents[p].limit2);
  }
}

struct launches {
  std::size_t children = 0;
  double kernel_ms_median = 0;
  std::string check = "ok";  // or MISMATCH(count), and how many the CPU checked when fewer
};

// reps + 2 launches on the staged pool; the first one's bounds are compared with the CPU's
// (equal, or both at or above ub), the first two are not timed.
launches time_launches(gpu::bounder& bd, std::size_t parents, int ub, int tpb, int reps, const std::vector<int>& ref) {
  launches l;
  std::vector<double> ms_kernel;
  for (int r = 0; r < reps + 2; ++r) {
    const double before = bd.times().kernel;
    l.children = bd.submit_children(0, parents, ub, tpb);
    const int* out = bd.wait(0);
    if (r == 0) {
      std::size_t bad = 0;
      const std::size_t cmp = std::min(l.children, ref.size());
      for (std::size_t i = 0; i < cmp; ++i) {
        const bool same = out[i] == ref[i] || (out[i] >= ub && ref[i] >= ub);
        bad += same ? 0 : 1;
      }
      if (bad) l.check = "MISMATCH(" + std::to_string(bad) + ")";
      if (cmp < l.children) l.check += " (cpu checked " + std::to_string(cmp) + ")";
    }
    if (r >= 2) ms_kernel.push_back((bd.times().kernel - before) * 1e3);
  }
  std::sort(ms_kernel.begin(), ms_kernel.end());
  l.kernel_ms_median = ms_kernel[ms_kernel.size() / 2];
  return l;
}

void print_header(const gpu::device_info& dev) {
  std::printf("device %s, %d SMs, %.0f MHz; commit %s\n", dev.name.c_str(), dev.sm_count, dev.clock_khz / 1000.0,
              PFSP_GIT_COMMIT);
  std::printf("%-8s %-6s %-7s %-10s %-6s %-7s %-6s %-14s %4s %8s %10s %10s %12s %9s %s\n", "instance", "size", "bound",
              "kernel", "memory", "tables", "sort", "strategy", "tpb", "children", "kernel_ms", "GPU_Mb/s", "CPU_kb/s",
              "speedup", "check");
}

// One cell on one instance: its table row, and its JSON line appended to json. False on a
// bound differing from the CPU's.
bool run_cell(const options& o, const gpu::device_info& dev, const instance& inst, const bound_data& data,
              const std::vector<parent>& parents, int ub, const std::vector<int>& ref, double cpu_rate, const cell& c,
              std::vector<std::string>& json) {
  gpu::gpu_policy pol;
  pol.strategy = c.strategy;
  pol.kernel = c.kernel;
  pol.memory = c.memory;
  pol.compact_times = c.compact;
  pol.sort = c.sort;
  pol.streams = 1;
  gpu::bounder bd(data, o.bound, branching::min_min, pol, o.children);
  const int tpb = o.tpb ? *o.tpb : bd.occupancy_threads_per_block();
  stage_parents(bd, parents, inst.n);
  const launches l = time_launches(bd, parents.size(), ub, tpb, o.reps, ref);
  const double med = l.kernel_ms_median;
  const double gpu_rate = static_cast<double>(l.children) / (med * 1e-3);
  const std::string bound(to_string(o.bound)), kernel(to_string(c.kernel)), sort(to_string(c.sort)),
      strategy(to_string(c.strategy.kind));
  std::printf("%-8s %3dx%-2d %-7s %-10s %-6s %-7s %-6s %-14s %4d %8zu %10.3f %10.1f %12.1f %9.0f %s\n",
              inst.name.c_str(), inst.n, inst.m, bound.c_str(), kernel.c_str(),
              bd.tables_in_shared() ? "shared" : "global", bd.tables_compact() ? "compact" : "int", sort.c_str(),
              strategy.c_str(), tpb, l.children, med, gpu_rate / 1e6, cpu_rate / 1e3, gpu_rate / cpu_rate,
              l.check.c_str());
  std::ostringstream j;
  j << "{\"instance\":\"" << inst.name << "\",\"n\":" << inst.n << ",\"m\":" << inst.m << ",\"bound\":\"" << bound
    << "\",\"kernel\":\"" << kernel << "\",\"memory\":\"" << (bd.tables_in_shared() ? "shared" : "global")
    << "\",\"compact_times\":" << (c.compact == gpu::compact_mode::on ? "true" : "false") << ",\"tables\":\""
    << (bd.tables_compact() ? "compact" : "int") << "\",\"sort\":\"" << sort << "\",\"tpb\":" << tpb
    << ",\"strategy\":\"" << strategy << "\",\"strategy_params\":\"" << gpu::describe(c.strategy) << "\""
    << ",\"children\":" << l.children << ",\"ub\":" << ub << ",\"kernel_ms_median\":" << med
    << ",\"gpu_bounds_per_s\":" << gpu_rate << ",\"cpu_bounds_per_s\":" << cpu_rate
    << ",\"speedup\":" << gpu_rate / cpu_rate << ",\"check\":\"" << l.check << "\",\"device\":\"" << dev.name
    << "\",\"commit\":\"" << PFSP_GIT_COMMIT << "\"}";
  json.push_back(j.str());
  return l.check.rfind("ok", 0) == 0;
}

// Every cell on one instance, against one CPU reference pass. False on a mismatch (the rest of
// the grid is not run).
bool run_instance(const options& o, const gpu::device_info& dev, const std::string& name,
                  const std::vector<cell>& cells, std::vector<std::string>& json) {
  const instance inst = load_instance(name);
  const bound_data data(inst);
  const int ub = o.ub.value(inst);
  const auto parents = make_parents(inst.n, o.children, o.seed);
  double cpu_rate = 0;
  const std::vector<int> ref = cpu_bounds(data, o.bound, parents, ub, o.cpu_seconds, cpu_rate);
  for (const cell& c : cells)
    if (!run_cell(o, dev, inst, data, parents, ub, ref, cpu_rate, c, json)) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  std::vector<cell> cells;
  if (const auto rc = parse_options(argc, argv, o)) return *rc;
  try {
    cells = grid(o);
  } catch (const std::exception& e) {
    std::cerr << "pfsp_gpu_bench: " << e.what() << "\n";
    return 2;
  }
  try {
    if (gpu::device_count() == 0) {
      std::cerr << "pfsp_gpu_bench: no CUDA device\n";
      return 1;
    }
    const gpu::device_info dev = gpu::query_device(0);
    print_header(dev);
    std::vector<std::string> json;
    for (const std::string& name : o.instances)
      if (!run_instance(o, dev, name, cells, json)) {
        std::cerr << "bound mismatch\n";
        for (const auto& line : json) std::cout << line << "\n";
        return 1;
      }
    for (const auto& line : json) std::cout << line << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pfsp_gpu_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
