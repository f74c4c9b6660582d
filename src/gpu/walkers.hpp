// Iterated-greedy walkers on the GPU, beside the CPU walkers of the incumbent engine
// (heuristic/improver.hpp; docs/decisions/012-incumbent-engine.md). One thread block is one walker
// running whole IG rounds (destruction, greedy reconstruction, insertion local search with
// sideways moves, constant-temperature acceptance): the heads and tails of Taillard's acceleration
// are computed by one warp each as a wavefront in registers (lane k = machine k), the makespans of
// the insertion positions by the whole block, the best position by a block reduction with random
// tie-breaking. A host thread launches rounds of about 50 ms, restarts stagnating walkers from the
// engine's best, and hands every improvement, re-evaluated on the host, to `publish`.
// Plain C++ interface; needs m <= 32 (one lane per machine) — available() says whether it runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp::gpu {

struct walker_hooks {
  std::function<int()> best_value;                       // the engine's best makespan (lock-free)
  std::function<std::vector<int>()> best_schedule;       // its schedule
  std::function<void(const std::vector<int>&)> publish;  // a better schedule (the engine re-evaluates)
};

class gpu_walkers {
 public:
  // Whether walkers can run for this instance (m <= 32, n >= 3).
  static bool available(const instance& inst);
  // Starts `count` walkers (0: two per multiprocessor) on `device` from hooks.best_schedule().
  gpu_walkers(const instance& inst, int device, int count, std::uint64_t seed, walker_hooks hooks);
  ~gpu_walkers();
  gpu_walkers(const gpu_walkers&) = delete;
  gpu_walkers& operator=(const gpu_walkers&) = delete;

  void stop();  // returns after the launch in flight (about 50 ms)
  std::uint64_t rounds() const;
  int walkers() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// For the tests: the makespan of inserting `job` at every position of seq, computed by the
// walkers' device code (one block) — equal to heuristic/insertion.hpp's insertion_values.
std::vector<int> device_insertion_values(const instance& inst, const std::vector<int>& seq, int job, int device = 0);

}  // namespace pfsp::gpu
