// One suite over every registered solver (app/solver_registry.hpp): each entry runs the same
// cases. tests/test_backends.cpp instantiates it over the CPU entries (label cpu),
// tests/gpu/test_gpu_backends.cpp over the GPU entries (label gpu; skipped without a device). A
// backend gets every check by being registered; what an entry cannot do (checkpoints, a bound,
// the sequential tree) is read from its capabilities, not from its name.
//   - brute-force optima of small random instances, every bound and branching it takes, from no
//     incumbent and from NEH;
//   - Taillard's optima (ta001, ta003, ta014) from NEH;
//   - node limit, time limit and interrupt (ta051) end in their statuses with a consistent result;
//   - checkpoints (where supported): a search cut into pieces by node limits, each piece resumed
//     from the previous one's checkpoint written in the binary format, proves the optimum and,
//     from the optimum as upper bound, branches the uninterrupted search's nodes;
//   - with the optimum as upper bound and no incumbent, the sequential solver's node counts
//     (where the entry explores the sequential tree).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "app/solver_registry.hpp"
#include "bound/bound_data.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "search/checkpoint.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp::test {

// The entries of this build that `pick` keeps, by name (the test parameter).
template <class Pick>
std::vector<std::string> registered_solvers(Pick pick) {
  std::vector<std::string> names;
  for (const solver_entry& s : solver_registry())
    if (pick(s)) names.push_back(s.name);
  return names;
}

// GoogleTest's parameter names: letters, digits and underscores.
inline std::string solver_param_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

// Skips the test where the entry needs a device this machine lacks. Defined by the instantiating
// file (the CPU tests have no GPU entry; the GPU tests ask the GPU layer).
bool solver_can_run_here(const solver_entry& s);

class backend : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    entry_ = find_solver(GetParam());
    ASSERT_NE(entry_, nullptr) << GetParam() << " is not registered";
    if (!solver_can_run_here(*entry_)) GTEST_SKIP() << GetParam() << ": no CUDA device";
  }
  const solver_entry& entry() const { return *entry_; }

  // Options every case starts from: a bound and selection the entry takes, two threads where it
  // has threads, small GPU pools (the instances are small).
  solve_options options(bound_kind bound, branching rule) const {
    solve_options o;
    o.bound = bound;
    o.branch = rule;
    o.select = entry_->caps.selections.front();
    o.threads = 2;
    return o;
  }
  solve_result run(const bound_data& data, const solve_options& o, const incumbent& start) const {
    gpu_cli_options g;
    g.policy.pool_size = 4096;
    g.policy.threads_per_block = 128;
    return solve(*entry_, data, o, start, g);
  }
  bool takes(bound_kind b) const {
    return std::find(entry_->caps.bounds.begin(), entry_->caps.bounds.end(), b) != entry_->caps.bounds.end();
  }

 private:
  const solver_entry* entry_ = nullptr;
};

inline constexpr bound_kind suite_bounds[] = {bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2};
inline constexpr branching suite_rules[] = {branching::forward, branching::backward, branching::min_branch,
                                            branching::min_min};

inline incumbent neh_incumbent(const instance& inst) {
  const neh_result h = neh(inst);
  return incumbent(h.makespan, h.schedule);
}

inline void expect_schedule_of(const instance& inst, const solve_result& r, const std::string& what) {
  ASSERT_EQ(r.schedule.size(), static_cast<std::size_t>(inst.n)) << what;
  std::vector<int> sorted = r.schedule;
  std::sort(sorted.begin(), sorted.end());
  for (int j = 0; j < inst.n; ++j) ASSERT_EQ(sorted[static_cast<std::size_t>(j)], j) << what;
  EXPECT_EQ(evaluate_schedule(inst, r.schedule), r.makespan) << what;
}

TEST_P(backend, brute_force_optima_of_small_random_instances) {
  const std::vector<sample> samples = small_samples(3, 8, 2, 5, 1, 12000);
  int checked = 0;
  for (std::size_t i = 0; i < samples.size(); i += 3) {
    const sample& smp = samples[i];
    const int optimum = brute_force_optimum(smp.inst);
    const bound_data data(smp.inst);
    for (bound_kind bound : suite_bounds) {
      if (!takes(bound)) continue;
      for (branching rule : suite_rules)
        for (bool from_neh : {false, true}) {
          const std::string what = GetParam() + " on " + smp.what + ", " + std::string(to_string(bound)) + ", " +
                                   std::string(to_string(rule)) + (from_neh ? ", NEH start" : ", no incumbent");
          const solve_result r = run(data, options(bound, rule), from_neh ? neh_incumbent(smp.inst) : incumbent());
          EXPECT_EQ(r.status, solve_status::optimal) << what;
          EXPECT_EQ(r.makespan, optimum) << what;
          EXPECT_EQ(r.lower_bound, optimum) << what;
          expect_schedule_of(smp.inst, r, what);
          ++checked;
        }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_P(backend, taillard_optima_from_neh) {
  for (const char* name : {"ta001", "ta003", "ta014"}) {
    const instance inst = taillard_instance(name);
    ASSERT_TRUE(inst.known && inst.known->optimal) << name;
    const bound_data data(inst);
    const bound_kind bound = takes(bound_kind::lb2) ? bound_kind::lb2 : entry().caps.bounds.front();
    const solve_result r = run(data, options(bound, branching::min_min), neh_incumbent(inst));
    const std::string what = GetParam() + " on " + name;
    EXPECT_EQ(r.status, solve_status::optimal) << what;
    EXPECT_EQ(r.makespan, inst.known->ub) << what;
    EXPECT_EQ(r.lower_bound, inst.known->ub) << what;
    expect_schedule_of(inst, r, what);
  }
}

// ta051 (50 x 20, open) from NEH takes far longer than these limits on any backend (ta021, the
// CPU tests' instance, is proven by the GPU device loop in about a second).
inline void expect_stopped_early(const instance& inst, const solve_result& r, solve_status want,
                                 const std::string& what) {
  EXPECT_EQ(r.status, want) << what << ": " << to_string(r.status);
  EXPECT_GT(r.lower_bound, 0) << what;
  EXPECT_LE(r.lower_bound, inst.known->ub) << what;  // the best known makespan
  EXPECT_GE(r.makespan, inst.known->lb) << what;     // the best known lower bound
  expect_schedule_of(inst, r, what);
  EXPECT_LT(r.stats.explored, 1.0) << what;
}

TEST_P(backend, limits_and_interrupt_end_in_their_status) {
  const instance inst = taillard_instance("ta051");
  const bound_data data(inst);
  {
    solve_options o = options(bound_kind::lb1, branching::min_branch);
    o.node_limit = 1000;
    const solve_result r = run(data, o, neh_incumbent(inst));
    expect_stopped_early(inst, r, solve_status::node_limit, GetParam() + " node limit 1000");
    EXPECT_GE(r.stats.branched, 1000u);
  }
  {
    solve_options o = options(bound_kind::lb1, branching::min_branch);
    o.time_limit = 0.3;
    const solve_result r = run(data, o, neh_incumbent(inst));
    expect_stopped_early(inst, r, solve_status::time_limit, GetParam() + " time limit 0.3 s");
    EXPECT_LT(r.stats.total_seconds, 5.0) << GetParam();
  }
  {
    std::atomic<bool> stop{true};
    solve_options o = options(bound_kind::lb1, branching::min_branch);
    o.interrupt = &stop;
    const solve_result r = run(data, o, neh_incumbent(inst));
    expect_stopped_early(inst, r, solve_status::interrupted, GetParam() + " interrupt set before the solve");
  }
}

TEST_P(backend, checkpoint_pieces_resume_to_the_optimum) {
  if (!entry().caps.checkpoints) GTEST_SKIP() << GetParam() << " does not write checkpoints (registry)";
  const instance inst = taillard_instance("ta014");
  const bound_data data(inst);
  for (bool fixed_tree : {true, false}) {
    solve_options o = options(bound_kind::lb2, branching::min_min);
    if (fixed_tree) o.initial_ub = inst.known->ub;
    const incumbent first = fixed_tree ? incumbent() : neh_incumbent(inst);
    const solve_result whole = run(data, o, first);
    const std::uint64_t limit = whole.stats.branched / 4 + 1;
    std::optional<search_state> saved;
    solve_result r;
    int pieces = 0;
    const std::string what = GetParam() + (fixed_tree ? " ta014 --ub optimum" : " ta014 NEH start");
    do {
      solve_options piece = o;
      piece.node_limit = limit;
      piece.resume = saved ? &*saved : nullptr;
      std::optional<search_state> written;
      piece.on_checkpoint = [&](const search_state& st) { written = parse_checkpoint(to_binary(st), "piece"); };
      incumbent start = first;
      if (saved && !saved->best_schedule.empty()) start = incumbent(saved->best_makespan, saved->best_schedule);
      r = run(data, piece, start);
      ASSERT_TRUE(written) << what << " piece " << pieces;
      saved = written;
      ++pieces;
    } while (!saved->complete && pieces < 100);
    ASSERT_TRUE(saved->complete) << what;
    EXPECT_GE(pieces, 2) << what;
    EXPECT_EQ(r.lower_bound, inst.known->ub) << what;
    EXPECT_NEAR(r.stats.explored, 1.0, 1e-9) << what;
    if (fixed_tree) {
      EXPECT_EQ(r.status, solve_status::proven_bound) << what;
      expect_same_tree(r, whole, what);
    } else {
      EXPECT_EQ(r.status, solve_status::optimal) << what;
      EXPECT_EQ(r.makespan, inst.known->ub) << what;
    }
  }
}

// The papers' protocol (CCPE 6.1): the optimum as initial upper bound and no incumbent fix the
// set of branched nodes, whatever the order of exploration.
TEST_P(backend, node_counts_at_the_optimum_equal_the_sequential_solver) {
  if (!entry().caps.sequential_tree_at_optimum)
    GTEST_SKIP() << GetParam() << " does not explore the sequential tree (registry)";
  std::vector<sample> cases;
  cases.push_back({taillard_instance("ta003"), "ta003"});
  cases.push_back({taillard_instance("ta014"), "ta014"});
  cases.push_back({random_instance(9, 4, 77, 1, 20), "random_instance(9, 4, seed 77, times 1..20)"});
  for (const sample& c : cases) {
    const bound_data data(c.inst);
    const int optimum = c.inst.known ? c.inst.known->ub : brute_force_optimum(c.inst);
    for (bound_kind bound : suite_bounds) {
      if (!takes(bound)) continue;
      for (branching rule : {branching::min_branch, branching::min_min}) {
        solve_options o = options(bound, rule);
        o.initial_ub = optimum;
        solve_options seq = o;
        seq.select = selection::depth_first;
        const solve_result ref = solve_sequential(data, seq, incumbent());
        const solve_result r = run(data, o, incumbent());
        const std::string what =
            GetParam() + " on " + c.what + ", " + std::string(to_string(bound)) + ", " + std::string(to_string(rule));
        EXPECT_EQ(r.status, ref.status) << what;
        EXPECT_EQ(r.lower_bound, ref.lower_bound) << what;
        expect_same_tree(r, ref, what);
      }
    }
  }
}

}  // namespace pfsp::test
