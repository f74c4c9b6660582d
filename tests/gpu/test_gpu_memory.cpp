// The device loop's memory (docs/gpu_backend.md, "Stack memory"): its node stack starts small
// and grows on demand; at its cap the bottom nodes spill to host memory and come back before
// the search needs them, so the tree is the unbounded stack's; without room to spill, the pools
// shrink to what fits and the search still proves the optimum. --gpu-memory caps an engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "base/error.hpp"
#include "gpu/resident.hpp"
#include "gpu_test_support.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

bool has_note(const solve_result& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

// "N open nodes at most" in the device loop's memory note.
std::size_t peak_open(const solve_result& r) {
  for (const std::string& n : r.notes) {
    const std::size_t at = n.find(" open nodes at most");
    if (at == std::string::npos) continue;
    std::size_t from = at;
    while (from > 0 && std::isdigit(static_cast<unsigned char>(n[from - 1]))) --from;
    return std::stoull(n.substr(from, at - from));
  }
  return 0;
}

struct memory_case {
  const char* name;
  int extra;  // the start incumbent: the optimum + extra
};

solve_result run(const instance& inst, const gpu::gpu_policy& p, int extra) {
  solve_options opt;
  opt.bound = bound_kind::lb1_lb2;
  opt.time_limit = 60;  // a failure, not a hang
  return gpu::solve_resident(bound_data(inst), opt, p, incumbent(inst.known->ub + extra, {}));
}

gpu::gpu_policy small_pools() {
  gpu::gpu_policy p;
  p.pool_size = 256;  // 128 nodes pushed an iteration at most, 32 parents popped
  return p;
}

// A stack capped at 1024 nodes (20 jobs: 231 kept for one-parent iterations), started at one
// pool's room: it grows, spills its bottom to the host and refills, and the search branches the
// same tree as with the stack it wants.
TEST(GpuMemory, SpillingToTheHostKeepsTheTree) {
  PFSP_REQUIRE_GPU();
  for (const memory_case c : {memory_case{"ta017", 40}, memory_case{"ta013", 40}}) {
    const instance inst = taillard_instance(c.name);
    const solve_result a = run(inst, small_pools(), c.extra);
    ASSERT_EQ(a.status, solve_status::optimal) << c.name;
    ASSERT_GT(peak_open(a), 2000u) << c.name << ": too small a tree to spill";
    gpu::gpu_policy p = small_pools();
    p.loop.initial_stack_pools = 1;
    p.loop.initial_stack_nodes = 0;
    p.loop.max_stack_nodes = 1024;
    const solve_result b = run(inst, p, c.extra);
    ASSERT_EQ(b.status, solve_status::optimal) << c.name;
    EXPECT_EQ(b.makespan, inst.known->ub) << c.name;
    EXPECT_EQ(naive_makespan(inst, b.schedule), inst.known->ub) << c.name;
    expect_same_tree(a, b, c.name);
    EXPECT_TRUE(has_note(b, "spills of the stacks' bottom to host memory")) << c.name;
    EXPECT_FALSE(has_note(b, "pools cut to the stack's room")) << c.name;
  }
}

// No host memory to spill to: the pools shrink to the stack's room (another order of search),
// and the optimum is still proven.
TEST(GpuMemory, PoolsShrinkWhenNothingCanSpill) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  gpu::gpu_policy p = small_pools();
  p.loop.max_stack_nodes = 1024;
  p.loop.host_spill_share = 0;
  const solve_result r = run(inst, p, 40);
  ASSERT_EQ(r.status, solve_status::optimal);
  EXPECT_EQ(r.makespan, inst.known->ub);
  EXPECT_EQ(r.lower_bound, inst.known->ub);
  EXPECT_EQ(naive_makespan(inst, r.schedule), inst.known->ub);
  EXPECT_NEAR(r.stats.explored, 1.0, 1e-9);
  EXPECT_TRUE(has_note(r, "pools cut to the stack's room"));
}

// Two engines on one device with capped stacks: spilled nodes are donated to the idle engine
// and the optimum is proven.
TEST(GpuMemory, EnginesShareSpilledNodes) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  gpu::gpu_policy p = small_pools();
  p.loop.max_stack_nodes = 1024;
  p.loop.donate_min_nodes = 0;
  p.devices = {0, 0};
  const solve_result r = run(inst, p, 40);
  ASSERT_EQ(r.status, solve_status::optimal);
  EXPECT_EQ(r.makespan, inst.known->ub);
  EXPECT_NEAR(r.stats.explored, 1.0, 1e-9);
}

// --gpu-memory: a cap below the pool buffers is refused (exit code 2), a cap above them
// proves the optimum with the default pool, and the stack starts at a few pools' room, not at
// half the device (the note gives its largest size in MiB).
TEST(GpuMemory, CapIsHonouredOrRefused) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta001");
  gpu::gpu_policy p;
  p.memory_cap = std::size_t{1} << 20;
  EXPECT_THROW(run(inst, p, 1), input_error);
  p.memory_cap = std::size_t{768} << 20;
  const solve_result r = run(inst, p, 1);
  ASSERT_EQ(r.status, solve_status::optimal);
  EXPECT_EQ(r.lower_bound, inst.known->ub);
  gpu::gpu_policy d;
  const solve_result u = run(inst, d, 1);
  expect_same_tree(r, u, "ta001 capped at 768 MiB");
}

}  // namespace
}  // namespace pfsp::test
