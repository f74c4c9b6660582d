// The CPU solvers and an incumbent feed (search/incumbent_feed.hpp) beside them: they take its
// better schedules (re-evaluated), stay exact, branch no more nodes, and offer it their improving
// leaves as seeds. The feeds here are test doubles holding a known schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "cpu/parallel.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "search/checkpoint.hpp"
#include "search/control.hpp"
#include "search/incumbent_feed.hpp"
#include "search/sequential.hpp"
#include "search/types.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

// A feed holding one schedule, shown from the start or only once the solver has offered a seed
// (an engine that improves what the search found). `claimed` is the makespan it announces (the
// schedule's own unless a test makes it lie). Records the seeds. Thread-safe.
class fake_feed final : public incumbent_feed {
 public:
  enum class shows { at_once, after_first_seed };
  fake_feed(std::vector<int> schedule, int claimed, shows when)
      : schedule_(std::move(schedule)), claimed_(claimed), when_(when) {}

  void offer_seed(const std::vector<int>& schedule, int makespan) override {
    std::lock_guard lock(mu_);
    seeds_.push_back({schedule, makespan});
    seeded_.store(true);
  }
  int best_value() const override {
    polls_.fetch_add(1);
    return when_ == shows::at_once || seeded_.load() ? claimed_ : INT_MAX;
  }
  std::vector<int> best_schedule() const override {
    taken_.fetch_add(1);
    return schedule_;
  }

  struct seed {
    std::vector<int> schedule;
    int makespan;
  };
  std::vector<seed> seeds() const {
    std::lock_guard lock(mu_);
    return seeds_;
  }
  int polls() const { return polls_.load(); }
  int taken() const { return taken_.load(); }

 private:
  std::vector<int> schedule_;
  int claimed_;
  shows when_;
  mutable std::mutex mu_;
  std::vector<seed> seeds_;
  std::atomic<bool> seeded_{false};
  mutable std::atomic<int> polls_{0}, taken_{0};
};

struct solver_case {
  const char* name;
  bool parallel;
  bool shared_queue;
};
constexpr solver_case solvers[] = {
    {"sequential", false, false}, {"cpu-mt work stealing", true, false}, {"cpu-mt shared queue", true, true}};

solve_result run(const solver_case& s, const bound_data& data, solve_options o, const incumbent& start) {
  o.threads = 2;
  o.shared_queue = s.shared_queue;
  return s.parallel ? solve_parallel(data, o, start) : solve_sequential(data, o, start);
}

// 15 jobs x 10 machines: a tree of some ten thousand of nodes from an empty start, where the first leaf
// the depth-first search reaches is not optimal (checked below, so the tests cannot pass vacuously).
struct reference {
  instance inst = generate_taillard(15, 10, 3);
  bound_data data{inst};
  solve_result optimum;  // the sequential reference solver from an empty start, no feed
  reference() { optimum = solve_sequential(data, solve_options{}, incumbent()); }
};
const reference& ref() {
  static const reference r;
  return r;
}

void expect_optimal(const reference& r, const solve_result& got) {
  EXPECT_EQ(got.status, solve_status::optimal) << to_string(got.status);
  EXPECT_EQ(got.makespan, r.optimum.makespan);
  EXPECT_EQ(got.lower_bound, r.optimum.makespan);
  ASSERT_EQ(got.schedule.size(), static_cast<std::size_t>(r.inst.n));
  EXPECT_EQ(evaluate_schedule(r.inst, got.schedule), got.makespan);
  EXPECT_NEAR(got.stats.explored, 1.0, 1e-9);
}

bool has_note(const solve_result& r, const std::string& text) {
  return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n == text; });
}

TEST(incumbent_feed, reference_is_not_trivial) {
  const reference& r = ref();
  ASSERT_EQ(r.optimum.status, solve_status::optimal);
  EXPECT_GT(r.optimum.stats.branched, 1000u) << "the reference tree is too small to show pruning";
  fake_feed recorder({}, INT_MAX, fake_feed::shows::at_once);
  solve_options o;
  o.feed = &recorder;
  solve_sequential(r.data, o, incumbent());
  ASSERT_FALSE(recorder.seeds().empty());
  EXPECT_GT(recorder.seeds().front().makespan, r.optimum.makespan) << "the first leaf found is already optimal";
}

// A feed that holds an optimal schedule from the start: taken before the root, so the tree is the
// one pruned at the optimum from the start (--ub optimum + the optimal schedule as incumbent).
TEST(incumbent_feed, optimum_held_from_the_start_is_taken) {
  const reference& r = ref();
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    fake_feed feed(r.optimum.schedule, r.optimum.makespan, fake_feed::shows::at_once);
    solve_options o;
    o.feed = &feed;
    const solve_result got = run(s, r.data, o, incumbent());
    expect_optimal(r, got);
    EXPECT_EQ(feed.taken(), 1);
    EXPECT_TRUE(has_note(got, "incumbent improved 1 time by the heuristic running beside the search"));
    const solve_result pruned_at_opt = run(s, r.data, {}, incumbent(r.optimum.makespan, r.optimum.schedule));
    EXPECT_EQ(got.stats.branched, pruned_at_opt.stats.branched);
    EXPECT_LE(got.stats.branched, r.optimum.stats.branched);
  }
}

// A feed that improves the search's first leaf: polled during the search (not only at its start),
// taken, and the tree shrinks or stays.
TEST(incumbent_feed, improvement_found_during_the_search_is_taken) {
  const reference& r = ref();
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    // The parallel solvers poll at worker 0's clock checks: on a loaded machine the small tree can
    // close before worker 0 runs one after the first seed (seen once in CI, cpu-mt work stealing:
    // 1 poll). Up to three runs; the test still fails if none polls during the search.
    std::unique_ptr<fake_feed> feed;
    solve_result got;
    for (int attempt = 0; attempt < 3; ++attempt) {
      feed = std::make_unique<fake_feed>(r.optimum.schedule, r.optimum.makespan, fake_feed::shows::after_first_seed);
      solve_options o;
      o.feed = feed.get();
      got = run(s, r.data, o, incumbent());
      if (feed->polls() >= 2) break;
    }
    const fake_feed& feed_ref = *feed;
    expect_optimal(r, got);
    EXPECT_GE(feed_ref.polls(), 2);
    EXPECT_LE(got.stats.branched, r.optimum.stats.branched);
    // Taken unless the search found an optimal leaf itself between the seed and the next poll.
    if (feed_ref.taken() == 0) {
      const auto seeds = feed_ref.seeds();
      ASSERT_FALSE(seeds.empty());
      EXPECT_EQ(seeds.back().makespan, r.optimum.makespan) << "the feed's optimum was never taken";
    }
  }
  // The sequential solver polls at its clock checks (every node at first): the seed of the first
  // leaf is followed by a poll long before the search finds an optimal leaf itself.
  fake_feed feed(r.optimum.schedule, r.optimum.makespan, fake_feed::shows::after_first_seed);
  solve_options o;
  o.feed = &feed;
  const solve_result got = solve_sequential(r.data, o, incumbent());
  EXPECT_EQ(feed.taken(), 1);
  EXPECT_LT(got.stats.branched, r.optimum.stats.branched);
}

// Every seed is a real schedule of the makespan offered, each better than the last (one thread),
// and the last one is the optimum the search found.
TEST(incumbent_feed, improving_leaves_are_offered_as_seeds) {
  const reference& r = ref();
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    fake_feed feed({}, INT_MAX, fake_feed::shows::at_once);  // never better
    solve_options o;
    o.feed = &feed;
    const solve_result got = run(s, r.data, o, incumbent());
    expect_optimal(r, got);
    EXPECT_EQ(feed.taken(), 0);
    const auto seeds = feed.seeds();
    ASSERT_FALSE(seeds.empty());
    int best = INT_MAX;
    for (const auto& seed : seeds) {
      EXPECT_EQ(evaluate_schedule(r.inst, seed.schedule), seed.makespan);
      if (!s.parallel) {
        EXPECT_LT(seed.makespan, best) << "a seed that does not improve";
      }
      best = std::min(best, seed.makespan);
    }
    EXPECT_EQ(best, r.optimum.makespan);
  }
}

// The feed's word is not trusted: a schedule announced below its real makespan is re-evaluated
// (and taken only if really better); one that is not a permutation is an error (a bug).
TEST(incumbent_feed, schedules_are_re_evaluated) {
  const reference& r = ref();
  std::vector<int> identity(static_cast<std::size_t>(r.inst.n));
  for (int j = 0; j < r.inst.n; ++j) identity[static_cast<std::size_t>(j)] = j;
  const int identity_makespan = evaluate_schedule(r.inst, identity);
  ASSERT_GT(identity_makespan, r.optimum.makespan);
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    fake_feed liar(identity, r.optimum.makespan - 5, fake_feed::shows::at_once);
    solve_options o;
    o.feed = &liar;
    const solve_result got = run(s, r.data, o, incumbent());
    expect_optimal(r, got);

    std::vector<int> broken = identity;
    broken[0] = broken[1];
    fake_feed bad(broken, 1, fake_feed::shows::after_first_seed);
    o.feed = &bad;
    EXPECT_THROW(run(s, r.data, o, incumbent()), error);
  }
}

// A checkpoint's incumbent is a real schedule of its makespan, also when it came from the feed.
TEST(incumbent_feed, checkpoints_carry_the_taken_schedule) {
  const reference& r = ref();
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    fake_feed feed(r.optimum.schedule, r.optimum.makespan, fake_feed::shows::after_first_seed);
    solve_options o;
    o.feed = &feed;
    o.checkpoint_interval = 0;  // at every clock check
    std::vector<search_state> states;
    o.on_checkpoint = [&states](const search_state& st) { states.push_back(st); };
    const solve_result got = run(s, r.data, o, incumbent());
    expect_optimal(r, got);
    ASSERT_FALSE(states.empty());
    for (const auto& st : states) {
      if (st.best_schedule.empty()) continue;
      EXPECT_EQ(evaluate_schedule(r.inst, st.best_schedule), st.best_makespan);
    }
    EXPECT_EQ(states.back().best_makespan, r.optimum.makespan);
    EXPECT_TRUE(states.back().complete);
  }
}

}  // namespace
}  // namespace pfsp
