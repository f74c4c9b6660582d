// The device-resident loop (--gpu-loop device, src/gpu/resident.hpp) proves the optimum for
// every kernel variant, table placement, sort, bound and branching rule against brute force on
// small random instances, on Taillard's ta001..ta010 from no incumbent, and in every size class
// (8-bit jobs up to 64 and 256 jobs, 16-bit above); limits and interrupts end it with the right
// status and a valid schedule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <initializer_list>
#include <numeric>
#include <sstream>
#include <utility>

#include "base/error.hpp"
#include "bound/pair_learning.hpp"
#include "gpu/node_spill.hpp"
#include "gpu/resident.hpp"
#include "gpu_test_support.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "problem/taillard.hpp"
#include "search/checkpoint.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

const std::vector<branching>& rules() {
  static const std::vector<branching> v{branching::forward, branching::backward, branching::min_branch,
                                        branching::min_min};
  return v;
}

std::string describe(const solve_options& opt, const gpu::gpu_policy& p) {
  return std::string(to_string(opt.bound)) + " " + std::string(to_string(opt.branch)) + " kernel " +
         std::string(gpu::to_string(p.kernel)) + " memory " + std::string(gpu::to_string(p.memory)) + " sort " +
         std::string(gpu::to_string(p.sort)) + " pool " + std::to_string(p.pool_size) + " tpb " +
         std::to_string(p.threads_per_block);
}

void expect_optimal(const instance& inst, const solve_result& r, int optimum, const std::string& where) {
  ASSERT_EQ(r.status, solve_status::optimal) << where;
  ASSERT_EQ(r.makespan, optimum) << where;
  ASSERT_EQ(r.lower_bound, optimum) << where;
  ASSERT_EQ(naive_makespan(inst, r.schedule), optimum) << where;
  EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << where;
}

TEST(GpuResident, EverySwitchCombinationProvesTheBruteForceOptimum) {
  PFSP_REQUIRE_GPU();
  const std::vector<instance> cases{random_instance(7, 3, 31, 1, 20), generate_taillard(8, 4, 32),
                                    random_instance(6, 5, 33, 1, 3), random_instance(9, 2, 34, 1, 99)};
  int combo = 0;
  for (const instance& inst : cases) {
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (bound_kind kind : all_kinds())
      for (branching rule : rules())
        for (gpu::kernel_variant kv : all_variants())
          for (gpu::memory_placement mp : all_placements())
            for (gpu::pool_sort ps : {gpu::pool_sort::none, gpu::pool_sort::device}) {
              ++combo;
              solve_options opt;
              opt.bound = kind;
              opt.branch = rule;
              gpu::gpu_policy p;
              p.bound_step = gpu::loop_bound::recompute;  // the variants and sorts are its kernel's
              p.kernel = kv;
              p.memory = mp;
              p.sort = ps;
              p.pool_size = combo % 2 ? 64 : 1024;  // small pools: many iterations, partial pops
              p.threads_per_block = combo % 3 ? 32 : 128;
              const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
              expect_optimal(inst, r, optimum, inst.name + ": " + describe(opt, p));
            }
  }
}

// The parts path (--loop-bound parts, the default: parents' parts computed once, lb1-lb2 as a
// chain over the compacted LB1 survivors) on the same cases, with both table placements and
// pools that cut parents at every boundary.
TEST(GpuResident, PartsPathProvesTheBruteForceOptimum) {
  PFSP_REQUIRE_GPU();
  const std::vector<instance> cases{random_instance(7, 3, 31, 1, 20), generate_taillard(8, 4, 32),
                                    random_instance(6, 5, 33, 1, 3), random_instance(9, 2, 34, 1, 99),
                                    random_instance(8, 7, 35, 1, 50)};
  int combo = 0;
  for (const instance& inst : cases) {
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (bound_kind kind : all_kinds())
      for (branching rule : rules())
        for (gpu::memory_placement mp : all_placements())
          for (std::size_t pool : {std::size_t{18}, std::size_t{64}, std::size_t{1024}}) {
            ++combo;
            solve_options opt;
            opt.bound = kind;
            opt.branch = rule;
            gpu::gpu_policy p;
            p.bound_step = gpu::loop_bound::parts;
            p.memory = mp;
            p.pool_size = pool;
            p.threads_per_block = combo % 3 ? 32 : 128;
            p.lb2_lanes = 1 << (combo % 5);  // the chain's LB2 pass: 1, 2, 4, 8, 16 lanes a child
            // or from the parents' tables (every seventh run; the lanes then unused)
            p.lb2_table = combo % 7 == 3 ? gpu::lb2_table_mode::on : gpu::lb2_table_mode::off;
            const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
            expect_optimal(inst, r, optimum,
                           inst.name + ": parts " + describe(opt, p) + " lb2 lanes " + std::to_string(p.lb2_lanes) +
                               (p.lb2_table == gpu::lb2_table_mode::on ? " lb2 table" : ""));
          }
  }
}

// The optimum the tree tests start from: the instance's best known (Taillard's, proven at these
// sizes) or, for a random instance, the sequential CPU solver's.
int optimum_of(const instance& inst) {
  return inst.known ? inst.known->ub : solve_sequential(bound_data(inst), solve_options{}, incumbent()).makespan;
}

// The LB1->LB2 chain under `rule` from the optimum as ub: the tree of a proof.
solve_options chain_from_optimum(branching rule, int optimum) {
  solve_options opt;
  opt.bound = bound_kind::lb1_lb2;
  opt.branch = rule;
  opt.initial_ub = optimum;
  opt.time_limit = 60;
  return opt;
}

// The tree tests' cases: each named instance with its optimum (a random one's found by the CPU
// first) under each rule; the one-direction rules only on the random instances (minutes at 20x10
// with LB1 on Taillard's). body(name, inst, optimum, rule).
template <class Body>
void for_each_instance_and_rule(std::initializer_list<const char*> names, std::initializer_list<branching> rules,
                                Body&& body) {
  for (const char* name : names) {
    const instance inst = load_instance(name);
    const bool taillard = inst.known.has_value();
    const int optimum = optimum_of(inst);
    for (branching rule : rules) {
      if (taillard && (rule == branching::forward || rule == branching::backward)) continue;
      body(std::string(name), inst, optimum, rule);
    }
  }
}

// The same search with a switch off (`base`) and on (`with`): the switch ran (its marker is in the
// backend description of `with` only: a run that ignored it would pass the tree check trivially)
// and the trees are the same, node for node.
void expect_switch_branches_the_same_tree(const bound_data& data, const solve_options& opt, const gpu::gpu_policy& base,
                                          const gpu::gpu_policy& with, const std::string& marker,
                                          const std::string& what) {
  const solve_result r1 = gpu::solve_resident(data, opt, base, incumbent());
  const solve_result r2 = gpu::solve_resident(data, opt, with, incumbent());
  ASSERT_NE(r1.status, solve_status::time_limit) << what;
  EXPECT_NE(r2.backend.find(marker), std::string::npos) << what << ": " << r2.backend;
  EXPECT_EQ(r1.backend.find(marker), std::string::npos) << what << ": " << r1.backend;
  EXPECT_EQ(r1.status, r2.status) << what;
  expect_same_tree(r1, r2, what);
}

// With the optimum as ub, the parts path and the papers' per-child kernel bound the same
// children with the same values: the same tree, node for node (20x10 and 50x5 instances, every
// bound, both kinds of rule).
TEST(GpuResident, PartsAndRecomputeBranchTheSameTree) {
  PFSP_REQUIRE_GPU();
  const auto rules = {branching::min_min, branching::min_branch, branching::forward, branching::backward};
  for_each_instance_and_rule({"ta011", "ta012", "ta031", "random:13,6,3", "ta021"}, rules,
                             [](const std::string& name, const instance& inst, int optimum, branching rule) {
                               const bound_data data(inst);
                               for (bound_kind kind : all_kinds()) {
                                 // 20x20 (the register-heavy m = 20 kernels at the tuned block sizes): the chain, once.
                                 if (name == "ta021" && (kind != bound_kind::lb1_lb2 || rule != branching::min_min))
                                   continue;
                                 solve_options opt;
                                 opt.bound = kind;
                                 opt.branch = rule;
                                 opt.initial_ub = optimum;
                                 opt.time_limit = 30;
                                 const std::string what =
                                     name + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule));
                                 gpu::gpu_policy a, b;
                                 a.bound_step = gpu::loop_bound::recompute;
                                 a.sort = gpu::pool_sort::none;
                                 b.bound_step = gpu::loop_bound::parts;
                                 a.pool_size = b.pool_size = 65536;
                                 const solve_result ra = gpu::solve_resident(data, opt, a, incumbent());
                                 const solve_result rb = gpu::solve_resident(data, opt, b, incumbent());
                                 ASSERT_NE(ra.status, solve_status::time_limit) << what;
                                 EXPECT_EQ(ra.status, rb.status) << what;
                                 expect_same_tree(ra, rb, what);
                               }
                             });
}

// The chain's LB2 pass with several lanes a child (--lb2-lanes, option H of decision 013) gives
// every child the one-lane bound: with the optimum as ub, the same tree node for node (20x10,
// 20x20 and 50x20, where the learned pairs are many and the early exit is common; a 13x6 random
// instance with the one-direction rules).
TEST(GpuResident, LanesPerChildBranchTheSameTree) {
  PFSP_REQUIRE_GPU();
  for_each_instance_and_rule(
      {"ta011", "ta021", "ta031", "random:13,6,3"}, {branching::min_min, branching::forward, branching::backward},
      [](const std::string& name, const instance& inst, int optimum, branching rule) {
        const bound_data data(inst);
        const solve_options opt = chain_from_optimum(rule, optimum);
        gpu::gpu_policy one;
        one.pool_size = 65536;
        const solve_result r1 = gpu::solve_resident(data, opt, one, incumbent());
        ASSERT_NE(r1.status, solve_status::time_limit) << name;
        for (int lanes : {2, 4, 8, 16}) {
          gpu::gpu_policy p = one;
          p.lb2_lanes = lanes;
          const std::string what = name + " " + std::string(to_string(rule)) + " lanes " + std::to_string(lanes);
          const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
          // The lanes kernel ran (a run that ignored the option would pass the tree check trivially).
          EXPECT_NE(r.backend.find(std::to_string(lanes) + " lanes a child"), std::string::npos)
              << what << ": " << r.backend;
          EXPECT_EQ(r1.status, r.status) << what;
          expect_same_tree(r1, r, what);
        }
      });
}

// The chain's LB2 pass two children a thread in 16-bit halves (--lb2-pack, options L, N, O of
// decision 013) gives every child the one-child bound: with the optimum as ub, the same tree node
// for node.
// 20x10, 20x20 and 50x5 (every child packs), a 13x6 random instance with the one-direction rules,
// and a 12x6 instance of times 1..3000 whose limit (65535 - 2 W - L = 17096) lies below its
// optimum (27366): shallow children pack, deep ones take the 32-bit walk in the same kernel.
TEST(GpuResident, PackedChildrenBranchTheSameTree) {
  PFSP_REQUIRE_GPU();
  const auto check = [](const std::string& name, const instance& inst, int optimum, branching rule) {
    const bound_data data(inst);
    const solve_options opt = chain_from_optimum(rule, optimum);
    gpu::gpu_policy one;
    one.pool_size = 65536;
    one.lb2_pack = gpu::lb2_pack_mode::off;  // auto packs wherever the pass applies
    gpu::gpu_policy pack = one;
    pack.lb2_pack = gpu::lb2_pack_mode::on;
    expect_switch_branches_the_same_tree(data, opt, one, pack, "two children a thread",
                                         name + " " + std::string(to_string(rule)));
  };
  for_each_instance_and_rule({"ta011", "ta021", "ta031", "random:13,6,3"},
                             {branching::min_min, branching::forward, branching::backward}, check);
  const instance wide = random_instance(12, 6, 91, 1, 3000);
  check("random_instance(12, 6, 91, 1, 3000)", wide, optimum_of(wide), branching::min_min);
}

// The two policies the fused-LB1 tests compare: --lb1-fused off and on, at the given pool size.
std::pair<gpu::gpu_policy, gpu::gpu_policy> lb1_fused_off_on(std::size_t pool_size) {
  gpu::gpu_policy off;
  off.pool_size = pool_size;
  off.lb1_fused = gpu::lb1_fused_mode::off;
  gpu::gpu_policy on = off;
  on.lb1_fused = gpu::lb1_fused_mode::on;
  return {off, on};
}

// The LB1 pass in the parents kernel (--lb1-fused, option Q of decision 013) gives every child
// the LB1 of the thread-a-child kernel: with the optimum as ub, the same tree node for node, for
// LB1 alone and for the chain (20x5, 20x10, 20x20, 50x5 and 100x5: the 5-, 10- and 20-machine kernels).
TEST(GpuResident, FusedLb1BranchesTheSameTree) {
  PFSP_REQUIRE_GPU();
  for_each_instance_and_rule({"ta001", "ta011", "ta021", "ta031", "ta061"}, {branching::min_min, branching::min_branch},
                             [](const std::string& name, const instance& inst, int optimum, branching rule) {
                               const bound_data data(inst);
                               for (bound_kind kind : {bound_kind::lb1, bound_kind::lb1_lb2}) {
                                 if (name == "ta021" && kind == bound_kind::lb1) continue;  // LB1 alone at 20x20: long
                                 solve_options opt = chain_from_optimum(rule, optimum);
                                 opt.bound = kind;
                                 const auto [off, on] = lb1_fused_off_on(65536);
                                 expect_switch_branches_the_same_tree(
                                     data, opt, off, on, "LB1 in the parents kernel",
                                     name + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule)));
                               }
                             });
}

// LB1 alone decided in the parents kernel (option S of decision 013: the fused kernel tallies each
// direction, so neither decide_warp_kernel nor describe_kernel runs): the same tree as the
// separate kernels under every rule, one direction and two (random 5- and 10-machine instances),
// and from no incumbent (no NEH, no --ub) the optimum with its schedule and the whole tree's weight:
// the leaves' path (their descriptors, the best leaf, the estimate's counts) is the kernel's.
TEST(GpuResident, FusedLb1DecidesAsTheDecideKernel) {
  PFSP_REQUIRE_GPU();
  for_each_instance_and_rule({"random:13,5,3", "random:12,10,4", "ta001"},
                             {branching::min_min, branching::min_branch, branching::forward, branching::backward},
                             [](const std::string& name, const instance& inst, int optimum, branching rule) {
                               const bound_data data(inst);
                               const std::string what = name + " " + std::string(to_string(rule));
                               solve_options opt = chain_from_optimum(rule, optimum);
                               opt.bound = bound_kind::lb1;
                               const auto [off, on] = lb1_fused_off_on(4096);  // many iterations, partial pops
                               expect_switch_branches_the_same_tree(data, opt, off, on, "which decides", what);
                               solve_options scratch = opt;
                               scratch.initial_ub.reset();
                               scratch.use_neh = false;
                               const solve_result r = gpu::solve_resident(data, scratch, on, incumbent());
                               EXPECT_NE(r.backend.find("which decides"), std::string::npos)
                                   << what << ": " << r.backend;
                               expect_optimal(inst, r, optimum, what + " from no incumbent");
                             });
}

// Swap dominance (bound/dominance.hpp) in the LB1 parents kernels: with the optimum as ub, the
// device loop branches the CPU sequential solver's tree with the rule on, node for node (LB1
// alone in the kernel that decides, and the chain), under every rule (one-direction rules on the
// random instances); from no incumbent it proves the optimum with its schedule. Where the kernels
// are not fused the engine says it runs without the rule.
TEST(GpuResident, SwapDominanceBranchesTheCpuTree) {
  PFSP_REQUIRE_GPU();
  std::uint64_t dominated = 0;  // where the root's bound is the optimum (ta001) there is no tree to cut
  for_each_instance_and_rule(
      {"random:13,5,3", "random:12,10,4", "random:11,20,5", "random:14,20,6", "ta001", "ta011"},
      {branching::forward, branching::backward, branching::min_branch, branching::min_min},
      [&dominated](const std::string& name, const instance& inst, int optimum, branching rule) {
        const bound_data data(inst);
        for (bound_kind kind : {bound_kind::lb1, bound_kind::lb1_lb2}) {
          const std::string what = name + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule));
          solve_options opt = chain_from_optimum(rule, optimum);
          opt.bound = kind;
          opt.dominance = true;
          const auto [off, on] = lb1_fused_off_on(4096);
          const solve_result ref = solve_sequential(data, opt, incumbent());
          const solve_result r = gpu::solve_resident(data, opt, on, incumbent());
          EXPECT_NE(r.backend.find(", swap dominance"), std::string::npos) << what << ": " << r.backend;
          dominated += ref.stats.dominated;
          EXPECT_EQ(r.status, ref.status) << what;
          expect_same_tree(r, ref, what);
          const solve_result unfused = gpu::solve_resident(data, opt, off, incumbent());
          EXPECT_NE(unfused.backend.find("no swap dominance"), std::string::npos) << what << ": " << unfused.backend;
          EXPECT_EQ(unfused.lower_bound, ref.lower_bound) << what;
          solve_options scratch = opt;
          scratch.initial_ub.reset();
          scratch.use_neh = false;
          expect_optimal(inst, gpu::solve_resident(data, scratch, on, incumbent()), optimum,
                         what + " from no incumbent");
        }
      });
  EXPECT_GT(dominated, 1000u) << "the rule hardly fired: the tree checks proved little";
}

// Wide shops (VRF's 40 and 60 machines): from the optimum as ub the device loop branches the
// CPU's tree node for node, with LB1 and with the chain, tables in shared and in global memory,
// under the bidirectional and the one-direction rules; from no incumbent it proves the optimum.
TEST(GpuResident, WideShopsBranchTheCpuTree) {
  PFSP_REQUIRE_GPU();
  for_each_instance_and_rule(
      {"random:10,40,21", "random:12,60,22", "random:13,40,23"},
      {branching::forward, branching::min_branch, branching::min_min},
      [](const std::string& name, const instance& inst, int optimum, branching rule) {
        const bound_data data(inst);
        for (bound_kind kind : {bound_kind::lb1, bound_kind::lb1_lb2})
          for (gpu::memory_placement mp : all_placements()) {
            const std::string what = name + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule)) +
                                     " " + std::string(gpu::to_string(mp));
            solve_options opt = chain_from_optimum(rule, optimum);
            opt.bound = kind;
            gpu::gpu_policy p;
            p.memory = mp;
            p.pool_size = 4096;
            const solve_result ref = solve_sequential(data, opt, incumbent());
            const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
            EXPECT_EQ(r.status, ref.status) << what;
            expect_same_tree(r, ref, what);
            solve_options scratch = opt;
            scratch.initial_ub.reset();
            scratch.use_neh = false;
            expect_optimal(inst, gpu::solve_resident(data, scratch, p, incumbent()), optimum, what + " from scratch");
          }
      });
}

// The deciding LB1 kernel holds its per-depth counts in 8 KiB of static shared memory beside the
// processing times (dynamic): at 520 jobs x 20 machines the two pass the default 48 KiB a launch
// may take, so the engine raises the kernel's limit (one_wave_of). A slice runs, decided there.
TEST(GpuResident, FusedLb1DecidesBeyondTheDefaultSharedLimit) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(520, 20, 77, 1, 99);
  const bound_data data(inst);
  solve_options opt;
  opt.bound = bound_kind::lb1;
  opt.time_limit = 1;
  gpu::gpu_policy p;
  p.lb1_fused = gpu::lb1_fused_mode::on;
  const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
  EXPECT_NE(r.backend.find("which decides"), std::string::npos) << r.backend;
  EXPECT_TRUE(r.status == solve_status::time_limit || r.status == solve_status::optimal) << r.backend;
  EXPECT_GT(r.stats.branched, 0u);
}

// The chain's LB2 pass from the parents' tables (--lb2-table, option I of decision 013) gives
// every child the walk's bound: with the optimum as ub, the same tree node for node. Every pair
// (45 at 20x10 and 190 at 20x20: two and six rounds of 32 rows) and the adjacent ones (one
// round); 50 jobs (two mask words), 100 jobs (the medium size class, the table forced on); a
// 13x6 random instance with the one-direction rules.
TEST(GpuResident, ParentTablesBranchTheSameTree) {
  PFSP_REQUIRE_GPU();
  for_each_instance_and_rule(
      {"ta011", "ta021", "ta031", "ta061", "random:13,6,3"},
      {branching::min_min, branching::forward, branching::backward},
      [](const std::string& name, const instance& inst, int optimum, branching rule) {
        const solve_options opt = chain_from_optimum(rule, optimum);
        for (bool all_pairs : {true, false}) {
          const bound_data data = all_pairs ? bound_data(inst) : bound_data(inst, bound_data::adjacent_pairs(inst.m));
          gpu::gpu_policy walk;
          walk.pool_size = 65536;
          walk.lb2_table = gpu::lb2_table_mode::off;
          gpu::gpu_policy table = walk;
          table.lb2_table = gpu::lb2_table_mode::on;
          expect_switch_branches_the_same_tree(
              data, opt, walk, table, "from each parent's table",
              name + (all_pairs ? " all pairs " : " adjacent pairs ") + std::string(to_string(rule)));
        }
      });
}

// The counters add up after a complete search: the root and every chosen-direction child
// (bounds computed for branched nodes / directions) end pruned (at their bound, or when popped
// after a better incumbent), as a leaf, or branched.
TEST(GpuResident, KeepsTheCounters) {
  PFSP_REQUIRE_GPU();
  for (const instance& inst : {generate_taillard(10, 5, 77), random_instance(9, 4, 78, 1, 5)})
    for (bound_kind kind : all_kinds())
      for (branching rule : rules()) {
        const bound_data data(inst);
        solve_options opt;
        opt.bound = kind;
        opt.branch = rule;
        gpu::gpu_policy p;
        p.pool_size = 256;
        const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
        ASSERT_EQ(r.status, solve_status::optimal);
        const std::uint64_t dirs = rule == branching::forward || rule == branching::backward ? 1 : 2;
        const std::string what = inst.name + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule));
        ASSERT_EQ((r.stats.bounds - 1) % dirs, 0u) << what;
        EXPECT_EQ(r.stats.branched + r.stats.pruned + r.stats.leaves, (r.stats.bounds - 1) / dirs + 1) << what;
        EXPECT_GT(r.stats.leaves, 0u) << what;  // no incumbent was given
      }
}

// The progress trace (snapshots at every batch here): the global lower bound never exceeds the
// optimum, the tree weight's closed share grows within [0, 1] (weights are conserved: a parent's
// weight is split among its kept children), and the remaining estimate is finite once some of
// the tree is closed. ta017 with one and with three engines (weights travel with donated nodes).
TEST(GpuResident, ProgressTraceIsConsistent) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta017");
  const bound_data data(inst);
  for (int engines : {1, 3}) {
    solve_options opt;
    opt.bound = bound_kind::lb1;
    opt.branch = branching::min_min;
    opt.progress_interval = 0;
    gpu::gpu_policy p;
    p.pool_size = 4096;
    p.devices.assign(static_cast<std::size_t>(engines), 0);
    p.loop.join = gpu::join_rule::at_once();  // the engines' cooperation, on a small tree
    const solve_result r = gpu::solve_resident(data, opt, p, incumbent(inst.known->ub + 1, {}));
    const std::string what = std::to_string(engines) + " engines";
    expect_optimal(inst, r, inst.known->ub, what);
    ASSERT_GT(r.trace.size(), 2u) << what;
    double last = 0;
    for (const progress_info& t : r.trace) {
      EXPECT_LE(t.global_lb, inst.known->ub) << what;
      ASSERT_GE(t.tree_done, 0.0) << what;
      EXPECT_LE(t.tree_done, 1.0 + 1e-6) << what;
      // The closed share only grows, with several engines too (what each engine received and
      // donated since its last statistics is counted beside them).
      EXPECT_GE(t.tree_done, last - 1e-5) << what << " at " << t.elapsed << " s";
      last = t.tree_done;
      if (t.tree_done > 0 && t.tree_done < 1) {
        EXPECT_TRUE(std::isfinite(t.remaining)) << what;
      }
    }
    EXPECT_GT(last, 0.0) << what;
  }
}

// The progress snapshot's open-weight ledger (node_spill.hpp, coordinator.cu's progress()), no
// device needed: an idle engine fed by engine 0 donates part of what it received to a third before
// its next statistics; every open node is still counted once and the closed share never falls.
// The ledger once took the donations off the collected weight alone, clamped at 0, and counted the
// re-donated weight twice: here 1.5 open, a closed share of 0 after 0 (on an H100 with three
// engines, ProgressTraceIsConsistent's share fell from 0.37 to 0).
TEST(GpuResident, OpenWeightLedgerCountsRedonatedWeightOnce) {
  using gpu::device_loop::open_weight_ledger;
  std::vector<open_weight_ledger> eng(3);
  std::vector<double> mail(3, 0.0);
  auto open = [&] {
    double w = 0;
    for (std::size_t e = 0; e < eng.size(); ++e) w += eng[e].open() + mail[e];
    return w;
  };
  auto donate = [&](std::size_t from, std::size_t to, double w) {
    eng[from].send(w);
    mail[to] += w;
  };
  auto receive = [&](std::size_t e) {
    eng[e].receive(mail[e]);
    mail[e] = 0;
  };
  eng[0].collect(1.0);  // the root; engines 1 and 2 idle (collected 0)
  donate(0, 1, 0.625);  // engine 0's stack bottom (the shallowest nodes: most of the weight)
  EXPECT_DOUBLE_EQ(open(), 1.0);
  receive(1);
  EXPECT_DOUBLE_EQ(open(), 1.0);
  donate(1, 2, 0.5);  // engine 1, before its next statistics, to the idle engine 2
  EXPECT_DOUBLE_EQ(open(), 1.0);
  receive(2);
  EXPECT_DOUBLE_EQ(open(), 1.0);
  donate(2, 1, 0.25);  // and back again
  receive(1);
  EXPECT_DOUBLE_EQ(open(), 1.0);
  eng[1].collect(0.25);  // engine 1 closed 0.125 of its 0.375
  EXPECT_DOUBLE_EQ(open(), 0.875);
  eng[0].collect(0.25);  // engine 0 closed 0.125 of its 0.375
  eng[2].collect(0.25);
  EXPECT_DOUBLE_EQ(open(), 0.75);
  for (const open_weight_ledger& l : eng) EXPECT_GE(l.open(), 0.0);
}

// One engine repeats itself: from a start that the search improves (leaves found in parallel in
// the same iteration), two runs branch the same nodes and end on the same schedule.
TEST(GpuResident, OneEngineIsDeterministic) {
  PFSP_REQUIRE_GPU();
  for (const char* name : {"ta017", "ta013"}) {
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = bound_kind::lb1_lb2;
    gpu::gpu_policy p;
    p.pool_size = 4096;
    const incumbent start(inst.known->ub + 40, {});
    const solve_result a = gpu::solve_resident(data, opt, p, start);
    const solve_result b = gpu::solve_resident(data, opt, p, start);
    expect_optimal(inst, a, inst.known->ub, name);
    EXPECT_GT(a.stats.leaves, 0u) << name;
    expect_same_tree(a, b, name);
    EXPECT_EQ(a.schedule, b.schedule) << name;
  }
}

// The solution-guided order on the device loop (child_order::incumbent: the push kernel ranks a
// parent's children by the distance of their job from its position in the incumbent, then by
// the bound, expander::order_children's key). From a start schedule above the optimum, which the
// engine's own leaves then replace on the device, it proves the brute-force optimum under each
// bound, rule and pool size; with ties (times 1..3) too.
TEST(GpuResident, GuidedOrderProvesTheBruteForceOptimum) {
  PFSP_REQUIRE_GPU();
  const std::vector<instance> cases{random_instance(7, 3, 41, 1, 20), random_instance(8, 4, 42, 1, 3),
                                    random_instance(9, 5, 43, 1, 99), generate_taillard(8, 6, 44)};
  int followed = 0;
  for (const instance& inst : cases) {
    std::vector<int> best;
    const int optimum = brute_force_optimum(inst, &best);
    std::vector<int> worst(best.rbegin(), best.rend());
    const int start_value = naive_makespan(inst, worst);
    const bound_data data(inst);
    for (bound_kind kind : all_kinds())
      for (branching rule : rules())
        for (std::size_t pool : {std::size_t{18}, std::size_t{1024}}) {
          solve_options opt;
          opt.bound = kind;
          opt.branch = rule;
          opt.order = child_order::incumbent;
          gpu::gpu_policy p;
          p.pool_size = pool;
          const std::string what = std::string(to_string(kind)) + " " + std::string(to_string(rule)) + " pool " +
                                   std::to_string(pool) + " " + std::to_string(inst.n) + "x" + std::to_string(inst.m);
          const incumbent start = start_value > optimum ? incumbent(start_value, worst) : incumbent();
          followed += start_value > optimum;
          expect_optimal(inst, gpu::solve_resident(data, opt, p, start), optimum, what + " guided");
        }
  }
  EXPECT_GT(followed, 50) << "too few searches started from a schedule to follow";
}

// Below a fixed upper bound no leaf improves the incumbent: the guided order branches the tree
// of the bound's order node for node (one engine; the same nodes, only in another order).
TEST(GpuResident, GuidedOrderBranchesTheSameTreeBelowAFixedUpperBound) {
  PFSP_REQUIRE_GPU();
  for (const char* name : {"random:12,5,3", "random:13,10,4", "ta001", "ta011"}) {
    const instance inst = load_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = bound_kind::lb1;
    const solve_result ref = solve_sequential(data, opt, incumbent(neh(inst).makespan, neh(inst).schedule));
    ASSERT_EQ(ref.status, solve_status::optimal) << name;
    const incumbent start(ref.makespan, ref.schedule);
    for (bound_kind kind : {bound_kind::lb1, bound_kind::lb1_lb2})
      for (branching rule : {branching::forward, branching::min_branch, branching::min_min}) {
        opt.bound = kind;
        opt.branch = rule;
        gpu::gpu_policy p;
        p.pool_size = 256;
        opt.order = child_order::bound;
        const solve_result by_bound = gpu::solve_resident(data, opt, p, start);
        opt.order = child_order::incumbent;
        const solve_result guided = gpu::solve_resident(data, opt, p, start);
        const std::string what =
            std::string(name) + " " + std::string(to_string(kind)) + " " + std::string(to_string(rule));
        expect_same_tree(guided, by_bound, what);
        EXPECT_EQ(guided.lower_bound, ref.makespan) << what;
      }
  }
}

// It changes the search: ta016 from NEH (1431; optimum 1397), LB1, one engine, small pools (the
// device loop nearest the sequential depth-first search), the guided order against the bound's.
TEST(GpuResident, GuidedOrderChangesTheSearchOnTa016) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta016");
  const bound_data data(inst);
  const neh_result h = neh(inst);
  solve_options opt;
  opt.bound = bound_kind::lb1;
  opt.branch = branching::min_branch;
  gpu::gpu_policy p;
  p.pool_size = 64;
  const solve_result by_bound = gpu::solve_resident(data, opt, p, incumbent(h.makespan, h.schedule));
  opt.order = child_order::incumbent;
  const solve_result guided = gpu::solve_resident(data, opt, p, incumbent(h.makespan, h.schedule));
  expect_optimal(inst, by_bound, inst.known->ub, "ta016 by the bound");
  expect_optimal(inst, guided, inst.known->ub, "ta016 guided");
  std::printf("ta016 from NEH, pool 64: guided %llu nodes, by the bound %llu\n",
              static_cast<unsigned long long>(guided.stats.branched),
              static_cast<unsigned long long>(by_bound.stats.branched));
  EXPECT_LT(guided.stats.branched, by_bound.stats.branched);
}

// ta001..ta010 (20 x 5) from the optimum + 1 and no incumbent: the loop must find an optimal
// schedule itself; switches rotate over the instances.
TEST(GpuResident, ProvesTaillardTa001ToTa010) {
  PFSP_REQUIRE_GPU();
  for (int i = 1; i <= 10; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "ta%03d", i);
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = all_kinds()[static_cast<std::size_t>(i % 3)];
    opt.branch = i % 2 ? branching::min_min : branching::min_branch;  // the one-direction rules take minutes here
    opt.initial_ub = inst.known->ub + 1;
    opt.time_limit = 60;  // a failure, not a hang
    gpu::gpu_policy p;
    p.kernel = all_variants()[static_cast<std::size_t>(i % 3)];
    p.memory = all_placements()[static_cast<std::size_t>(i % 2)];
    p.sort = (i / 2) % 2 ? gpu::pool_sort::device : gpu::pool_sort::none;
    p.pool_size = i % 3 == 0 ? 16384 : 262144;
    p.compact_times = i % 4 == 0 ? gpu::compact_mode::on : gpu::compact_mode::automatic;
    const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
    ASSERT_TRUE(inst.known && inst.known->optimal);
    expect_optimal(inst, r, inst.known->ub, std::string(name) + ": " + describe(opt, p));
  }
}

// The medium (65..256 jobs, 8-bit) and large (16-bit jobs) size classes: with two machines
// LB2 is Johnson's optimum at the root, so the loop dives to a leaf through every level.
TEST(GpuResident, ProvesInEverySizeClass) {
  PFSP_REQUIRE_GPU();
  for (const char* spec : {"random:90,2,5", "random:300,2,6", "random:70,3,7"}) {
    const instance inst = load_instance(spec);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = bound_kind::lb2;
    opt.branch = branching::forward;
    const solve_result cpu = solve_sequential(data, opt, incumbent(neh(inst).makespan, neh(inst).schedule));
    ASSERT_EQ(cpu.status, solve_status::optimal) << spec;
    for (branching rule : {branching::forward, branching::min_min}) {
      opt.branch = rule;
      for (bound_kind kind : {bound_kind::lb2, bound_kind::lb1_lb2})  // LB1 alone is far from Johnson here
        for (gpu::loop_bound step : {gpu::loop_bound::parts, gpu::loop_bound::recompute}) {
          opt.bound = kind;
          gpu::gpu_policy p;
          p.pool_size = 8192;
          p.bound_step = step;
          const std::string what = std::string(spec) + " " + std::string(to_string(rule)) + " " +
                                   std::string(to_string(kind)) + " " + std::string(gpu::to_string(step));
          const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
          expect_optimal(inst, r, cpu.makespan, what);
          if (kind == bound_kind::lb1_lb2 && step == gpu::loop_bound::parts) {  // the lanes kernel in this class
            p.lb2_lanes = 8;
            expect_optimal(inst, gpu::solve_resident(data, opt, p, incumbent()), cpu.makespan, what + " lb2 lanes 8");
          }
        }
    }
  }
}

TEST(GpuResident, LimitsAndInterruptEndWithTheirStatus) {
  PFSP_REQUIRE_GPU();
  gpu::gpu_policy p;
  p.pool_size = 4096;
  expect_limits_end_with_their_status([&](const bound_data& data, const solve_options& opt,
                                          const incumbent& start) { return gpu::solve_resident(data, opt, p, start); },
                                      bound_kind::lb1);
}

// Checkpoint/restart: with the optimum as ub the tree is fixed, so a search cut into pieces by
// node limits, each piece resumed from the previous one's checkpoint (through the text and the
// binary format in turn),
// the pieces alternating between the device loop and the sequential CPU solver, expands exactly
// the uninterrupted sequential search's nodes; and from a heuristic start it proves the optimum.
// The backend suite (backend_suite.hpp) resumes each backend from its own binary checkpoints;
// what this test adds is the hand-over between backends, the text format, and two engines on one
// device writing a piece.
TEST(GpuResident, CheckpointPiecesEqualTheUninterruptedSearch) {
  PFSP_REQUIRE_GPU();
  for (const char* name : {"ta011", "ta014"}) {
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    for (bool fixed_tree : {true, false}) {
      solve_options o;
      o.bound = bound_kind::lb2;
      o.branch = branching::min_min;
      if (fixed_tree) o.initial_ub = inst.known->ub;
      const incumbent first = fixed_tree ? incumbent() : incumbent(neh(inst).makespan, neh(inst).schedule);
      const solve_result whole = solve_sequential(data, o, first);
      const std::uint64_t limit = whole.stats.branched / 5 + 1;
      std::optional<search_state> saved;
      solve_result r;
      int pieces = 0;
      do {
        solve_options piece = o;
        piece.node_limit = limit;
        piece.resume = saved ? &*saved : nullptr;
        std::optional<search_state> written;
        piece.on_checkpoint = [&](const search_state& st) {
          written = parse_checkpoint(pieces % 3 == 1 ? to_text(st) : to_binary(st), "piece");
        };
        incumbent start = first;
        if (saved && !saved->best_schedule.empty()) start = incumbent(saved->best_makespan, saved->best_schedule);
        gpu::gpu_policy p;
        p.pool_size = 16384;
        if (pieces % 4 == 2) p.devices = {0, 0};  // two engines on one device
        p.loop.join = gpu::join_rule::at_once();
        r = pieces % 2 == 0 ? gpu::solve_resident(data, piece, p, start) : solve_sequential(data, piece, start);
        ASSERT_TRUE(written) << name << " piece " << pieces;
        saved = written;
        ++pieces;
      } while (!saved->complete && pieces < 200);
      const std::string what = std::string(name) + (fixed_tree ? " --ub optimum" : " NEH start");
      ASSERT_TRUE(saved->complete) << what;
      EXPECT_GE(pieces, 3) << what;
      EXPECT_EQ(r.makespan, fixed_tree ? whole.makespan : inst.known->ub) << what;
      EXPECT_EQ(r.lower_bound, inst.known->ub) << what;
      EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << what;
      if (fixed_tree) {
        EXPECT_EQ(r.status, solve_status::proven_bound) << what;
        expect_same_tree(r, whole, what);
      } else {
        EXPECT_EQ(r.status, solve_status::optimal) << what;
      }
    }
  }
}

// The same with LB2 over learned machine pairs (--lb2-pairs learn): the device loop records the
// pairs in its checkpoints (binary format), the pieces evaluate them, and they add up to the
// uninterrupted search; a checkpoint's pairs differing from the run's are refused.
TEST(GpuResident, CheckpointPiecesKeepLearnedPairs) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta014");
  solve_options o;
  o.bound = bound_kind::lb2;
  o.branch = branching::min_min;
  o.initial_ub = inst.known->ub;
  const std::vector<std::pair<int, int>> pairs = learn_pairs(inst, inst.m - 1, *o.initial_ub).pairs;
  const bound_data data(inst, pairs);
  const solve_result whole = solve_sequential(data, o, incumbent());
  const std::uint64_t limit = whole.stats.branched / 5 + 1;
  std::optional<search_state> saved;
  solve_result r;
  int pieces = 0;
  gpu::gpu_policy p;
  p.pool_size = 16384;
  do {
    solve_options piece = o;
    piece.node_limit = limit;
    piece.resume = saved ? &*saved : nullptr;
    std::optional<search_state> written;
    piece.on_checkpoint = [&](const search_state& st) { written = parse_checkpoint(to_binary(st), "piece"); };
    r = pieces % 2 == 0 ? gpu::solve_resident(data, piece, p, incumbent()) : solve_sequential(data, piece, incumbent());
    ASSERT_TRUE(written) << "piece " << pieces;
    EXPECT_EQ(written->lb2_pairs, pairs) << "piece " << pieces;
    saved = written;
    ++pieces;
  } while (!saved->complete && pieces < 200);
  ASSERT_TRUE(saved->complete);
  EXPECT_GE(pieces, 3);
  EXPECT_EQ(r.stats.branched, whole.stats.branched);
  EXPECT_EQ(r.stats.bounds, whole.stats.bounds);
  EXPECT_EQ(r.lower_bound, inst.known->ub);

  solve_options piece = o;
  piece.node_limit = limit;
  std::optional<search_state> first;
  piece.on_checkpoint = [&](const search_state& st) { first = st; };
  gpu::solve_resident(data, piece, p, incumbent());
  ASSERT_TRUE(first && !first->complete);
  const bound_data all_pairs(inst);
  solve_options again = o;
  again.resume = &*first;
  EXPECT_THROW(gpu::solve_resident(all_pairs, again, p, incumbent()), input_error);
}

// The default chain (lb1-lb2, min-min) with the optimum as ub: a fixed tree, whatever the order.
solve_options fixed_chain(const instance& inst) {
  solve_options o;
  o.bound = bound_kind::lb1_lb2;
  o.branch = branching::min_min;
  o.initial_ub = inst.known->ub;
  return o;
}

// What pfsp-mpi's chunk split does to a GPU worker (issue 22: a lazy join on ta023 branched 460
// nodes more than pfsp solve after one split): with the optimum as ub the tree is fixed, so a
// search of the default chain (lb1-lb2, learned pairs, min-min) stopped by its interrupt flag at
// arbitrary moments, each piece resumed from the previous one's final checkpoint, branches and
// bounds exactly what one uninterrupted device-loop search does.
TEST(GpuResident, InterruptedPiecesEqualTheUninterruptedSearch) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta022");
  const solve_options o = fixed_chain(inst);
  const bound_data data(inst, learn_pairs(inst, inst.m - 1, inst.known->ub).pairs);
  gpu::gpu_policy p;
  const solve_result whole = gpu::solve_resident(data, o, p, incumbent());
  ASSERT_EQ(whole.status, solve_status::proven_bound);
  std::optional<search_state> saved;
  solve_result r;
  int pieces = 0;
  do {
    solve_options piece = o;
    piece.resume = saved ? &*saved : nullptr;
    std::optional<search_state> written;
    piece.on_checkpoint = [&](const search_state& st) { written = parse_checkpoint(to_binary(st), "piece"); };
    r = solve_interrupted_after(piece, 10 + 10 * (pieces % 5),
                                [&](const solve_options& o2) { return gpu::solve_resident(data, o2, p, incumbent()); });
    ASSERT_TRUE(written) << "piece " << pieces;
    saved = written;
    ++pieces;
  } while (!saved->complete && pieces < 400);
  const std::string what = std::to_string(pieces) + " pieces";
  ASSERT_TRUE(saved->complete) << what;
  EXPECT_GE(pieces, 3) << what;
  expect_same_tree(r, whole, what);
  EXPECT_EQ(r.lower_bound, inst.known->ub) << what;
}

// pfsp-mpi's data flow on one GPU, without MPI: the open nodes as chunks (resumed searches with a
// makespan but no schedule as their start, as run_chunk starts them); the first six chunks are
// asked back (interrupted) after tens of milliseconds and what each has left is cut into eight
// new chunks. Returns the chunks' counters summed; counts the chunks, those asked back, and those
// whose solve took its engine from the policy's cache (gpu_policy::engines).
// Whether the solve took an engine from the policy's cache (its note says so).
bool kept(const solve_result& r) {
  for (const std::string& n : r.notes)
    if (n.find("kept from an earlier solve") != std::string::npos) return true;
  return false;
}

struct chunk_flow {
  solve_stats total;
  int chunks = 0, asked_back = 0, kept = 0;
  bool empty = false;
};
chunk_flow solve_in_chunks(const instance& inst, const bound_data& data, const solve_options& o,
                           const gpu::gpu_policy& p) {
  const int ub = inst.known->ub;
  chunk_flow f;
  // The first chunk: the root's children, from a run stopped after one node.
  std::deque<search_state> work;
  {
    solve_options first = o;
    first.node_limit = 1;
    std::optional<search_state> st;
    first.on_checkpoint = [&](const search_state& s) { st = s; };
    const solve_result r = gpu::solve_resident(data, first, p, incumbent());
    f.total += r.stats;
    f.kept += kept(r) ? 1 : 0;
    EXPECT_TRUE(st && !st->complete);
    if (!st || st->complete) return f;
    st->stats = solve_stats{};
    work.push_back(*st);
  }
  while (!work.empty() && f.chunks < 200) {
    const search_state chunk = std::move(work.front());
    work.pop_front();
    solve_options piece = o;
    piece.initial_ub.reset();
    piece.resume = &chunk;
    std::optional<search_state> last;
    piece.on_checkpoint = [&](const search_state& s) { last = s; };
    // Asked back early: ta022's whole tree takes about 0.1 s on an H200 with kept engines, and a
    // chunk that ends before it is asked back is not split (20-50 ms left too few asked back).
    const int ask_back_ms = f.asked_back < 6 ? 3 + 3 * (f.chunks % 3) : -1;
    const solve_result r = solve_interrupted_after(piece, ask_back_ms, [&](const solve_options& o2) {
      return gpu::solve_resident(data, o2, p, incumbent(ub, {}));
    });
    ++f.chunks;
    f.total += r.stats;
    f.kept += kept(r) ? 1 : 0;
    if (r.status == solve_status::optimal || r.status == solve_status::proven_bound) continue;
    ++f.asked_back;
    EXPECT_TRUE(last && !last->complete) << "chunk " << f.chunks;
    if (!last || last->complete) return f;
    const std::size_t cut = (last->open() + 7) / 8;
    for (std::size_t from = 0; from < last->open(); from += cut) {
      const std::size_t k = std::min(cut, last->open() - from);
      search_state part = *last;
      part.stats = solve_stats{};
      part.stack_sizes = {k};
      part.nodes.assign(last->nodes.begin() + static_cast<std::ptrdiff_t>(from),
                        last->nodes.begin() + static_cast<std::ptrdiff_t>(from + k));
      part.perms.assign(last->perm(from), last->perm(from) + k * static_cast<std::size_t>(inst.n));
      work.push_back(std::move(part));
    }
  }
  f.empty = work.empty();
  return f;
}

// The chunks' counters add up to the uninterrupted search's.
TEST(GpuResident, ChunksAskedBackAddUpToTheUninterruptedSearch) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta022");
  const solve_options o = fixed_chain(inst);
  const bound_data data(inst, learn_pairs(inst, inst.m - 1, inst.known->ub).pairs);
  gpu::gpu_policy p;
  const solve_result whole = gpu::solve_resident(data, o, p, incumbent());
  const chunk_flow f = solve_in_chunks(inst, data, o, p);
  const std::string what = std::to_string(f.chunks) + " chunks, " + std::to_string(f.asked_back) + " asked back";
  ASSERT_TRUE(f.empty) << what;
  EXPECT_GE(f.asked_back, 2) << what;
  EXPECT_EQ(f.kept, 0) << what;
  solve_result summed;
  summed.stats = f.total;
  expect_same_tree(summed, whole, what);
}

// The same with the engines kept from chunk to chunk (gpu_policy::engines, as pfsp-mpi's workers
// run, built ahead by prepare_engines): every chunk takes the kept engine, emptied, and the
// chunks still add up to the uninterrupted search's nodes, on one engine and on two of one device.
TEST(GpuResident, KeptEnginesBranchTheSameChunks) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta022");
  const solve_options o = fixed_chain(inst);
  const bound_data data(inst, learn_pairs(inst, inst.m - 1, inst.known->ub).pairs);
  const solve_result whole = gpu::solve_resident(data, o, gpu::gpu_policy{}, incumbent());
  for (const std::vector<int>& devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
    gpu::gpu_policy p;
    p.devices = devices;
    p.engines = gpu::make_engine_cache();
    gpu::prepare_engines(data, o, p);
    const chunk_flow f = solve_in_chunks(inst, data, o, p);
    const std::string what = std::to_string(devices.size()) + " devices listed, " + std::to_string(f.chunks) +
                             " chunks, " + std::to_string(f.asked_back) + " asked back, " + std::to_string(f.kept) +
                             " kept";
    ASSERT_TRUE(f.empty) << what;
    EXPECT_GE(f.asked_back, 2) << what;
    EXPECT_EQ(f.kept, f.chunks + 1) << what;  // the first chunk's solve too
    solve_result summed;
    summed.stats = f.total;
    expect_same_tree(summed, whole, what);
  }
}

// A cache holds engines for one bound_data object and its settings: another instance's solve
// builds its own (and proves its optimum), a solve with the first data again builds afresh too.
TEST(GpuResident, KeptEnginesServeOnlyTheirData) {
  PFSP_REQUIRE_GPU();
  gpu::gpu_policy p;
  p.engines = gpu::make_engine_cache();
  const instance a = random_instance(9, 4, 41, 1, 30), b = random_instance(8, 5, 42, 1, 30);
  const bound_data da(a), db(b);
  solve_options o;
  o.bound = bound_kind::lb1_lb2;
  o.branch = branching::min_min;
  const solve_result r1 = gpu::solve_resident(da, o, p, incumbent());
  const solve_result r2 = gpu::solve_resident(da, o, p, incumbent());
  const solve_result r3 = gpu::solve_resident(db, o, p, incumbent());
  const solve_result r4 = gpu::solve_resident(da, o, p, incumbent());
  EXPECT_FALSE(kept(r1));
  EXPECT_TRUE(kept(r2));
  EXPECT_FALSE(kept(r3));
  EXPECT_FALSE(kept(r4));  // r3 gave back b's engine, which replaced a's
  expect_optimal(a, r1, brute_force_optimum(a), "first");
  expect_optimal(a, r2, brute_force_optimum(a), "kept");
  expect_optimal(b, r3, brute_force_optimum(b), "other data");
  expect_optimal(a, r4, brute_force_optimum(a), "first data again");
  expect_same_tree(r2, r1, "kept engine, same search");
}

// Several loop engines (here on one device; EnginesOnEveryDevice below runs them across devices)
// share the work and the incumbent: brute-force optima on small instances for every bound and
// rule, and with the optimum as ub exactly the one-engine search's nodes, work having moved.
TEST(GpuResident, SeveralEnginesShareTheSearch) {
  PFSP_REQUIRE_GPU();
  const std::vector<instance> cases{random_instance(8, 3, 41, 1, 20), generate_taillard(9, 4, 42),
                                    random_instance(8, 5, 43, 1, 3)};
  for (const instance& inst : cases) {
    const int optimum = brute_force_optimum(inst);
    const bound_data data(inst);
    for (bound_kind kind : all_kinds())
      for (branching rule : rules())
        for (std::size_t engines : {2u, 3u}) {
          solve_options opt;
          opt.bound = kind;
          opt.branch = rule;
          gpu::gpu_policy p;
          p.pool_size = 64;
          p.devices.assign(engines, 0);
          p.loop.join = gpu::join_rule::at_once();
          const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
          expect_optimal(inst, r, optimum, inst.name + " " + std::to_string(engines) + " engines: " + describe(opt, p));
        }
  }
  for (const char* name : {"ta011", "ta017", "ta014"}) {
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = bound_kind::lb2;
    opt.branch = branching::min_min;
    opt.initial_ub = inst.known->ub;
    gpu::gpu_policy p;
    p.pool_size = 16384;
    const solve_result one = gpu::solve_resident(data, opt, p, incumbent());
    p.devices = {0, 0, 0, 0};
    p.loop.join = gpu::join_rule::at_once();
    const solve_result four = gpu::solve_resident(data, opt, p, incumbent());
    EXPECT_EQ(four.status, one.status) << name;
    EXPECT_EQ(four.lower_bound, inst.known->ub) << name;
    expect_same_tree(four, one, name);
    EXPECT_NEAR(four.stats.explored, 1.0, 1e-9) << name;
    bool donated = false;
    for (const auto& note : four.notes)
      donated = donated || (note.find("donations") != std::string::npos && note.rfind("0 donations", 0) != 0);
    EXPECT_TRUE(donated) << name << ": no work moved between the engines";
  }
  // From a heuristic start: the optimum, whatever engine finds it.
  const instance inst = taillard_instance("ta017");
  const bound_data data(inst);
  solve_options opt;
  opt.bound = bound_kind::lb1_lb2;
  gpu::gpu_policy p;
  p.pool_size = 8192;
  p.devices = {0, 0};
  p.loop.join = gpu::join_rule::at_once();
  const neh_result h = neh(inst);
  const solve_result r = gpu::solve_resident(data, opt, p, incumbent(h.makespan, h.schedule));
  expect_optimal(inst, r, inst.known->ub, "ta017 two engines from NEH");
}

// The join rule (join_rule.hpp, issue 22 item 6): by default a small tree is searched by engine
// 0 alone (the others never built: "did not join"); engines that join mid-search (a rule that
// fires after 20 ms, whatever the pools) branch exactly the one-engine tree.
TEST(GpuResident, EnginesJoinOnlyWhenTheTreeIsWorthIt) {
  PFSP_REQUIRE_GPU();
  for (const char* name : {"ta014", "ta017"}) {
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = bound_kind::lb1;
    opt.branch = branching::min_min;
    opt.initial_ub = inst.known->ub;
    gpu::gpu_policy p;
    p.pool_size = 4096;
    const solve_result one = gpu::solve_resident(data, opt, p, incumbent());
    p.devices = {0, 0, 0};
    const solve_result alone = gpu::solve_resident(data, opt, p, incumbent());
    expect_same_tree(alone, one, std::string(name) + " default rule");
    bool absent = false;
    for (const auto& note : alone.notes) absent = absent || note.find("engines 1-2 did not join") == 0;
    EXPECT_TRUE(absent || alone.stats.total_seconds >= p.loop.join.min_s)
        << name << ": the engines joined a small tree";
    p.loop.join = gpu::join_rule{0.02, 0.0, 0.02, 0.005, 0.0, 0.25};
    const solve_result late = gpu::solve_resident(data, opt, p, incumbent());
    expect_same_tree(late, one, std::string(name) + " engines joining at 20 ms");
    EXPECT_EQ(late.lower_bound, inst.known->ub) << name;
  }
}

// Engines on devices other than the current one (a machine with two or more GPUs; skipped
// elsewhere): each device alone, every device, and the devices in reverse order prove ta014 and
// ta017 from the optimum with exactly device 0's node counts, and find ta017's optimum from NEH.
// Found on 2 H100s: an engine's stream was created on the device current before it, and its
// graphs ran there on the other device's pointers.
TEST(GpuResident, EnginesOnEveryDevice) {
  PFSP_REQUIRE_GPU();
  const int count = gpu::device_count();
  if (count < 2) GTEST_SKIP() << "one CUDA device: needs two or more";
  std::vector<std::vector<int>> layouts;
  for (int d = 0; d < count; ++d) layouts.push_back({d});
  std::vector<int> all(static_cast<std::size_t>(count));
  std::iota(all.begin(), all.end(), 0);
  layouts.push_back(all);
  layouts.emplace_back(all.rbegin(), all.rend());
  layouts.push_back({count - 1, count - 1, 0});
  for (const char* name : {"ta014", "ta017"}) {
    const instance inst = taillard_instance(name);
    const bound_data data(inst);
    solve_options opt;
    opt.bound = bound_kind::lb1_lb2;
    opt.branch = branching::min_min;
    opt.initial_ub = inst.known->ub;
    gpu::gpu_policy p;
    p.pool_size = 16384;
    p.loop.join = gpu::join_rule::at_once();
    const solve_result ref = gpu::solve_resident(data, opt, p, incumbent());
    for (const std::vector<int>& devs : layouts) {
      std::ostringstream out;
      out << name << " devices";
      for (int d : devs) out << ' ' << d;
      const std::string label = out.str();
      p.devices = devs;
      const solve_result r = gpu::solve_resident(data, opt, p, incumbent());
      EXPECT_EQ(r.lower_bound, inst.known->ub) << label;
      expect_same_tree(r, ref, label);
    }
  }
  const instance inst = taillard_instance("ta017");
  const bound_data data(inst);
  solve_options opt;
  opt.bound = bound_kind::lb1_lb2;
  gpu::gpu_policy p;
  p.pool_size = 8192;
  p.devices = all;
  p.loop.join = gpu::join_rule::at_once();
  const neh_result h = neh(inst);
  const solve_result r = gpu::solve_resident(data, opt, p, incumbent(h.makespan, h.schedule));
  expect_optimal(inst, r, inst.known->ub, "ta017 on every device from NEH");
}

TEST(GpuResident, RefusesWhatItCannotRun) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta001");
  const bound_data data(inst);
  solve_options opt;
  gpu::gpu_policy p;
  p.sort = gpu::pool_sort::host;
  EXPECT_THROW(gpu::solve_resident(data, opt, p, incumbent()), input_error);
  p.sort = gpu::pool_sort::device;
  p.strategy.kind = gpu::gpu_strategy::split;
  EXPECT_THROW(gpu::solve_resident(data, opt, p, incumbent()), input_error);
}

}  // namespace
}  // namespace pfsp::test
