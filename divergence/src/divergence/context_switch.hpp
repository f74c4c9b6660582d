// Task-context switching for branch divergence (Frey, Reina, Ertl, Section 3 and Listing 1),
// host+device bookkeeping.
//
// Each warp keeps a pool of detached task contexts (shared memory on the GPU) and a branch map:
// for the managed branch, one list of pooled contexts that will take it and one of contexts that
// will not. Every `vote_interval` iterations the warp votes over its attached and pooled contexts
// and takes the side with more of them (ballot + popc); lanes whose context disagrees, or that
// have none, swap it for a pooled context of the chosen side, in lane order (the load offset of
// Listing 1). A lane that finds none left keeps its context, which is temporarily invalid: it
// skips this iteration and votes again at the branch next time. Lanes whose task completes are
// permanently invalid: they fetch a new task, or only load from then on. Between votes the branch
// takes `default_path` (deferred context switching, Section 3.3). The whole warp then executes only
// one side of the branch, so there is no serialisation of both paths.
//
// A branch workload B provides, all PFSP_HD and const:
//   using context = ...;                    // trivially copyable
//   context init(std::uint32_t task) const;
//   bool decide(context& c) const;          // the managed branch's condition for this iteration
//   void branch(context& c) const;          // the managed branch's body
//   bool advance(context& c) const;         // the rest of the iteration; false once complete
//   void finish(const context& c) const;
//   std::uint32_t size() const;
// Its plain form is: c = init(t); do { if (decide(c)) branch(c); } while (advance(c)); finish(c).
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence {

struct context_switch_params {
  std::uint32_t pool_contexts = 96;  // detached contexts per warp (Frey found 160 best for Monte Carlo)
  std::uint32_t vote_interval = 1;   // deferred switching: vote and switch every n-th iteration
  bool default_path = false;         // the branch outcome used between votes
};

// Warp-uniform sizes of the branch map's two lists.
struct branch_map_counts {
  std::uint32_t taken = 0;      // pooled contexts whose next branch outcome is true
  std::uint32_t not_taken = 0;  // ... false
};

PFSP_HD bool vote_now(std::uint32_t iteration, std::uint32_t interval) {
  return interval <= 1 || iteration % interval == 0;
}

// Listing 1's consensus: the side with more contexts, attached (live lanes) and pooled.
PFSP_HD bool consensus(lane_mask want, lane_mask live, branch_map_counts k) {
  const std::uint32_t yes = static_cast<std::uint32_t>(popc(want & live)) + k.taken;
  const std::uint32_t no = static_cast<std::uint32_t>(popc(~want & live)) + k.not_taken;
  return yes > no;
}

// The lowest `count` lanes of m.
PFSP_HD lane_mask first_lanes(lane_mask m, std::uint32_t count) {
  lane_mask out = 0;
  for (std::uint32_t i = 0; i < count && m != 0; ++i) {
    const lane_mask low = m & (~m + 1u);
    out |= low;
    m ^= low;
  }
  return out;
}

// Lanes that swap in a pooled context when the warp takes side `c`: those without a fitting
// context, in lane order, as many as the list for `c` holds.
PFSP_HD lane_mask switch_loaders(lane_mask live, lane_mask want, bool c, branch_map_counts k) {
  const lane_mask fit = live & (c ? want : ~want);
  return first_lanes(~fit, c ? k.taken : k.not_taken);
}

struct lane_switch {
  bool load = false;  // takes the context at list_c[load_pos]
  std::uint32_t load_pos = 0;
  bool store = false;  // puts its own context into the freed slot, appended to list_other[store_pos]
  std::uint32_t store_pos = 0;
};

PFSP_HD lane_switch plan_switch(int lane, lane_mask live, lane_mask want, bool c, branch_map_counts k) {
  lane_switch s;
  const lane_mask loaders = switch_loaders(live, want, c, k);
  if (!has_lane(loaders, lane)) return s;
  const std::uint32_t avail = c ? k.taken : k.not_taken;
  s.load = true;
  s.load_pos = avail - 1u - static_cast<std::uint32_t>(rank_in(loaders, lane));  // Listing 1: |pool[c]| - loadOffset
  if (has_lane(live, lane)) {
    s.store = true;
    s.store_pos = (c ? k.not_taken : k.taken) + static_cast<std::uint32_t>(rank_in(loaders & live, lane));
  }
  return s;
}

PFSP_HD branch_map_counts counts_after_switch(lane_mask live, lane_mask want, bool c, branch_map_counts k) {
  const lane_mask loaders = switch_loaders(live, want, c, k);
  const std::uint32_t loaded = static_cast<std::uint32_t>(popc(loaders));
  const std::uint32_t stored = static_cast<std::uint32_t>(popc(loaders & live));
  if (c) {
    k.taken -= loaded;
    k.not_taken += stored;
  } else {
    k.not_taken -= loaded;
    k.taken += stored;
  }
  return k;
}

}  // namespace pfsp::divergence
