// Checkpoint/restart: a search stopped (node limit, periodic snapshot, Ctrl-C, kill) and resumed,
// possibly several times and on another backend or thread count, must explore exactly the
// remaining tree: same optimum and, where the tree is fixed (the sequential solver, or any solver
// with --ub at the optimum), the same node counts as an uninterrupted run. Bad checkpoint files
// are input errors that name the file, the line and what was expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "cpu/parallel.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "run_process.hpp"
#include "search/checkpoint.hpp"
#include "search/sequential.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

// Which solver runs a piece.
struct backend_config {
  bool parallel = false;
  int threads = 1;
  bool shared_queue = false;
};
std::string describe(const backend_config& c) {
  if (!c.parallel) return "sequential";
  return std::string(c.shared_queue ? "shared queue" : "work stealing") + " x" + std::to_string(c.threads);
}
constexpr backend_config sequential{false, 1, false};

solve_result solve(const backend_config& c, const bound_data& data, solve_options o, const incumbent& start) {
  o.threads = c.threads;
  o.shared_queue = c.shared_queue;
  return c.parallel ? solve_parallel(data, o, start) : solve_sequential(data, o, start);
}

incumbent start_of(const search_state& s) {
  return s.best_schedule.empty() ? incumbent() : incumbent(s.best_makespan, s.best_schedule);
}

incumbent neh_start(const instance& inst) {
  const neh_result h = neh(inst);
  return incumbent(h.makespan, h.schedule);
}

// Runs a search in pieces of at most `node_limit` branched nodes, each piece resumed (through the
// text format) from the previous piece's final checkpoint, with backends taken from `cfgs` in
// turn. Returns the last piece's result (cumulative statistics) and counts the pieces.
solve_result run_in_pieces(const bound_data& data, const solve_options& base, const incumbent& start,
                           std::uint64_t node_limit, const std::vector<backend_config>& cfgs, int* pieces = nullptr) {
  std::optional<search_state> state;
  for (int k = 0;; ++k) {
    const backend_config& c = cfgs[static_cast<std::size_t>(k) % cfgs.size()];
    SCOPED_TRACE("piece " + std::to_string(k) + " on " + describe(c));
    solve_options o = base;
    o.node_limit = node_limit;
    std::optional<search_state> saved;
    int calls = 0;
    o.on_checkpoint = [&](const search_state& s) {
      saved = s;
      ++calls;
    };
    if (state) {
      check_resumable(*state, data.problem(), o, "piece.ckpt");
      o.resume = &*state;
    }
    const solve_result r = solve(c, data, o, state ? start_of(*state) : start);
    EXPECT_EQ(calls, 1) << "one final checkpoint per piece (the interval is 60 s)";
    if (!saved) return r;
    const std::uint64_t before = state ? state->stats.branched : 0;
    EXPECT_LE(r.stats.branched - before, node_limit + static_cast<std::uint64_t>(c.threads) - 1);
    EXPECT_EQ(saved->stats.branched, r.stats.branched);
    EXPECT_EQ(saved->stats.bounds, r.stats.bounds);
    EXPECT_EQ(saved->complete, r.status != solve_status::node_limit);
    if (r.status != solve_status::node_limit) {
      EXPECT_EQ(saved->open(), 0u);
      if (pieces) *pieces = k + 1;
      return r;
    }
    if (k > 2000) {
      ADD_FAILURE() << "too many pieces";
      return r;
    }
    state = parse_search_state(to_text(*saved), "piece.ckpt");
  }
}

void expect_same_search(const solve_result& whole, const solve_result& pieces, bool exact_counts) {
  EXPECT_EQ(pieces.status, whole.status);
  EXPECT_EQ(pieces.lower_bound, whole.lower_bound);
  EXPECT_EQ(pieces.makespan, whole.makespan);
  EXPECT_NEAR(pieces.stats.explored, 1.0, 1e-9);
  if (exact_counts) {
    EXPECT_EQ(pieces.stats.branched, whole.stats.branched);
    EXPECT_EQ(pieces.stats.bounds, whole.stats.bounds);
    EXPECT_EQ(pieces.stats.pruned, whole.stats.pruned);
    EXPECT_EQ(pieces.stats.leaves, whole.stats.leaves);
  }
}

void expect_equal_states(const search_state& a, const search_state& b) {
  EXPECT_EQ(a.instance_name, b.instance_name);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.m, b.m);
  EXPECT_EQ(a.times_hash, b.times_hash);
  EXPECT_EQ(a.bound, b.bound);
  EXPECT_EQ(a.branch, b.branch);
  EXPECT_EQ(a.ub_option, b.ub_option);
  EXPECT_EQ(a.threshold, b.threshold);
  EXPECT_EQ(a.best_makespan, b.best_makespan);
  EXPECT_EQ(a.best_schedule, b.best_schedule);
  EXPECT_EQ(a.stats.branched, b.stats.branched);
  EXPECT_EQ(a.stats.bounds, b.stats.bounds);
  EXPECT_EQ(a.stats.pruned, b.stats.pruned);
  EXPECT_EQ(a.stats.leaves, b.stats.leaves);
  EXPECT_EQ(a.stats.explored, b.stats.explored);  // exact: shortest round-trip form
  EXPECT_EQ(a.stats.total_seconds, b.stats.total_seconds);
  EXPECT_EQ(a.stats.bound_seconds, b.stats.bound_seconds);
  EXPECT_EQ(a.complete, b.complete);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.stack_sizes, b.stack_sizes);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].limit1, b.nodes[i].limit1) << "node " << i;
    EXPECT_EQ(a.nodes[i].limit2, b.nodes[i].limit2) << "node " << i;
    EXPECT_EQ(a.nodes[i].lb, b.nodes[i].lb) << "node " << i;
  }
  EXPECT_EQ(a.perms, b.perms);
}

// The final state of a run stopped by a node limit.
search_state stopped_state(const bound_data& data, solve_options o, const backend_config& c, const incumbent& start,
                           std::uint64_t node_limit) {
  search_state out;
  o.node_limit = node_limit;
  o.on_checkpoint = [&](const search_state& s) { out = s; };
  solve(c, data, o, start);
  return out;
}

instance taillard_20x10(int k) {
  return taillard_instance("ta0" + std::to_string(10 + k));  // ta011 .. ta015
}
const int taillard_20x10_optimum[] = {0, 1582, 1659, 1496, 1377, 1419};

// ------------------------------------------------------------------------------------------------
// The format.

TEST(checkpoint_format, round_trip) {
  const instance inst = taillard_20x10(3);
  const bound_data data(inst);
  solve_options o;
  o.initial_ub = 100000;
  std::vector<search_state> states;
  states.push_back(stopped_state(data, o, sequential, neh_start(inst), 50));
  states.push_back(stopped_state(data, o, {true, 3, false}, neh_start(inst), 600));
  states.push_back(stopped_state(data, o, {true, 2, true}, incumbent(), 40));
  const instance small = generate_taillard(9, 4, 777, "gen_9x4");
  const bound_data small_data(small);
  o.initial_ub.reset();
  o.bound = bound_kind::lb2;
  o.branch = branching::forward;
  states.push_back(stopped_state(small_data, o, sequential, incumbent(), 0));  // complete, no --ub
  EXPECT_EQ(states[1].stack_sizes.size(), 3u);
  EXPECT_FALSE(states[0].complete);
  EXPECT_TRUE(states[3].complete);
  for (std::size_t k = 0; k < states.size(); ++k) {
    SCOPED_TRACE("state " + std::to_string(k));
    const std::string text = to_text(states[k]);
    const search_state back = parse_search_state(text, "rt.ckpt");
    expect_equal_states(states[k], back);
    EXPECT_EQ(to_text(back), text);
    EXPECT_EQ(text.rfind("pfsp-checkpoint 1\n", 0), 0u);
  }
  EXPECT_NE(states[0].open(), 0u);
  EXPECT_TRUE(states[2].best_schedule.empty() || states[2].best_makespan > 0);
}

TEST(checkpoint_format, times_hash_tells_instances_apart) {
  instance a = generate_taillard(10, 4, 1);
  instance b = a;
  b.p[7] += 1;
  EXPECT_NE(times_hash(a.view()), times_hash(b.view()));
  EXPECT_EQ(times_hash(a.view()), times_hash(generate_taillard(10, 4, 1).view()));
}

// ------------------------------------------------------------------------------------------------
// Interrupt + resume equals the uninterrupted run.

// The sequential solver is deterministic, so pieces equal the whole run node for node even when
// leaves improve the incumbent along the way (no fixed --ub, empty or NEH start).
TEST(checkpoint_resume, sequential_pieces_equal_uninterrupted_random_instances) {
  struct config {
    bound_kind bound;
    branching branch;
  };
  const config configs[] = {{bound_kind::lb1, branching::min_min},
                            {bound_kind::lb2, branching::forward},
                            {bound_kind::lb1_lb2, branching::min_branch},
                            {bound_kind::lb1, branching::backward}};
  auto samples = test::small_samples(8, 10, 3, 5, 2, 9100);
  for (std::uint32_t seed : {3u, 5u, 8u})
    samples.push_back({generate_taillard(16, 8, seed), "generate_taillard(16, 8, " + std::to_string(seed) + ")"});
  samples.push_back({test::random_instance(14, 6, 77, 1, 5), "random_instance(14, 6, seed 77, times 1..5)"});
  int index = 0;
  for (const auto& smp : samples) {
    const config& cf = configs[index++ % 4];
    const bound_data data(smp.inst);
    solve_options o;
    o.bound = cf.bound;
    o.branch = cf.branch;
    for (bool with_neh : {false, true}) {
      const incumbent start = with_neh ? neh_start(smp.inst) : incumbent();
      SCOPED_TRACE(smp.what + ", bound " + std::string(to_string(o.bound)) + ", branching " +
                   std::string(to_string(o.branch)) + (with_neh ? ", NEH start" : ", empty start"));
      const solve_result whole = solve_sequential(data, o, start);
      ASSERT_EQ(whole.status, solve_status::optimal);
      // Pieces of a few nodes (at most about 200 pieces), and of a third of the tree.
      for (std::uint64_t limit :
           {std::max<std::uint64_t>(7, whole.stats.branched / 200), whole.stats.branched / 3 + 1}) {
        SCOPED_TRACE("node limit " + std::to_string(limit));
        int pieces = 0;
        const solve_result r = run_in_pieces(data, o, start, limit, {sequential}, &pieces);
        expect_same_search(whole, r, true);
        EXPECT_EQ(r.schedule, whole.schedule);
        if (whole.stats.branched > limit) {
          EXPECT_GE(pieces, 2);
        }
      }
    }
  }
}

// Taillard's 20x10 instances with --ub at the optimum: the tree is fixed, so every backend, and
// any mix of backends and thread counts over the pieces, expands exactly the sequential run's nodes.
TEST(checkpoint_resume, taillard_20x10_every_backend_pieces_equal_uninterrupted) {
  for (int k = 1; k <= 5; ++k) {
    const instance inst = taillard_20x10(k);
    const bound_data data(inst);
    solve_options o;
    o.initial_ub = taillard_20x10_optimum[k];
    SCOPED_TRACE(inst.name + " --ub " + std::to_string(*o.initial_ub));
    const solve_result whole = solve_sequential(data, o, incumbent());
    ASSERT_EQ(whole.status, solve_status::proven_bound);
    ASSERT_EQ(whole.lower_bound, taillard_20x10_optimum[k]);
    const std::uint64_t limit = whole.stats.branched / 4 + 1;
    {
      SCOPED_TRACE("sequential pieces");
      int pieces = 0;
      expect_same_search(whole, run_in_pieces(data, o, incumbent(), limit, {sequential}, &pieces), true);
      EXPECT_GE(pieces, 4);
    }
    {
      SCOPED_TRACE("work stealing pieces");
      expect_same_search(whole, run_in_pieces(data, o, incumbent(), limit, {{true, 2, false}, {true, 3, false}}), true);
    }
    {
      SCOPED_TRACE("shared queue, work stealing and sequential pieces");
      expect_same_search(
          whole,
          run_in_pieces(data, o, incumbent(), limit, {{true, 3, true}, {true, 2, false}, sequential, {true, 1, true}}),
          true);
    }
  }
}

// The same on random instances, with pieces as small as a few nodes.
TEST(checkpoint_resume, random_instances_every_backend_pieces_equal_uninterrupted) {
  const instance instances[] = {generate_taillard(18, 9, 11, "generate_taillard(18, 9, 11)"),
                                generate_taillard(18, 9, 12, "generate_taillard(18, 9, 12)"),
                                generate_taillard(16, 8, 3, "generate_taillard(16, 8, 3)"),
                                generate_taillard(18, 9, 15, "generate_taillard(18, 9, 15)")};
  for (const instance& inst : instances) {
    const bound_data data(inst);
    SCOPED_TRACE(inst.name);
    const solve_result opt = solve_sequential(data, solve_options{}, incumbent());
    solve_options o;
    o.initial_ub = opt.makespan;
    const solve_result whole = solve_sequential(data, o, incumbent());
    EXPECT_GT(whole.stats.branched, 200u) << "too small a tree to cut into pieces";
    for (std::uint64_t limit : {std::max<std::uint64_t>(5, whole.stats.branched / 200), whole.stats.branched / 3 + 1}) {
      SCOPED_TRACE("node limit " + std::to_string(limit));
      expect_same_search(
          whole, run_in_pieces(data, o, incumbent(), limit, {{true, 2, false}, {true, 3, true}, {true, 3, false}}),
          true);
    }
  }
}

// Without a fixed --ub the parallel trees vary with timing; the optimum must not.
TEST(checkpoint_resume, parallel_pieces_from_heuristic_start_prove_the_optimum) {
  for (int k : {2, 4, 5}) {
    const instance inst = taillard_20x10(k);
    const bound_data data(inst);
    SCOPED_TRACE(inst.name);
    const incumbent start = neh_start(inst);
    const solve_result r =
        run_in_pieces(data, solve_options{}, start, 20000, {{true, 2, false}, {true, 2, true}, sequential});
    EXPECT_EQ(r.status, solve_status::optimal);
    EXPECT_EQ(r.makespan, taillard_20x10_optimum[k]);
    EXPECT_EQ(r.lower_bound, taillard_20x10_optimum[k]);
    EXPECT_EQ(evaluate_schedule(inst, r.schedule), r.makespan);
  }
}

// Periodic snapshots of cpu-mt are taken while every thread is busy; each one, resumed, must
// complete the tree exactly (a node lost or duplicated at the pause would change the count).
TEST(checkpoint_resume, parallel_periodic_snapshots_are_exact) {
  for (int k : {1, 3}) {
    const instance inst = taillard_20x10(k);
    const bound_data data(inst);
    solve_options o;
    o.initial_ub = taillard_20x10_optimum[k];
    const solve_result whole = solve_sequential(data, o, incumbent());
    for (const backend_config c : {backend_config{true, 3, false}, backend_config{true, 3, true}}) {
      SCOPED_TRACE(inst.name + ", " + describe(c));
      std::vector<search_state> snaps;
      solve_options p = o;
      p.checkpoint_interval = 0;  // at every clock check of worker 0
      p.on_checkpoint = [&](const search_state& s) {
        if (s.open() > 0) snaps.push_back(s);
      };
      // How many snapshots a run takes depends on thread timing (worker 0 checks the clock on
      // its own node count); repeat the run until one was taken while nodes were open.
      for (int attempt = 0; attempt < 5 && snaps.empty(); ++attempt) {
        const solve_result r = solve(c, data, p, incumbent());
        EXPECT_EQ(r.stats.branched, whole.stats.branched);
      }
      ASSERT_GE(snaps.size(), 1u) << "five runs took too few clock checks to take a snapshot";
      for (std::size_t i : {std::size_t{0}, snaps.size() / 2, snaps.size() - 1}) {
        SCOPED_TRACE("snapshot " + std::to_string(i) + " of " + std::to_string(snaps.size()) + " at " +
                     std::to_string(snaps[i].stats.branched) + " nodes, " + std::to_string(snaps[i].open()) + " open");
        const search_state s = parse_search_state(to_text(snaps[i]), "snap.ckpt");
        EXPECT_FALSE(s.complete);
        solve_options q = o;
        q.resume = &s;
        expect_same_search(whole, solve_sequential(data, q, start_of(s)), true);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Bad files.

struct sample_checkpoint {
  instance inst;
  std::string text;
};
const sample_checkpoint& sample() {
  static const sample_checkpoint s = [] {
    sample_checkpoint c{taillard_20x10(4), {}};
    const bound_data data(c.inst);
    solve_options o;
    o.initial_ub = taillard_20x10_optimum[4];
    c.text = to_text(stopped_state(data, o, {true, 2, false}, neh_start(c.inst), 300));
    return c;
  }();
  return s;
}

// Runs f, which must throw input_error; returns its message.
std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

int line_of(const std::string& message, const std::string& file) {
  std::smatch m;
  if (std::regex_search(message, m, std::regex("^" + file + ":([0-9]+): "))) return std::stoi(m[1]);
  return -1;
}

TEST(checkpoint_errors, truncated_anywhere) {
  const std::string& text = sample().text;
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  for (std::size_t len = 0; len < text.size(); ++len) {
    const std::string msg =
        input_error_of([&] { parse_search_state(std::string_view(text).substr(0, len), "t.ckpt"); });
    const int line = line_of(msg, "t.ckpt");
    ASSERT_GE(line, 1) << "prefix of " << len << " bytes: " << msg;
    ASSERT_LE(line, lines) << msg;
  }
  EXPECT_NE(input_error_of([&] { parse_search_state(text.substr(0, text.size() - 30), "t.ckpt"); }).find("truncated"),
            std::string::npos);
}

TEST(checkpoint_errors, any_changed_byte_is_detected) {
  const std::string& text = sample().text;
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    std::string bad = text;
    const char c = bad[pos];
    bad[pos] = c == '\n'                ? ' '
               : (c >= '0' && c <= '8') ? static_cast<char>(c + 1)
                                        : (c == '9'   ? '0'
                                           : c == 'x' ? 'y'
                                                      : 'x');
    const std::string msg = input_error_of([&] { parse_search_state(bad, "c.ckpt"); });
    ASSERT_GE(line_of(msg, "c.ckpt"), 1) << "byte " << pos << " ('" << c << "' -> '" << bad[pos] << "'): " << msg;
  }
  // A changed digit in a node that keeps the line well-formed is caught by the checksum.
  std::string bad = text;
  const std::size_t node = bad.find("\nnode ");
  ASSERT_NE(node, std::string::npos);
  const std::size_t lb_pos = bad.find(' ', bad.find(' ', bad.find(' ', node + 1) + 1) + 1) + 1;  // the lb field
  bad[lb_pos] = bad[lb_pos] == '1' ? '2' : '1';
  const std::string msg = input_error_of([&] { parse_search_state(bad, "c.ckpt"); });
  EXPECT_NE(msg.find("checksum"), std::string::npos) << msg;
}

TEST(checkpoint_errors, messages_say_what_was_expected) {
  const std::string& text = sample().text;
  auto parse_error = [](const std::string& t) { return input_error_of([&] { parse_search_state(t, "x.ckpt"); }); };
  std::string msg = parse_error("pfsp-checkpoint 2\n" + text.substr(text.find('\n') + 1));
  EXPECT_EQ(line_of(msg, "x.ckpt"), 1) << msg;
  EXPECT_NE(msg.find("version '2'"), std::string::npos) << msg;
  msg = parse_error("{\"not\": \"a checkpoint\"}\n");
  EXPECT_NE(msg.find("expected a line 'pfsp-checkpoint"), std::string::npos) << msg;
  msg = parse_error(text + "extra\n");
  EXPECT_NE(msg.find("after the 'end' line"), std::string::npos) << msg;
  std::string twice = text;
  const std::size_t node = twice.find("\nnode ");
  const std::size_t first_job =
      twice.find(' ', twice.find(' ', twice.find(' ', twice.find(' ', node + 1) + 1) + 1) + 1);
  const std::size_t second_job = twice.find(' ', first_job + 1);
  // Make the second job equal the first: "appears twice".
  const std::string job = twice.substr(first_job + 1, second_job - first_job - 1);
  const std::size_t third = twice.find_first_of(" \n", second_job + 1);
  twice.replace(second_job + 1, third - second_job - 1, job);
  msg = parse_error(twice);
  EXPECT_NE(msg.find("appears twice"), std::string::npos) << msg;

  EXPECT_NE(input_error_of([] { read_search_state("/nonexistent/dir/none.ckpt"); }).find("/nonexistent/dir/none.ckpt"),
            std::string::npos);
  test::temp_dir dir;
  { std::ofstream(dir.file("empty.ckpt")); }
  EXPECT_NE(input_error_of([&] { read_search_state(dir.file("empty.ckpt")); }).find("empty file"), std::string::npos);
}

TEST(checkpoint_errors, mismatched_runs_are_refused) {
  const search_state s = parse_search_state(sample().text, "m.ckpt");
  solve_options o;
  o.initial_ub = taillard_20x10_optimum[4];
  EXPECT_NO_THROW(check_resumable(s, sample().inst, o, "m.ckpt"));

  std::string msg = input_error_of([&] { check_resumable(s, taillard_20x10(5), o, "m.ckpt"); });
  EXPECT_NE(msg.find("m.ckpt"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not 'ta015'"), std::string::npos) << msg;
  instance changed = sample().inst;
  changed.p[3] += 1;
  msg = input_error_of([&] { check_resumable(s, changed, o, "m.ckpt"); });
  EXPECT_NE(msg.find("different processing times"), std::string::npos) << msg;

  solve_options b = o;
  b.bound = bound_kind::lb2;
  msg = input_error_of([&] { check_resumable(s, sample().inst, b, "m.ckpt"); });
  EXPECT_NE(msg.find("--bound lb1"), std::string::npos) << msg;
  b = o;
  b.branch = branching::forward;
  msg = input_error_of([&] { check_resumable(s, sample().inst, b, "m.ckpt"); });
  EXPECT_NE(msg.find("--branching " + std::string(to_string(o.branch))), std::string::npos) << msg;
  b = o;
  b.initial_ub.reset();
  msg = input_error_of([&] { check_resumable(s, sample().inst, b, "m.ckpt"); });
  EXPECT_NE(msg.find("--ub"), std::string::npos) << msg;
  b = o;
  b.select = selection::best_first;
  msg = input_error_of([&] { check_resumable(s, sample().inst, b, "m.ckpt"); });
  EXPECT_NE(msg.find("depth-first"), std::string::npos) << msg;

  search_state lying = s;
  lying.best_makespan += 1;
  ASSERT_FALSE(lying.best_schedule.empty());
  const search_state reread = parse_search_state(to_text(lying), "m.ckpt");            // well-formed...
  msg = input_error_of([&] { check_resumable(reread, sample().inst, o, "m.ckpt"); });  // ...but wrong
  EXPECT_NE(msg.find("makespan"), std::string::npos) << msg;
}

// ------------------------------------------------------------------------------------------------
// The real binary.

using test::run_pfsp;

// "status makespan lower_bound" of -q.
std::string quiet_line(const test::process_result& r) { return r.out; }

std::uint64_t json_branched(const std::string& path) {
  const std::string text = test::slurp(path);
  std::smatch m;
  if (std::regex_search(text, m, std::regex("\"branched\": ([0-9]+)"))) return std::stoull(m[1]);
  return 0;
}

TEST(checkpoint_cli, node_limit_then_resume_until_done) {
  test::temp_dir dir;
  const std::string ck = dir.file("run.ckpt"), whole_json = dir.file("whole.json"), json = dir.file("piece.json");
  const auto whole = run_pfsp({"solve", "ta012", "--backend", "cpu", "--ub", "1659", "-q", "--json", whole_json});
  ASSERT_EQ(whole.exit_code, 0) << whole.describe();
  const std::uint64_t total = json_branched(whole_json);
  ASSERT_GT(total, 30000u);

  auto first = run_pfsp({"solve", "ta012", "--backend", "cpu", "--ub", "1659", "-q", "--checkpoint", ck, "--node-limit",
                         std::to_string(total / 4)});
  ASSERT_EQ(first.exit_code, 4) << first.describe();
  EXPECT_EQ(first.out.rfind("node_limit ", 0), 0u) << first.describe();
  EXPECT_FALSE(std::ifstream(ck + ".tmp").good()) << "temporary file left behind";
  // Later pieces take --ub, bound and branching from the checkpoint, on varying backends.
  const std::vector<std::vector<std::string>> backends = {{"--backend", "cpu-mt", "--threads", "2"},
                                                          {"--backend", "cpu"},
                                                          {"--backend", "cpu-mt", "--threads", "2", "--shared-queue"}};
  int pieces = 1;
  test::process_result last;
  for (int k = 0; k < 20; ++k) {
    std::vector<std::string> args = {"solve",
                                     "ta012",
                                     "-q",
                                     "--resume",
                                     ck,
                                     "--checkpoint",
                                     ck,
                                     "--json",
                                     json,
                                     "--node-limit",
                                     std::to_string(total / 4)};
    const auto& b = backends[static_cast<std::size_t>(k) % backends.size()];
    args.insert(args.end(), b.begin(), b.end());
    last = run_pfsp(args);
    ++pieces;
    if (last.exit_code != 4) break;
  }
  ASSERT_EQ(last.exit_code, 0) << last.describe();
  EXPECT_EQ(quiet_line(last), quiet_line(whole)) << last.describe();
  EXPECT_EQ(json_branched(json), total) << "the pieces must add up to the uninterrupted run";
  EXPECT_GE(pieces, 4);
  EXPECT_NE(test::slurp(json).find("\"resumed_from\""), std::string::npos);
  EXPECT_NE(test::slurp(ck).find("\ncomplete 1\n"), std::string::npos);

  // Resuming a complete search only reports it.
  const auto again = run_pfsp({"solve", "ta012", "--resume", ck, "--no-progress"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_NE(again.out.find("already complete"), std::string::npos) << again.describe();
  EXPECT_NE(again.out.find(std::to_string(total) + " branched"), std::string::npos) << again.describe();
}

TEST(checkpoint_cli, bad_checkpoints_and_options_exit_2) {
  test::temp_dir dir;
  const std::string ck = dir.file("a.ckpt");
  const auto first = run_pfsp({"solve", "ta014", "--backend", "cpu", "-q", "--checkpoint", ck, "--node-limit", "500"});
  ASSERT_EQ(first.exit_code, 4) << first.describe();

  auto expect_input_error = [](const test::process_result& r, const std::vector<std::string>& words) {
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(r.out.empty() || r.out.find("status") == std::string::npos) << r.describe();
    for (const auto& w : words)
      EXPECT_NE(r.err.find(w), std::string::npos) << "expected '" << w << "'\n" << r.describe();
  };
  expect_input_error(run_pfsp({"solve", "ta013", "--resume", ck}), {ck, "not 'ta013'"});
  expect_input_error(run_pfsp({"solve", "ta014", "--resume", ck, "--bound", "lb2"}), {ck, "--bound lb1"});
  expect_input_error(run_pfsp({"solve", "ta014", "--resume", ck, "--ub", "1400"}), {ck, "--ub"});
  expect_input_error(run_pfsp({"solve", "ta014", "--resume", dir.file("missing.ckpt")}), {"missing.ckpt"});
  expect_input_error(run_pfsp({"solve", "ta014", "--checkpoint", dir.file("no/such/dir/x.ckpt")}), {"does not exist"});
  expect_input_error(run_pfsp({"solve", "ta014", "--checkpoint", ck, "--selection", "best-first"}), {"depth-first"});
  expect_input_error(run_pfsp({"solve", "ta014", "--checkpoint", ck, "--backend", "gpu"}), {"gpu"});

  const std::string text = test::slurp(ck);
  const std::string cut = dir.file("cut.ckpt");
  { std::ofstream(cut, std::ios::binary) << text.substr(0, text.size() / 2); }
  const auto r = run_pfsp({"solve", "ta014", "--resume", cut});
  expect_input_error(r, {cut + ":"});
  EXPECT_TRUE(std::regex_search(r.err, std::regex("cut\\.ckpt:[0-9]+: "))) << r.describe();
}

// Ctrl-C saves the state; so does the periodic writer, which is all a killed run leaves.
TEST(checkpoint_cli, interrupt_and_kill_leave_a_resumable_checkpoint) {
  test::temp_dir dir;
  const std::string ck = dir.file("int.ckpt");
  const auto r =
      run_pfsp({"solve", "ta021", "--backend", "cpu-mt", "--threads", "2", "--no-progress", "--checkpoint", ck},
               /*sigint_after_s=*/0.8);
  ASSERT_EQ(r.exit_code, 130) << r.describe();
  EXPECT_NE(r.out.find("continue with --resume"), std::string::npos) << r.describe();
  const search_state s = read_search_state(ck);
  EXPECT_FALSE(s.complete);
  EXPECT_GT(s.open(), 0u);
  const auto resumed = run_pfsp({"solve", "ta021", "--backend", "cpu", "-q", "--resume", ck, "--node-limit", "1000"});
  EXPECT_EQ(resumed.exit_code, 4) << resumed.describe();

  const std::string killed = dir.file("killed.ckpt");
  // No heuristic: the search (and the first checkpoint, 0.1 s in) starts at once, even in a
  // sanitizer build.
  const auto k = run_pfsp({"solve", "ta021", "--backend", "cpu-mt", "--threads", "2", "--no-progress", "--heuristic",
                           "none", "--checkpoint", killed, "--checkpoint-interval", "0.1"},
                          /*sigint_after_s=*/-1, /*deadline_s=*/2.0);
  ASSERT_TRUE(k.timed_out) << k.describe();
  ASSERT_TRUE(std::ifstream(killed).good()) << "no periodic checkpoint within 2 s\n" << k.describe();
  const search_state ks = read_search_state(killed);
  EXPECT_FALSE(ks.complete);
  EXPECT_GT(ks.stats.branched, 0u);
  const auto after_kill =
      run_pfsp({"solve", "ta021", "-q", "--resume", killed, "--backend", "cpu", "--node-limit", "1000"});
  EXPECT_EQ(after_kill.exit_code, 4) << after_kill.describe();
}

}  // namespace
}  // namespace pfsp
