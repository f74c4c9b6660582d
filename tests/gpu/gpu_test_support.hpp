// Helpers of the GPU tests: skip without a device, random parents at every depth, and the CPU
// reference bounds in the bounder's natural order.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "gpu/bounder.hpp"
#include "gpu/pool_layout.hpp"
#include "heuristic/neh.hpp"
#include "problem/instance.hpp"
#include "problem/taillard.hpp"
#include "search/control.hpp"
#include "search/types.hpp"
#include "support.hpp"

#define PFSP_REQUIRE_GPU()                                                  \
  do {                                                                      \
    if (::pfsp::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

namespace pfsp::test {

struct parent_node {
  std::vector<int> perm;
  int limit1 = -1, limit2 = 0;
};

// `per_depth` random parents at every depth 0 .. n-1, prefix and suffix sizes drawn at random
// (empty prefix and empty suffix included).
inline std::vector<parent_node> parents_at_every_depth(int n, int per_depth, std::mt19937& rng) {
  std::vector<parent_node> out;
  for (int depth = 0; depth < n; ++depth)
    for (int r = 0; r < per_depth; ++r) {
      parent_node p;
      p.perm.resize(static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j) p.perm[static_cast<std::size_t>(j)] = j;
      std::shuffle(p.perm.begin(), p.perm.end(), rng);
      int a;
      if (r == 0)
        a = 0;  // empty prefix
      else if (r == 1)
        a = depth;  // empty suffix
      else
        a = static_cast<int>(rng() % static_cast<unsigned>(depth + 1));
      p.limit1 = a - 1;
      p.limit2 = n - (depth - a);
      out.push_back(std::move(p));
    }
  return out;
}

// An instance under test, how it is named in failure messages, and how many random parents a
// depth it gets (0: a spread sample of depths only).
struct instance_case {
  instance inst;
  std::string what;
  int per_depth;
};

// Parents at every depth for n <= 70, or otherwise (and for per_depth 0) about `spread` parents at
// spread depths plus the deepest one: the CPU reference is O(m^2 n) per child.
inline std::vector<parent_node> parents_for(const instance_case& c, std::mt19937& rng, std::size_t spread) {
  const int n = c.inst.n;
  if (c.per_depth > 0 && n <= 70) return parents_at_every_depth(n, c.per_depth, rng);
  std::vector<parent_node> all = parents_at_every_depth(n, 2, rng), some;
  const std::size_t stride = std::max<std::size_t>(1, all.size() / spread);
  for (std::size_t i = 0; i < all.size(); i += stride) some.push_back(all[i]);
  some.push_back(all.back());
  return some;
}

// Writes parents into slot s of the bounder's staging.
inline void stage(gpu::bounder& bd, int s, const std::vector<parent_node>& parents) {
  const int n = bd.n();
  auto* bytes = static_cast<unsigned char*>(bd.perms(s));
  for (std::size_t p = 0; p < parents.size(); ++p) {
    for (int i = 0; i < n; ++i) {
      const std::size_t at = p * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
      const int j = parents[p].perm[static_cast<std::size_t>(i)];
      if (bd.job_bytes() == 1)
        bytes[at] = static_cast<unsigned char>(j);
      else
        reinterpret_cast<std::uint16_t*>(bytes)[at] = static_cast<std::uint16_t>(j);
    }
    bd.limits(s)[p] = gpu::pack_limits(parents[p].limit1, parents[p].limit2);
  }
}

// child_bound on the CPU for every child, in the natural order (forward block then backward
// block per parent for the bidirectional rules, else the one direction).
inline std::vector<int> cpu_child_bounds(const bound_data& data, bound_kind kind, branching rule,
                                         const std::vector<parent_node>& parents, int ub) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  std::vector<int> front(m), back(m), remain(m), scratch(m), out;
  std::vector<unsigned char> flags(static_cast<std::size_t>(n));
  for (const auto& p : parents) {
    node_parts(b, p.perm.data(), p.limit1, p.limit2, front.data(), back.data(), remain.data());
    const int first = p.limit1 + 1, count = p.limit2 - first;
    for (int i = 0; i < n; ++i)
      flags[static_cast<std::size_t>(p.perm[static_cast<std::size_t>(i)])] = (i < first || i >= p.limit2) ? 1 : 0;
    const unsigned char* f = flags.data();
    auto sched = [f](int j) { return f[j] != 0; };
    std::vector<bool> dirs;
    if (rule == branching::forward)
      dirs = {true};
    else if (rule == branching::backward)
      dirs = {false};
    else
      dirs = {true, false};
    for (bool fwd : dirs)
      for (int c = 0; c < count; ++c)
        out.push_back(child_bound(kind, b, front.data(), back.data(), remain.data(), sched,
                                  p.perm[static_cast<std::size_t>(first + c)], fwd, ub, scratch.data()));
  }
  return out;
}

inline std::vector<int> cpu_node_bounds(const bound_data& data, bound_kind kind,
                                        const std::vector<parent_node>& parents, int ub) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  std::vector<int> front(m), back(m), remain(m), out;
  std::vector<unsigned char> flags(static_cast<std::size_t>(n));
  for (const auto& p : parents) {
    node_parts(b, p.perm.data(), p.limit1, p.limit2, front.data(), back.data(), remain.data());
    for (int i = 0; i < n; ++i)
      flags[static_cast<std::size_t>(p.perm[static_cast<std::size_t>(i)])] = (i <= p.limit1 || i >= p.limit2) ? 1 : 0;
    const unsigned char* f = flags.data();
    out.push_back(node_bound(
        kind, b, front.data(), back.data(), remain.data(), [f](int j) { return f[j] != 0; }, ub));
  }
  return out;
}

inline const std::vector<bound_kind>& all_kinds() {
  static const std::vector<bound_kind> v{bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2};
  return v;
}
inline const std::vector<gpu::kernel_variant>& all_variants() {
  static const std::vector<gpu::kernel_variant> v{gpu::kernel_variant::plain, gpu::kernel_variant::refactored,
                                                  gpu::kernel_variant::branchless};
  return v;
}
inline const std::vector<gpu::memory_placement>& all_placements() {
  static const std::vector<gpu::memory_placement> v{gpu::memory_placement::shared, gpu::memory_placement::global};
  return v;
}
inline const std::vector<gpu::pool_sort>& all_sorts() {
  static const std::vector<gpu::pool_sort> v{gpu::pool_sort::none, gpu::pool_sort::host, gpu::pool_sort::device};
  return v;
}

// Limits and Ctrl-C end a GPU solve (`solve(data, opt, start)`, either loop) with their status:
// ta021 from NEH, a node limit with LB2, a time limit with `time_limit_bound`, and an interrupt
// raised before the start; the schedule reported is always a valid one.
// `solve(opt)` with opt.interrupt raised after `ms` milliseconds by another thread (never when ms
// is negative): a stop from outside at an arbitrary point, as pfsp-mpi asks a chunk back.
template <class Solve>
solve_result solve_interrupted_after(solve_options opt, int ms, Solve&& solve) {
  std::atomic<bool> stop{false};
  opt.interrupt = &stop;
  std::thread stopper([&stop, ms] {
    if (ms < 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    stop.store(true);
  });
  solve_result r = solve(opt);
  stopper.join();
  return r;
}

template <class Solve>
void expect_limits_end_with_their_status(Solve&& solve, bound_kind time_limit_bound) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  const neh_result h = neh(inst);
  const incumbent start(h.makespan, h.schedule);
  {
    solve_options opt;
    opt.bound = bound_kind::lb2;
    opt.node_limit = 2000;
    const solve_result r = solve(data, opt, start);
    EXPECT_EQ(r.status, solve_status::node_limit);
    EXPECT_GE(r.stats.branched, 2000u);
    EXPECT_LE(r.lower_bound, inst.known->ub);
    EXPECT_EQ(r.makespan, naive_makespan(inst, r.schedule));
    EXPECT_GT(r.stats.explored, 0.0);
    EXPECT_LT(r.stats.explored, 1.0);
  }
  {
    solve_options opt;
    opt.bound = time_limit_bound;
    opt.time_limit = 0.3;
    const solve_result r = solve(data, opt, start);
    EXPECT_EQ(r.status, solve_status::time_limit);
    EXPECT_LT(r.stats.total_seconds, 5.0);
    EXPECT_EQ(r.makespan, naive_makespan(inst, r.schedule));
  }
  {
    std::atomic<bool> stop{true};
    solve_options opt;
    opt.bound = bound_kind::lb2;
    opt.interrupt = &stop;
    int reports = 0;
    opt.on_progress = [&](const progress_info&) { ++reports; };
    const solve_result r = solve(data, opt, start);
    EXPECT_EQ(r.status, solve_status::interrupted);
    EXPECT_EQ(r.makespan, h.makespan);
  }
}

}  // namespace pfsp::test
