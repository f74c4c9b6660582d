// Device-loop engines kept between solves (resident.hpp: make_engine_cache, prepare_engines).
// An engine is taken back only by a solve that would build the same one: the same bound_data
// object, device, bound, branching, profiling and loop settings (engine_key). pfsp-mpi's workers
// solve chunk after chunk with one data and one policy, so each chunk after the first finds its
// engines ready: no tables, buffers or graphs to build, no block size to tune again.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/loop_engine.cuh"

namespace pfsp::gpu {
namespace device_loop {

// What an engine's construction reads (loop_engine's constructor and its steps).
struct engine_key {
  const bound_data* data = nullptr;
  int device = 0;
  bound_kind bound = bound_kind::lb1;
  branching branch = branching::min_branch;
  bool dominance = false;
  child_order order = child_order::bound;
  bool profile = false;
  std::size_t pool = 0, memory_cap = 0;
  int tpb = 0;
  bool sort = false, parts = true;
  double memory_share = 0;
  kernel_variant kernel = kernel_variant::branchless;
  memory_placement memory = memory_placement::shared;
  compact_mode compact = compact_mode::automatic;
  int lanes = 1;
  lb2_table_mode lb2_table = lb2_table_mode::off;
  lb2_pack_mode lb2_pack = lb2_pack_mode::auto_;
  lb1_fused_mode lb1_fused = lb1_fused_mode::auto_;
  int first_block = 0, parents_share = 0, initial_stack_pools = 0;
  std::size_t initial_stack_nodes = 0, max_stack_nodes = 0, batch_room_bytes = 0;
  bool operator==(const engine_key&) const = default;
  // The same but for the device (engines of one run's settings).
  bool same_run(engine_key k) const {
    k.device = device;
    return k == *this;
  }
};

inline engine_key key_of(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                         const loop_settings& ls, int device, double memory_share) {
  engine_key k;
  k.data = &data;
  k.device = device;
  k.bound = opt.bound;
  k.branch = opt.branch;
  k.dominance = opt.dominance;
  k.order = opt.order;
  k.profile = opt.profile;
  k.pool = ls.pool;
  k.memory_cap = ls.memory_cap;
  k.tpb = ls.tpb;
  k.sort = ls.sort;
  k.parts = ls.parts;
  k.memory_share = memory_share;
  k.kernel = policy.kernel;
  k.memory = policy.memory;
  k.compact = policy.compact_times;
  k.lanes = policy.lb2_lanes;
  k.lb2_table = policy.lb2_table;
  k.lb2_pack = policy.lb2_pack;
  k.lb1_fused = policy.lb1_fused;
  const loop_tuning& t = policy.loop;
  k.first_block = t.first_block;
  k.parents_share = t.parents_share;
  k.initial_stack_pools = t.initial_stack_pools;
  k.initial_stack_nodes = t.initial_stack_nodes;
  k.max_stack_nodes = t.max_stack_nodes;
  k.batch_room_bytes = t.batch_room_bytes;
  return k;
}

template <class Job>
struct cached_engine {
  engine_key key;
  std::unique_ptr<loop_engine<Job>> engine;
};

}  // namespace device_loop

class engine_cache {
 public:
  // An engine built with this key, or null.
  template <class Job>
  std::unique_ptr<device_loop::loop_engine<Job>> take(const device_loop::engine_key& k) {
    std::lock_guard lock(mu_);
    auto& v = list<Job>();
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->key == k) {
        std::unique_ptr<device_loop::loop_engine<Job>> e = std::move(it->engine);
        v.erase(it);
        return e;
      }
    return nullptr;
  }

  // Keeps an engine, emptied (loop_engine::reset); engines of other settings are freed (their
  // device memory goes back).
  template <class Job>
  void give(const device_loop::engine_key& k, std::unique_ptr<device_loop::loop_engine<Job>> e) {
    e->reset();
    std::lock_guard lock(mu_);
    auto& v = list<Job>();
    std::erase_if(v, [&](const device_loop::cached_engine<Job>& c) { return !c.key.same_run(k); });
    v.push_back({k, std::move(e)});
  }

 private:
  template <class Job>
  std::vector<device_loop::cached_engine<Job>>& list() {
    if constexpr (sizeof(Job) == 1)
      return small_;
    else
      return large_;
  }

  std::mutex mu_;
  std::vector<device_loop::cached_engine<std::uint8_t>> small_;   // n <= 256
  std::vector<device_loop::cached_engine<std::uint16_t>> large_;  // n > 256
};

}  // namespace pfsp::gpu
