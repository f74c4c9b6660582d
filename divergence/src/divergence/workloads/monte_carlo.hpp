// Frey et al.'s synthetic Monte Carlo test cases (Section 5.1, Figure 5). Each iteration draws a
// random number; a single iteration is cheap.
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"
#include "divergence/workloads/rng.hpp"

namespace pfsp::divergence {

// Termination divergence: the draw kills the task with probability `kill` (iteration counts are
// geometric, mean 1 / kill); otherwise it is added to the task's sum. Outputs per task: the
// iteration count and the sum (mod 2^32).
struct mc_termination {
  std::uint32_t tasks = 0;
  std::uint32_t kill_threshold = 0;  // probability_threshold(kill)
  std::uint32_t max_iterations = 1u << 20;
  std::uint32_t* out_iterations = nullptr;
  std::uint32_t* out_sum = nullptr;

  struct state {
    std::uint32_t task;
    std::uint32_t iteration;
    std::uint32_t sum;
  };
  PFSP_HD std::uint32_t size() const { return tasks; }
  PFSP_HD state init(std::uint32_t task) const { return {task, 0u, 0u}; }
  PFSP_HD bool step(state& s) const {
    const std::uint32_t r = hash_draw(s.task, s.iteration);
    ++s.iteration;
    if (r < kill_threshold || s.iteration >= max_iterations) return false;
    s.sum += r;
    return true;
  }
  PFSP_HD void finish(const state& s) const {
    out_iterations[s.task] = s.iteration;
    out_sum[s.task] = s.sum;
  }
};

// Branch divergence: `outer` iterations each; with probability `branch` an iteration enters a
// branch that sums `inner` further draws (Figure 5 right: outer = inner = 1000 in the paper).
struct mc_branch {
  std::uint32_t tasks = 0;
  std::uint32_t branch_threshold = 0;  // probability_threshold(branch)
  std::uint32_t outer = 1000;
  std::uint32_t inner = 1000;
  std::uint32_t* out_sum = nullptr;

  struct context {
    std::uint32_t task;
    std::uint32_t iteration;
    std::uint32_t sum;
  };
  PFSP_HD std::uint32_t size() const { return tasks; }
  PFSP_HD context init(std::uint32_t task) const { return {task, 0u, 0u}; }
  PFSP_HD bool decide(context& c) const { return hash_draw(c.task, 2u * c.iteration) < branch_threshold; }
  PFSP_HD void branch(context& c) const {
    // A key distinct from the decision stream: the task id with the top bit flipped, xor-mixed.
    const std::uint32_t key = hash_draw(c.task ^ 0x80000000u, c.iteration);
    std::uint32_t s = 0;
    for (std::uint32_t j = 0; j < inner; ++j) s += hash_draw(key, j);
    c.sum += s;
  }
  PFSP_HD bool advance(context& c) const {
    c.sum ^= hash_draw(c.task, 2u * c.iteration + 1u) >> 16;
    return ++c.iteration < outer;
  }
  PFSP_HD void finish(const context& c) const { out_sum[c.task] = c.sum; }
};

}  // namespace pfsp::divergence
