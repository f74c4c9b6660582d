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
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "gpu/bounder.hpp"
#include "gpu/pool_layout.hpp"
#include "gpu/strategy.hpp"
#include "problem/io.hpp"
#include "random_parents.hpp"
#include "search/types.hpp"

#ifndef PFSP_GIT_COMMIT
#define PFSP_GIT_COMMIT "unknown"
#endif

namespace {

using namespace pfsp;
using steady = std::chrono::steady_clock;

using gpu::tools::make_parents;
using gpu::tools::parent;
using gpu::tools::split;

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

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{{"--instances", "ta021,ta051"},
                                       {"--bound", "lb2"},
                                       {"--children", "262144"},
                                       {"--reps", "20"},
                                       {"--kernels", "plain,refactored,branchless"},
                                       {"--memory", "shared,global"},
                                       {"--compact", "off"},
                                       {"--sort", "none,host,device"},
                                       {"--tpb", "128"},
                                       {"--ub", "opt"},
                                       {"--cpu-seconds", "3"},
                                       {"--seed", "1"},
                                       {"--strategies", "plain"},
                                       {"--persistent-params", ""},
                                       {"--context-switch-params", ""},
                                       {"--remap-params", "control=off"}};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!a.count(argv[i])) {
      std::cerr << "unknown option " << argv[i] << "\n";
      return 2;
    }
    a[argv[i]] = argv[i + 1];
  }
  try {
    if (gpu::device_count() == 0) {
      std::cerr << "pfsp_gpu_bench: no CUDA device\n";
      return 1;
    }
    const gpu::device_info dev = gpu::query_device(0);
    const bound_kind kind = from_string<bound_kind>(a["--bound"], "--bound");
    const std::size_t target = std::stoull(a["--children"]);
    const int reps = std::stoi(a["--reps"]);
    const bool tpb_occupancy = a["--tpb"] == "occ";  // the bounder's occupancy-derived block size
    const int tpb_fixed = tpb_occupancy ? 0 : std::stoi(a["--tpb"]);
    // --memory x --compact (--compact-times: int or compact tables; "tables" says which ran).
    std::vector<std::pair<std::string, bool>> layouts;
    for (const std::string& ms : split(a["--memory"]))
      for (const std::string& cs : split(a["--compact"])) {
        if (cs != "off" && cs != "on") throw std::invalid_argument("--compact takes off, on or off,on");
        layouts.emplace_back(ms, cs == "on");
      }
    std::printf("device %s, %d SMs, %.0f MHz; commit %s\n", dev.name.c_str(), dev.sm_count, dev.clock_khz / 1000.0,
                PFSP_GIT_COMMIT);
    std::printf("%-8s %-6s %-7s %-10s %-6s %-7s %-6s %-14s %4s %8s %10s %10s %12s %9s %s\n", "instance", "size",
                "bound", "kernel", "memory", "tables", "sort", "strategy", "tpb", "children", "kernel_ms", "GPU_Mb/s",
                "CPU_kb/s", "speedup", "check");
    std::vector<std::string> json;
    for (const std::string& name : split(a["--instances"])) {
      const instance inst = load_instance(name);
      const bound_data data(inst);
      int ub = INT_MAX;
      if (a["--ub"] == "opt")
        ub = inst.known ? inst.known->ub : INT_MAX;
      else if (a["--ub"] != "none")
        ub = std::stoi(a["--ub"]);
      const auto parents = make_parents(inst.n, target, static_cast<std::uint32_t>(std::stoul(a["--seed"])));
      double cpu_rate = 0;
      const std::vector<int> ref = cpu_bounds(data, kind, parents, ub, std::stod(a["--cpu-seconds"]), cpu_rate);
      for (const std::string& ks : split(a["--kernels"]))
        for (const auto& [ms, compact] : layouts)
          for (const std::string& ss : split(a["--sort"]))
            for (const std::string& strategy : split(a["--strategies"])) {
              const auto params_it = a.find("--" + strategy + "-params");
              const gpu::strategy_params sp =
                  gpu::parse_strategy(strategy, params_it == a.end() ? std::string() : params_it->second);
              const bool branchless_only = sp.kind != gpu::gpu_strategy::plain && sp.kind != gpu::gpu_strategy::remap;
              if (branchless_only && ks != "branchless") continue;  // runs the branchless variant only
              gpu::gpu_policy pol;
              pol.strategy = sp;
              pol.kernel = from_string<gpu::kernel_variant>(ks, "--kernels");
              pol.memory = from_string<gpu::memory_placement>(ms, "--memory");
              pol.compact_times = compact ? gpu::compact_mode::on : gpu::compact_mode::off;
              pol.sort = from_string<gpu::pool_sort>(ss, "--sort");
              pol.streams = 1;
              gpu::bounder bd(data, kind, branching::min_min, pol, target);
              const int tpb = tpb_occupancy ? bd.occupancy_threads_per_block() : tpb_fixed;
              const int jb = bd.job_bytes();
              auto* perms = static_cast<unsigned char*>(bd.perms(0));
              for (std::size_t p = 0; p < parents.size(); ++p) {
                for (int i = 0; i < inst.n; ++i) {
                  const int j = parents[p].perm[static_cast<std::size_t>(i)];
                  const std::size_t at = p * static_cast<std::size_t>(inst.n) + static_cast<std::size_t>(i);
                  if (jb == 1)
                    perms[at] = static_cast<unsigned char>(j);
                  else
                    reinterpret_cast<std::uint16_t*>(perms)[at] = static_cast<std::uint16_t>(j);
                }
                bd.limits(0)[p] = gpu::pack_limits(parents[p].limit1, parents[p].limit2);
              }
              std::vector<double> ms_kernel;
              std::size_t children = 0;
              std::string check = "ok";
              for (int r = 0; r < reps + 2; ++r) {
                const double before = bd.times().kernel;
                children = bd.submit_children(0, parents.size(), ub, tpb);
                const int* out = bd.wait(0);
                if (r == 0) {
                  std::size_t bad = 0;
                  const std::size_t cmp = std::min(children, ref.size());
                  for (std::size_t i = 0; i < cmp; ++i) {
                    const bool same = out[i] == ref[i] || (out[i] >= ub && ref[i] >= ub);
                    bad += same ? 0 : 1;
                  }
                  if (bad) check = "MISMATCH(" + std::to_string(bad) + ")";
                  if (cmp < children) check += " (cpu checked " + std::to_string(cmp) + ")";
                }
                if (r >= 2) ms_kernel.push_back((bd.times().kernel - before) * 1e3);
              }
              std::sort(ms_kernel.begin(), ms_kernel.end());
              const double med = ms_kernel[ms_kernel.size() / 2];
              const double gpu_rate = static_cast<double>(children) / (med * 1e-3);
              std::printf("%-8s %3dx%-2d %-7s %-10s %-6s %-7s %-6s %-14s %4d %8zu %10.3f %10.1f %12.1f %9.0f %s\n",
                          name.c_str(), inst.n, inst.m, a["--bound"].c_str(), ks.c_str(),
                          bd.tables_in_shared() ? "shared" : "global", bd.tables_compact() ? "compact" : "int",
                          ss.c_str(), strategy.c_str(), tpb, children, med, gpu_rate / 1e6, cpu_rate / 1e3,
                          gpu_rate / cpu_rate, check.c_str());
              std::ostringstream j;
              j << "{\"instance\":\"" << name << "\",\"n\":" << inst.n << ",\"m\":" << inst.m << ",\"bound\":\""
                << a["--bound"] << "\",\"kernel\":\"" << ks << "\",\"memory\":\""
                << (bd.tables_in_shared() ? "shared" : "global")
                << "\",\"compact_times\":" << (compact ? "true" : "false") << ",\"tables\":\""
                << (bd.tables_compact() ? "compact" : "int") << "\",\"sort\":\"" << ss << "\",\"tpb\":" << tpb
                << ",\"strategy\":\"" << strategy << "\",\"strategy_params\":\"" << gpu::describe(sp) << "\""
                << ",\"children\":" << children << ",\"ub\":" << ub << ",\"kernel_ms_median\":" << med
                << ",\"gpu_bounds_per_s\":" << gpu_rate << ",\"cpu_bounds_per_s\":" << cpu_rate
                << ",\"speedup\":" << gpu_rate / cpu_rate << ",\"check\":\"" << check << "\",\"device\":\"" << dev.name
                << "\",\"commit\":\"" << PFSP_GIT_COMMIT << "\"}";
              json.push_back(j.str());
              if (check.rfind("ok", 0) != 0) {
                std::cerr << "bound mismatch\n";
                for (const auto& line : json) std::cout << line << "\n";
                return 1;
              }
            }
    }
    for (const auto& line : json) std::cout << line << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pfsp_gpu_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
