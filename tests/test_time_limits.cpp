// --time-limit T ends the CPU backends within max(1 s, 5 % of T) (issue 21, item 4), also at
// 500 x 20 where one LB2 node bounds for a fraction of a second: the solvers give up a node
// between its children (expander::expand's `abandon`) and put it back as it was, so that the
// open nodes, the final bound and the checkpoint stay exact.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "cpu/parallel.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "run_process.hpp"
#include "search/checkpoint.hpp"
#include "search/control.hpp"
#include "search/expander.hpp"
#include "search/sequential.hpp"
#include "search/types.hpp"
#include "time_limit_check.hpp"

namespace pfsp {
namespace {

// Given up between the children, the expansion pushes, offers and counts nothing.
TEST(time_limits, an_abandoned_expansion_leaves_no_trace) {
  const instance inst = taillard_instance("ta081");  // 100 jobs: the root has 100 children
  const bound_data data(inst);
  for (bound_kind kind : {bound_kind::lb1, bound_kind::lb2}) {
    SCOPED_TRACE(std::string(to_string(kind)));
    expander ex(data, kind, branching::min_branch);
    std::vector<job_t> perm(static_cast<std::size_t>(inst.n));
    for (int j = 0; j < inst.n; ++j) perm[static_cast<std::size_t>(j)] = static_cast<job_t>(j);
    int pushed = 0, leaves = 0, asked = 0;
    auto push = [&](const job_t*, int, int, int, int, int) { ++pushed; };
    auto leaf = [&](const job_t*, int, int, int) { ++leaves; };
    solve_stats st;
    EXPECT_FALSE(ex.expand(perm.data(), -1, inst.n, INT_MAX, push, leaf, st, [&] { return ++asked >= 1; }));
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(pushed + leaves, 0);
    EXPECT_EQ(st.branched, 0u);
    EXPECT_EQ(st.bounds, 0u);
    EXPECT_EQ(st.explored, 0.0);
    // Never abandoned: the expansion is the plain one.
    solve_stats plain_st, kept_st;
    int plain = 0;
    ex.expand(
        perm.data(), -1, inst.n, INT_MAX, [&](const job_t*, int, int, int, int, int) { ++plain; }, leaf, plain_st);
    EXPECT_TRUE(ex.expand(perm.data(), -1, inst.n, INT_MAX, push, leaf, kept_st, [] { return false; }));
    EXPECT_EQ(pushed, plain);
    EXPECT_EQ(kept_st.bounds, plain_st.bounds);
  }
}

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

// A limit already past when the search starts: the root is given up at its 64th child and put back,
// so the final checkpoint holds exactly the root, and resuming it proves the optimum (80 jobs x 5
// machines: the reference solves it in about 80 nodes).
TEST(time_limits, a_node_given_up_is_put_back_exactly) {
  const instance inst = generate_taillard(80, 5, 2);
  const bound_data data(inst);
  const solve_result reference = solve_sequential(data, solve_options{}, incumbent());
  ASSERT_EQ(reference.status, solve_status::optimal);
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    solve_options o;
    o.time_limit = 1e-9;
    std::vector<search_state> states;
    o.on_checkpoint = [&states](const search_state& st) { states.push_back(st); };
    const solve_result stopped = run(s, data, o, incumbent());
    EXPECT_EQ(stopped.status, solve_status::time_limit);
    EXPECT_EQ(stopped.stats.branched, 0u);
    ASSERT_FALSE(states.empty());
    const search_state& last = states.back();
    EXPECT_FALSE(last.complete);
    EXPECT_EQ(last.open(), 1u);

    solve_options resume;
    resume.resume = &last;
    const solve_result r = run(s, data, resume, incumbent());
    EXPECT_EQ(r.status, solve_status::optimal);
    EXPECT_EQ(r.makespan, reference.makespan);
  }
}

// The limit counts from solve_options::time_origin when it is set (pfsp solve's start: the start
// heuristic's time counts against it).
TEST(time_limits, the_limit_counts_from_the_time_origin) {
  const instance inst = taillard_instance("ta021");
  const bound_data data(inst);
  for (const auto& s : solvers) {
    SCOPED_TRACE(s.name);
    solve_options o;
    o.time_limit = 1.0;
    o.time_origin = std::chrono::steady_clock::now() - std::chrono::seconds(5);  // spent before the search
    const auto t0 = std::chrono::steady_clock::now();
    const solve_result r = run(s, data, o, incumbent());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, solve_status::time_limit);
    EXPECT_LT(seconds, 0.9) << "the search ran as if its limit started with it";
  }
}

// The real command at 500 x 20 (ta111). The requirement: wall <= T + max(1 s, 5 % T) = 3 s for
// T = 2, checked on pfsp's own wall time (the JSON's wall_seconds: instance loaded to result
// checked, the start heuristic included), and from outside with 0.5 s more for what is not pfsp's:
// the process start and exit, this test's 10-ms polling, and on CI (2 cores, tests run two at a
// time) waits for a core. pfsp's own overshoot past T is tens of ms (the clock is read every 1 to
// 5 ms, a long node is given up within 8 LB2 or 64 LB1 children), so the requirement's 1 s is
// room enough on a loaded CI machine without a margin of its own. What used to spend it: the
// start heuristic run outside the limit (0.5 to 1.5 s of iterated greedy at 500 x 20 on the
// 2-core dev machine, 4 to 13 s when it was overloaded) and whole LB2 nodes finished after the
// limit (0.2 to 0.4 s each at 500 x 20, seconds on an overloaded machine). The unit tests above
// check the mechanisms themselves.
void expect_ends_in_time(const std::vector<std::string>& extra) {
  test::expect_solve_ends_in_time("ta111", 2.0, 0.5, extra);
}

TEST(time_limits, cpu_ta111_ends_in_time) { expect_ends_in_time({"--backend", "cpu"}); }
TEST(time_limits, cpu_mt_ta111_ends_in_time) { expect_ends_in_time({"--backend", "cpu-mt", "--threads", "2"}); }
TEST(time_limits, cpu_lb2_best_first_ta111_ends_in_time) {
  expect_ends_in_time({"--backend", "cpu", "--bound", "lb2", "--selection", "best-first"});
}
TEST(time_limits, cpu_mt_lb2_shared_queue_ta111_ends_in_time) {
  expect_ends_in_time({"--backend", "cpu-mt", "--threads", "2", "--bound", "lb2", "--shared-queue"});
}

}  // namespace
}  // namespace pfsp
