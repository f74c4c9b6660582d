// The device loop's memory (docs/gpu_backend.md, "Stack memory"): its node stack starts small
// and grows on demand; at its cap the bottom nodes spill to host memory and come back before
// the search needs them, so the tree is the unbounded stack's; without room to spill, the pools
// shrink to what fits and the search still proves the optimum. --gpu-memory caps an engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "base/error.hpp"
#include "gpu/resident.hpp"
#include "gpu_test_support.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "search/checkpoint.hpp"
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

// "stack of N nodes at most" in the same note: the stack's largest size.
std::size_t peak_stack(const solve_result& r) {
  for (const std::string& n : r.notes) {
    const std::size_t at = n.find("stack of ");
    if (at != std::string::npos && n.find(" nodes at most", at) != std::string::npos)
      return std::stoull(n.substr(at + 9));
  }
  return 0;
}

// "(N MiB at most)" after the spills in the same note; -1 without spills.
double peak_spill_mib(const solve_result& r) {
  for (const std::string& n : r.notes) {
    const std::size_t at = n.find("spills of the stacks' bottom to host memory (");
    if (at != std::string::npos) return std::stod(n.substr(at + 45));
  }
  return -1;
}

solve_result run(const instance& inst, const gpu::gpu_policy& p, int extra) {
  solve_options opt;
  opt.bound = bound_kind::lb1_lb2;
  opt.time_limit = 60;  // a failure, not a hang
  return gpu::solve_resident(bound_data(inst), opt, p, incumbent(inst.known->ub + extra, {}));
}

// ta017 from the optimum + 40 with pools of 4096 children (2048 nodes pushed an iteration at
// most, 512 parents popped; 20 jobs: 231 nodes kept for one-parent iterations).
constexpr int kExtra = 40;
gpu::gpu_policy pools_4096() {
  gpu::gpu_policy p;
  p.pool_size = 4096;
  return p;
}

// A stack capped so that the reference search's most open nodes (`peak`) cannot stay on it:
// half of them, plus the room of one iteration and the reserve; started at one pool's room. The
// whole cap from the start (unjudged_stack_share 1): the runs have a time limit (60 s, against a
// hang), under which the default keeps a stack to an eighth of its cap without spilling until the
// tree is judged (e657ecb), so these searches cut their pools instead of spilling (H100,
// 2026-12-07: the spilled run branched 5,626,841 nodes against 5,608,443, no spill in 27 pieces).
gpu::gpu_policy capped(std::size_t peak) {
  gpu::gpu_policy p = pools_4096();
  p.loop.unjudged_stack_share = 1.0;
  p.loop.initial_stack_pools = 1;
  p.loop.initial_stack_nodes = 0;
  p.loop.max_stack_nodes = peak / 2 + 2048 + 231;
  return p;
}

// The capped stack grows, spills its bottom to the host and refills (in pieces), and the search
// branches the same tree as with the stack it wants.
TEST(GpuMemory, SpillingToTheHostKeepsTheTree) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  const solve_result a = run(inst, pools_4096(), kExtra);
  ASSERT_EQ(a.status, solve_status::optimal);
  const std::size_t peak = peak_open(a);
  ASSERT_GT(peak, 0u);
  gpu::gpu_policy p = capped(peak);
  p.loop.spill_chunk_bytes = 64 << 10;  // 1638 nodes a piece: spills and refills in several
  const solve_result b = run(inst, p, kExtra);
  ASSERT_EQ(b.status, solve_status::optimal);
  EXPECT_EQ(b.makespan, inst.known->ub);
  EXPECT_EQ(naive_makespan(inst, b.schedule), inst.known->ub);
  expect_same_tree(a, b, "ta017 spilled");
  EXPECT_TRUE(has_note(b, "spills of the stacks' bottom to host memory")) << "peak " << peak;
  EXPECT_FALSE(has_note(b, "batches ran short of room")) << "peak " << peak;
}

// A spilling search stopped by its interrupt flag (what pfsp-mpi's chunk split does: issue 22's
// lazy join lost or repeated nodes after a split on the GPU) and resumed from its final checkpoint,
// piece after piece: with the optimum as ub the tree is fixed, so the pieces branch, bound and
// prune exactly the uncapped search's nodes.
TEST(GpuMemory, InterruptedSpillingPiecesKeepTheTree) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  solve_options opt;
  opt.bound = bound_kind::lb1_lb2;
  opt.time_limit = 60;
  const bound_data data(inst);
  const incumbent start(inst.known->ub, {});
  const solve_result whole = gpu::solve_resident(data, opt, pools_4096(), start);
  ASSERT_EQ(whole.status, solve_status::proven_bound);
  gpu::gpu_policy p = capped(peak_open(whole));
  p.loop.spill_chunk_bytes = 64 << 10;
  std::optional<search_state> saved;
  solve_result r;
  int pieces = 0, spilled = 0;
  do {
    solve_options piece = opt;
    piece.resume = saved ? &*saved : nullptr;
    std::optional<search_state> written;
    piece.on_checkpoint = [&](const search_state& st) { written = st; };
    r = solve_interrupted_after(piece, 40 + 30 * (pieces % 4),
                                [&](const solve_options& o2) { return gpu::solve_resident(data, o2, p, start); });
    ASSERT_TRUE(written) << "piece " << pieces;
    spilled += has_note(r, "spills of the stacks' bottom") ? 1 : 0;
    saved = written;
    ++pieces;
  } while (!saved->complete && pieces < 300);
  const std::string what = std::to_string(pieces) + " pieces, " + std::to_string(spilled) + " spilled";
  ASSERT_TRUE(saved->complete) << what;
  EXPECT_GE(pieces, 3) << what;
  EXPECT_GE(spilled, 1) << what;
  expect_same_tree(r, whole, what);
}

// No host memory to spill to: the pools shrink to the stack's room (another order of search),
// and the optimum is still proven.
TEST(GpuMemory, PoolsShrinkWhenNothingCanSpill) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  const std::size_t peak = peak_open(run(inst, pools_4096(), kExtra));
  gpu::gpu_policy p = capped(peak);
  p.loop.host_spill_share = 0;
  const solve_result r = run(inst, p, kExtra);
  ASSERT_EQ(r.status, solve_status::optimal);
  EXPECT_EQ(r.makespan, inst.known->ub);
  EXPECT_EQ(r.lower_bound, inst.known->ub);
  EXPECT_EQ(naive_makespan(inst, r.schedule), inst.known->ub);
  EXPECT_NEAR(r.stats.explored, 1.0, 1e-9);
  EXPECT_TRUE(has_note(r, "batches ran short of room")) << "peak " << peak;
  EXPECT_FALSE(has_note(r, "spills of the stacks' bottom"));
}

// --spill-memory: the host spill stays within its cap (64 KiB here, a fraction of what the capped
// stack wants to spill), the pools shrink past it, and the optimum is still proven; 0 spills none.
TEST(GpuMemory, SpillStaysWithinItsCap) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  const std::size_t peak = peak_open(run(inst, pools_4096(), kExtra));
  for (const std::size_t cap : {std::size_t{0}, std::size_t{64} << 10}) {
    SCOPED_TRACE(cap);
    gpu::gpu_policy p = capped(peak);
    p.spill_cap = cap;
    const solve_result r = run(inst, p, kExtra);
    ASSERT_EQ(r.status, solve_status::optimal);
    EXPECT_EQ(r.makespan, inst.known->ub);
    EXPECT_EQ(naive_makespan(inst, r.schedule), inst.known->ub);
    EXPECT_NEAR(r.stats.explored, 1.0, 1e-9);
    EXPECT_LE(peak_spill_mib(r), static_cast<double>(cap) / (1 << 20) + 0.5) << "peak " << peak;  // %.0f MiB
    EXPECT_TRUE(has_note(r, "batches ran short of room")) << "peak " << peak;
  }
}

// Memory in proportion to progress: on a shop where the bound prunes almost nothing (200 jobs x
// 60 machines from NEH), under a 3-s time limit, with the tree judged hopeless from the start,
// the stack grows only to what the time left can pop; without the rule (margin 0) it grows many
// times larger. Both end at the limit with a schedule whose makespan recomputes. (The default
// judgment comes after 2 s; at 200x60 the default pools filled the stack to the memory's cap well
// before 0.3 s, so a judgment in the test must come at once for the rule to have a stack to keep.)
TEST(GpuMemory, StackGrowsOnlyWithWhatTheTimeLeftCanPop) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(200, 60, 46, 1, 99);
  const auto start = neh(inst);
  auto solve = [&](double margin) {
    gpu::gpu_policy p;
    p.loop.useful_stack_margin = margin;
    p.loop.hopeless_after_s = 0;
    p.loop.hopeless_share = 1.0;
    solve_options opt;
    opt.bound = bound_kind::lb1;
    opt.time_limit = 3;
    return gpu::solve_resident(bound_data(inst), opt, p, incumbent(start.makespan, start.schedule));
  };
  const solve_result kept = solve(4.0), unkept = solve(0.0);
  for (const solve_result* r : {&kept, &unkept}) {
    EXPECT_EQ(r->status, solve_status::time_limit);
    ASSERT_FALSE(r->schedule.empty());
    EXPECT_EQ(naive_makespan(inst, r->schedule), r->makespan);
    EXPECT_LE(r->lower_bound, r->makespan);
  }
  EXPECT_TRUE(has_note(kept, "stack kept to what the time left can pop"));
  EXPECT_FALSE(has_note(unkept, "stack kept to what the time left can pop"));
  EXPECT_LT(4 * peak_stack(kept), peak_stack(unkept)) << peak_stack(kept) << " vs " << peak_stack(unkept);
}

// Two engines on one device with capped stacks: spilled nodes are donated to the idle engine
// and the optimum is proven.
TEST(GpuMemory, EnginesShareSpilledNodes) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  const std::size_t peak = peak_open(run(inst, pools_4096(), kExtra));
  gpu::gpu_policy p = capped(peak);
  p.loop.donate_min_nodes = 0;
  p.devices = {0, 0};
  p.loop.join = gpu::join_rule::at_once();
  const solve_result r = run(inst, p, kExtra);
  ASSERT_EQ(r.status, solve_status::optimal);
  EXPECT_EQ(r.makespan, inst.known->ub);
  EXPECT_EQ(naive_makespan(inst, r.schedule), inst.known->ub);
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
