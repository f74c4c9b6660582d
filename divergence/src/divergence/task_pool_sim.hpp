// Host model of the persistent-thread kernels (gpu/task_pool.cuh) and of the context-switching
// kernel (gpu/context_switch.cuh): warps of 32 lanes run in lockstep, votes are loops over lanes,
// atomics are plain additions, and resident warps advance one loop iteration per tick in round
// robin. The pool bookkeeping is the same code the kernels run (task_pool.hpp,
// context_switch.hpp), so the CPU tests check it: every task runs exactly once, results match the
// plain computation, and the SIMT efficiency the papers predict appears.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "divergence/context_switch.hpp"
#include "divergence/error.hpp"
#include "divergence/task_pool.hpp"

namespace pfsp::divergence {

struct sim_config {
  std::uint32_t resident_warps = 64;  // warps that fit on the modelled GPU at once
  std::uint32_t warps_per_block = 4;  // for Local's block pools
};

struct sim_stats {
  std::uint64_t warp_iterations = 0;  // loop iterations issued, summed over warps (issue slots)
  std::uint64_t lane_work = 0;        // lane-iterations doing useful work
  std::uint64_t fetch_rounds = 0;     // times a warp left its loop to fetch
  std::uint64_t global_atomics = 0;
  std::uint64_t shared_atomics = 0;
  std::uint64_t makespan = 0;           // ticks until the last warp ended
  std::uint64_t branch_executions = 0;  // context switching: managed-branch bodies issued by warps
  std::uint64_t branch_lanes = 0;       // ... lanes active in them
  double simt_efficiency() const {
    return warp_iterations ? static_cast<double>(lane_work) / (32.0 * static_cast<double>(warp_iterations)) : 1.0;
  }
  double branch_efficiency() const {
    return branch_executions ? static_cast<double>(branch_lanes) / (32.0 * static_cast<double>(branch_executions))
                             : 1.0;
  }
};

// Persistent kernels run with Persistent's fetch control forced to All (Aila and Laine).
inline fetch_control effective_control(const task_pool_params& p) {
  return p.pool == pool_kind::persistent ? fetch_control::all : p.control;
}

void check_params(const task_pool_params& p);

// --- termination divergence -----------------------------------------------------------------

// The plain kernel: one thread per task, warp w runs tasks 32w..32w+31 to the end of the longest.
template <class W>
sim_stats simulate_plain(const W& w, const sim_config& cfg) {
  const std::uint32_t n = w.size();
  const std::uint32_t warps = (n + 31u) / 32u;
  sim_stats st;
  std::vector<std::uint64_t> slot_free(std::max(1u, cfg.resident_warps), 0);  // tick at which a slot frees
  for (std::uint32_t wi = 0; wi < warps; ++wi) {
    std::uint64_t longest = 0;
    for (std::uint32_t l = 0; l < 32; ++l) {
      const std::uint32_t t = wi * 32u + l;
      if (t >= n) break;
      auto s = w.init(t);
      std::uint64_t it = 1;
      while (w.step(s)) ++it;
      w.finish(s);
      st.lane_work += it;
      longest = std::max(longest, it);
    }
    st.warp_iterations += longest;
    auto slot = std::min_element(slot_free.begin(), slot_free.end());
    *slot += longest;
  }
  st.makespan = *std::max_element(slot_free.begin(), slot_free.end());
  return st;
}

template <class W>
sim_stats simulate_task_pool(const W& w, const task_pool_params& params, const sim_config& cfg) {
  check_params(params);
  using state = typename W::state;
  const std::uint32_t n = w.size();
  const fetch_control control = effective_control(params);
  const std::uint32_t wpb = std::max(1u, cfg.warps_per_block);
  struct lane {
    bool has = false, done = false, retired = false;
    state s{};
    task_range priv{};  // Global's private pool
  };
  struct warp {
    lane lanes[32];
    task_range local{};  // Hybrid's warp pool
    std::uint32_t block = 0;
    bool alive = true;
  };
  sim_stats st;
  std::uint32_t global_next = 0;
  std::vector<task_range> block_pool;  // Local's per-block pools
  const std::uint32_t total_blocks =
      params.pool == pool_kind::local ? (n + params.chunk - 1) / params.chunk : std::max(1u, cfg.resident_warps / wpb);
  std::uint32_t next_block = 0;
  std::vector<warp> resident;
  auto admit_block = [&] {
    const std::uint32_t b = next_block++;
    if (params.pool == pool_kind::local) block_pool.push_back(local_block_range(b, params.chunk, n));
    for (std::uint32_t i = 0; i < wpb; ++i) {
      warp wp;
      wp.block = b;
      resident.push_back(wp);
    }
  };

  // Lanes of `need` fetch one task each; mirrors fetch() in gpu/task_pool.cuh.
  auto fetch = [&](warp& wp, lane_mask need) {
    if (need == 0) return;
    ++st.fetch_rounds;
    std::uint32_t task[32];
    bool got[32] = {};
    switch (params.pool) {
      case pool_kind::global:
        for (int l = 0; l < 32; ++l) {
          if (!has_lane(need, l)) continue;
          lane& ln = wp.lanes[l];
          if (ln.priv.empty()) {
            ln.priv = range_from_counter(global_next, params.chunk, n);
            global_next += params.chunk;
            ++st.global_atomics;
          }
          if (!ln.priv.empty()) {
            task[l] = ln.priv.next++;
            got[l] = true;
          }
        }
        break;
      case pool_kind::local: {
        task_range& bp = block_pool[wp.block];
        const std::uint32_t base = bp.next;
        bp.next += static_cast<std::uint32_t>(popc(need));
        ++st.shared_atomics;
        for (int l = 0; l < 32; ++l) {
          if (!has_lane(need, l)) continue;
          task[l] = lane_task(base, need, l);
          got[l] = task[l] < bp.end;
        }
        break;
      }
      case pool_kind::hybrid: {
        const hybrid_fetch f = plan_hybrid_fetch(wp.local, need, params.chunk);
        task_range refilled{};
        if (f.refill) {
          refilled = range_from_counter(global_next, f.refill, n);
          global_next += f.refill;
          ++st.global_atomics;
        }
        for (int l = 0; l < 32; ++l)
          if (has_lane(need, l)) got[l] = hybrid_lane_task(wp.local, need, l, f, refilled, &task[l]);
        wp.local = hybrid_pool_after(wp.local, need, f, refilled);
        break;
      }
      case pool_kind::persistent: {
        const std::uint32_t base = global_next;
        global_next += static_cast<std::uint32_t>(popc(need));
        ++st.global_atomics;
        for (int l = 0; l < 32; ++l) {
          if (!has_lane(need, l)) continue;
          task[l] = lane_task(base, need, l);
          got[l] = task[l] < n;
        }
        break;
      }
    }
    for (int l = 0; l < 32; ++l) {
      if (!has_lane(need, l)) continue;
      lane& ln = wp.lanes[l];
      if (got[l]) {
        ln.has = true;
        ln.done = false;
        ln.s = w.init(task[l]);
      } else {
        ln.retired = true;
      }
    }
  };

  auto need_mask = [](const warp& wp) {
    lane_mask m = 0;
    for (int l = 0; l < 32; ++l)
      if (!wp.lanes[l].has && !wp.lanes[l].retired) m |= 1u << l;
    return m;
  };

  // One tick of one warp: an iteration of the computation loop, then, if the fetch control says
  // so, result writing and fetching. Mirrors the loop of the kernel.
  auto tick = [&](warp& wp) {
    std::uint64_t longest = 0;  // the warp issues as many iterations as its busiest lane runs
    int finished = 0, busy = 0;
    for (auto& ln : wp.lanes) {
      if (ln.has && !ln.done) {
        std::uint64_t steps = 0;
        for (std::uint32_t u = 0; u < params.check_interval; ++u) {
          ++steps;
          if (!w.step(ln.s)) {
            ln.done = true;
            break;
          }
        }
        st.lane_work += steps;
        longest = std::max(longest, steps);
      }
      finished += ln.has && ln.done;
      busy += ln.has && !ln.done;
    }
    st.warp_iterations += std::max<std::uint64_t>(1, longest);
    if (control == fetch_control::atomic) st.shared_atomics += static_cast<std::uint64_t>(finished);
    if (!leave_computation_loop(control, finished, busy, params.idle_threshold)) return;
    for (auto& ln : wp.lanes) {
      if (ln.has && ln.done) {
        w.finish(ln.s);
        ln.has = false;
      }
    }
    fetch(wp, need_mask(wp));
    bool any = false;
    for (auto& ln : wp.lanes) any = any || ln.has;
    wp.alive = any;
  };

  auto start_warp = [&](warp& wp) {
    fetch(wp, full_mask);
    bool any = false;
    for (auto& ln : wp.lanes) any = any || ln.has;
    wp.alive = any;
  };
  const std::uint32_t max_blocks = std::max(1u, cfg.resident_warps / wpb);
  while (next_block < total_blocks && next_block < max_blocks) admit_block();
  for (auto& wp : resident) start_warp(wp);
  std::uint64_t now = 0;
  for (;;) {
    bool any_alive = false;
    for (auto& wp : resident) {
      if (!wp.alive) continue;
      tick(wp);
      any_alive = true;
    }
    if (any_alive) ++now;
    // A block whose warps all ended frees its slot for the next block of the grid (Local's grid
    // is larger than what is resident; the persistent grids are exactly what is resident).
    bool admitted = false;
    for (std::size_t b0 = 0; b0 + wpb <= resident.size() && next_block < total_blocks; b0 += wpb) {
      bool dead = true;
      for (std::size_t i = b0; i < b0 + wpb; ++i) dead = dead && !resident[i].alive;
      if (!dead) continue;
      const std::uint32_t b = next_block++;
      if (params.pool == pool_kind::local) block_pool.push_back(local_block_range(b, params.chunk, n));
      for (std::size_t i = b0; i < b0 + wpb; ++i) {
        resident[i] = warp{};
        resident[i].block = b;
        start_warp(resident[i]);
      }
      admitted = true;
    }
    if (!any_alive && !admitted) break;
  }
  st.makespan = now;
  return st;
}

// --- branch divergence ----------------------------------------------------------------------

// Plain kernel: a warp issues the branch body whenever any lane takes it (Frey Fig. 1b).
// warp_iterations counts outer iterations, branch_* the bodies issued and the lanes active.
template <class B>
sim_stats simulate_branch_plain(const B& b) {
  using context = typename B::context;
  const std::uint32_t n = b.size();
  sim_stats st;
  for (std::uint32_t w0 = 0; w0 < n; w0 += 32) {
    context c[32];
    bool live[32] = {};
    for (std::uint32_t l = 0; l < 32; ++l)
      if (w0 + l < n) {
        c[l] = b.init(w0 + l);
        live[l] = true;
      }
    for (;;) {
      bool any_live = false, take[32] = {};
      int takers = 0;
      for (int l = 0; l < 32; ++l) {
        if (!live[l]) continue;
        any_live = true;
        take[l] = b.decide(c[l]);
        takers += take[l];
      }
      if (!any_live) break;
      ++st.warp_iterations;
      if (takers) {
        ++st.branch_executions;
        st.branch_lanes += static_cast<std::uint64_t>(takers);
      }
      for (int l = 0; l < 32; ++l) {
        if (!live[l]) continue;
        ++st.lane_work;
        if (take[l]) b.branch(c[l]);
        if (!b.advance(c[l])) {
          b.finish(c[l]);
          live[l] = false;
        }
      }
    }
  }
  return st;
}

// Task-context switching; resident warps advance one iteration per tick in round robin and share
// only the global task counter. Mirrors context_switch_kernel in gpu/context_switch.cuh.
template <class B>
sim_stats simulate_context_switch(const B& b, const context_switch_params& p, std::uint32_t warps) {
  using context = typename B::context;
  PFSP_DIV_EXPECTS(p.pool_contexts % 32 == 0, "pool_contexts must be a multiple of 32");
  const std::uint32_t n = b.size();
  sim_stats st;
  std::uint32_t global_next = 0;
  struct warp {
    std::vector<context> slots;
    std::vector<std::uint32_t> list_taken, list_not;  // the branch map
    branch_map_counts k;
    context c[32];
    bool has[32] = {}, want[32] = {};
    std::uint32_t it = 0;
    bool alive = true;
  };
  std::vector<warp> ws(std::max(1u, warps));
  for (auto& w : ws) {
    w.slots.resize(p.pool_contexts);
    w.list_taken.resize(p.pool_contexts);
    w.list_not.resize(p.pool_contexts);
    // Initial contexts: 32 attached plus pool_contexts pooled, fetched with one atomic.
    const task_range first = range_from_counter(global_next, 32u + p.pool_contexts, n);
    global_next += 32u + p.pool_contexts;
    ++st.global_atomics;
    for (int l = 0; l < 32; ++l) {
      const std::uint32_t t = first.next + static_cast<std::uint32_t>(l);
      if (t < first.end) {
        w.c[l] = b.init(t);
        w.want[l] = b.decide(w.c[l]);
        w.has[l] = true;
      }
    }
    for (std::uint32_t s0 = 0; s0 < p.pool_contexts; s0 += 32) {
      lane_mask valid = 0, yes = 0;
      context fresh[32];
      for (int l = 0; l < 32; ++l) {
        const std::uint32_t t = first.next + 32u + s0 + static_cast<std::uint32_t>(l);
        if (t >= first.end) continue;
        fresh[l] = b.init(t);
        valid |= 1u << l;
        if (b.decide(fresh[l])) yes |= 1u << l;
      }
      for (int l = 0; l < 32; ++l) {
        if (!has_lane(valid, l)) continue;
        const std::uint32_t slot = s0 + static_cast<std::uint32_t>(l);
        w.slots[slot] = fresh[l];
        if (has_lane(yes, l)) {
          w.list_taken[w.k.taken + static_cast<std::uint32_t>(rank_in(yes, l))] = slot;
        } else {
          w.list_not[w.k.not_taken + static_cast<std::uint32_t>(rank_in(valid & ~yes, l))] = slot;
        }
      }
      w.k.taken += static_cast<std::uint32_t>(popc(yes));
      w.k.not_taken += static_cast<std::uint32_t>(popc(valid & ~yes));
    }
  }

  auto tick = [&](warp& w) {
    lane_mask live = 0, wants = 0;
    for (int l = 0; l < 32; ++l) {
      live |= w.has[l] ? 1u << l : 0u;
      wants |= (w.has[l] && w.want[l]) ? 1u << l : 0u;
    }
    if (live == 0 && w.k.taken + w.k.not_taken == 0) {
      w.alive = false;
      return;
    }
    const bool voting = vote_now(w.it++, p.vote_interval);
    const bool path = voting ? consensus(wants, live, w.k) : p.default_path;
    if (voting) {
      lane_switch sw[32];
      for (int l = 0; l < 32; ++l) sw[l] = plan_switch(l, live, wants, path, w.k);
      std::vector<std::uint32_t>& from = path ? w.list_taken : w.list_not;
      std::vector<std::uint32_t>& to = path ? w.list_not : w.list_taken;
      for (int l = 0; l < 32; ++l) {
        if (!sw[l].load) continue;
        const std::uint32_t slot = from[sw[l].load_pos];
        const context mine = w.c[l];
        w.c[l] = w.slots[slot];
        w.want[l] = path;
        if (sw[l].store) {
          w.slots[slot] = mine;
          to[sw[l].store_pos] = slot;
        }
        w.has[l] = true;
      }
      w.k = counts_after_switch(live, wants, path, w.k);
    }
    // Only lanes whose context takes `path` run; the others wait (temporarily invalid).
    ++st.warp_iterations;
    bool active[32];
    int n_active = 0;
    for (int l = 0; l < 32; ++l) {
      active[l] = w.has[l] && w.want[l] == path;
      n_active += active[l];
    }
    if (path && n_active) {
      ++st.branch_executions;
      st.branch_lanes += static_cast<std::uint64_t>(n_active);
    }
    lane_mask ended = 0;
    for (int l = 0; l < 32; ++l) {
      if (!active[l]) continue;
      ++st.lane_work;
      if (path) b.branch(w.c[l]);
      if (!b.advance(w.c[l])) {
        b.finish(w.c[l]);
        w.has[l] = false;
        ended |= 1u << l;
      } else {
        w.want[l] = b.decide(w.c[l]);
      }
    }
    // Lanes whose task completed fetch new tasks with one warp-aggregated atomic.
    if (ended) {
      const std::uint32_t base = global_next;
      global_next += static_cast<std::uint32_t>(popc(ended));
      ++st.global_atomics;
      for (int l = 0; l < 32; ++l) {
        if (!has_lane(ended, l)) continue;
        const std::uint32_t t = lane_task(base, ended, l);
        if (t < n) {
          w.c[l] = b.init(t);
          w.want[l] = b.decide(w.c[l]);
          w.has[l] = true;
        }
      }
    }
  };
  for (;;) {
    bool any = false;
    for (auto& w : ws) {
      if (!w.alive) continue;
      tick(w);
      any = any || w.alive;
    }
    if (!any) break;
    ++st.makespan;
  }
  return st;
}

}  // namespace pfsp::divergence
