// Task-pool bookkeeping of SIMT microscheduling (Frey, Reina, Ertl), host+device.
//
// Persistent threads fetch a new task when they finish one, instead of idling until their warp is
// done (termination divergence). Tasks are consecutive integers, so every pool is a pair of
// counters (Frey 4.1). The kernels in gpu/task_pool.cuh and the host model in task_pool_sim.hpp
// call these same functions; only the atomics and the warp votes differ (hardware vs. a loop).
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence {

// Who shares a pool (Frey Table 1 and Fig. 4).
enum class pool_kind : std::uint8_t {
  global,      // one global pool; each thread refills a private chunk with its own atomic
  local,       // one static pool of `chunk` tasks per block, in shared memory; grid = tasks / chunk
  hybrid,      // one pool per warp, refilled from the global pool by a single lane
  persistent,  // Aila & Laine: the warp takes one task per lane from the global pool once all are done
};
// When a warp leaves its computation loop to write results and fetch (Frey 4.3).
enum class fetch_control : std::uint8_t {
  any,     // as soon as one thread is out of work
  all,     // only when every thread is (persistent threads)
  ballot,  // when `idle_threshold` threads are, counted with ballot + popc
  atomic,  // the same threshold, counted with a shared-memory atomicAdd
};

const char* to_string(pool_kind p);
const char* to_string(fetch_control c);

// Tuning numbers of one run (a value struct, not constants in kernels).
struct task_pool_params {
  pool_kind pool = pool_kind::hybrid;
  fetch_control control = fetch_control::any;
  std::uint32_t chunk = 1;           // tasks moved from a higher pool at a time
  std::uint32_t idle_threshold = 1;  // k of Ballot(k) / Atomic(k), 1..32
  // Iterations a thread runs between two fetch-control votes (1: a vote after every iteration, as
  // in the paper). A vote costs about as much as a cheap iteration (a Julia step), so deferring it
  // trades a few idle iterations after a task ends for fewer votes (cf. deferred switching, 3.3).
  std::uint32_t check_interval = 1;
};

// A pool: the tasks [next, end).
struct task_range {
  std::uint32_t next = 0;
  std::uint32_t end = 0;
  PFSP_HD std::uint32_t size() const { return end > next ? end - next : 0u; }
  PFSP_HD bool empty() const { return next >= end; }
};

PFSP_HD std::uint32_t min_u32(std::uint32_t a, std::uint32_t b) { return a < b ? a : b; }

// The range handed out by one fetch-and-add of `amount` on the global counter, whose old value was
// `old_next`, out of `total` tasks. Counters may run past `total`; the range is then empty.
PFSP_HD task_range range_from_counter(std::uint32_t old_next, std::uint32_t amount, std::uint32_t total) {
  const std::uint32_t b = min_u32(old_next, total);
  const std::uint32_t e = amount > total - b ? total : b + amount;
  return {b, e};
}

// Frey 4.3. `finished`: lanes holding a completed task; `busy`: lanes still iterating. Lanes that
// found every pool empty are retired and count as neither, so Ballot(k) cannot wait forever.
PFSP_HD bool leave_computation_loop(fetch_control c, int finished, int busy, std::uint32_t k) {
  if (busy == 0) return true;
  switch (c) {
    case fetch_control::any:
      return finished >= 1;
    case fetch_control::all:
      return false;
    case fetch_control::ballot:
    case fetch_control::atomic:
      return finished >= static_cast<int>(k);
  }
  return true;
}

// The lanes of `need` take consecutive tasks starting at `base`, in lane order (ballot + popc,
// no atomic per lane).
PFSP_HD std::uint32_t lane_task(std::uint32_t base, lane_mask need, int lane) {
  return base + static_cast<std::uint32_t>(rank_in(need, lane));
}

// Hybrid fetch (Frey 4.2). Idle lanes first take what is left in the warp's pool; if that is not
// enough, the lane that drew the smallest task id beyond it (rank == from_local) fetches
// idle + chunk tasks from the global pool with one atomic, and the overflowing lanes take the
// first ones. refill == 0: no global fetch.
struct hybrid_fetch {
  std::uint32_t from_local = 0;  // lanes served by the warp's pool
  std::uint32_t refill = 0;      // tasks asked from the global pool
  int fetch_lane = -1;           // the lane that does the global fetch
};

PFSP_HD hybrid_fetch plan_hybrid_fetch(task_range local, lane_mask need, std::uint32_t chunk) {
  hybrid_fetch f;
  const std::uint32_t n = static_cast<std::uint32_t>(popc(need));
  f.from_local = min_u32(n, local.size());
  if (n > f.from_local) {
    f.refill = n + chunk;
    // The lane of rank from_local among `need`.
    lane_mask m = need;
    for (std::uint32_t r = 0; r < f.from_local; ++r) m &= m - 1;
    f.fetch_lane = lowest_lane(m);
  }
  return f;
}

// Task of `lane` (a lane of `need`) after a hybrid fetch; `refilled` is the range the global fetch
// returned (ignored when f.refill == 0). Invalid (>= end) means the pools are exhausted.
PFSP_HD bool hybrid_lane_task(task_range local, lane_mask need, int lane, const hybrid_fetch& f, task_range refilled,
                              std::uint32_t* task) {
  const std::uint32_t r = static_cast<std::uint32_t>(rank_in(need, lane));
  if (r < f.from_local) {
    *task = local.next + r;
    return true;
  }
  *task = refilled.next + (r - f.from_local);
  return *task < refilled.end;
}

// The warp's pool after the fetch.
PFSP_HD task_range hybrid_pool_after(task_range local, lane_mask need, const hybrid_fetch& f, task_range refilled) {
  if (f.refill == 0) return {local.next + f.from_local, local.end};
  const std::uint32_t used = static_cast<std::uint32_t>(popc(need)) - f.from_local;
  return {min_u32(refilled.next + used, refilled.end), refilled.end};
}

// Static block pool of Local: block b owns tasks [b * chunk, (b + 1) * chunk).
PFSP_HD task_range local_block_range(std::uint32_t block, std::uint32_t chunk, std::uint32_t total) {
  const std::uint64_t b = static_cast<std::uint64_t>(block) * chunk;
  const std::uint64_t e = b + chunk;
  return {static_cast<std::uint32_t>(b < total ? b : total), static_cast<std::uint32_t>(e < total ? e : total)};
}

// The work a kernel is given: tasks 0..n-1, each an independent iterative computation. A
// termination workload W provides, all PFSP_HD and const:
//   using state = ...;                       // trivially copyable task context
//   state init(std::uint32_t task) const;
//   bool step(state& s) const;               // one iteration; false once the task is complete
//   void finish(const state& s) const;       // writes the task's result
//   std::uint32_t size() const;              // number of tasks

}  // namespace pfsp::divergence
