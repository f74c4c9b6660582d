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
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "bound/pair_learning.hpp"
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

// Through a file's bytes: the binary format, or for even `k` and a state without LB2 pairs the
// text format (both, and every switch between them, are exercised by the pieces below).
search_state through_bytes(const search_state& s, int k) {
  if (k % 2 == 0 && s.lb2_pairs.empty()) return parse_checkpoint(to_text(s), "piece.ckpt");
  return parse_checkpoint(to_binary(s), "piece.ckpt");
}

// Runs a search in pieces of at most `node_limit` branched nodes, each piece resumed (through the
// binary or the text format, alternately) from the previous piece's final checkpoint, with
// backends taken from `cfgs` in turn. Returns the last piece's result (cumulative statistics) and
// counts the pieces.
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
      check_resumable(*state, data, o, "piece.ckpt");
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
    EXPECT_EQ(saved->lb2_pairs, lb2_pairs_of(data, o.bound));
    state = through_bytes(*saved, k);
  }
}

void expect_same_search(const solve_result& whole, const solve_result& pieces, bool exact_counts) {
  EXPECT_EQ(pieces.status, whole.status);
  EXPECT_EQ(pieces.lower_bound, whole.lower_bound);
  EXPECT_EQ(pieces.makespan, whole.makespan);
  EXPECT_NEAR(pieces.stats.explored, 1.0, 1e-9);
  if (exact_counts) {
    test::expect_same_tree(pieces, whole, "");
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
  EXPECT_EQ(a.lb2_pairs, b.lb2_pairs);
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

// A state of `count` random open nodes (random permutations and limits, bounds in
// lb_lo..lb_lo+lb_span), with counts beyond 32 bits and LB2 pairs where m allows.
search_state synthetic_state(int n, int m, std::size_t count, int lb_lo, int lb_span, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  search_state s;
  s.instance_name = "synthetic " + std::to_string(n) + "x" + std::to_string(m);
  s.n = n;
  s.m = m;
  s.times_hash = rng();
  s.bound = bound_kind::lb1_lb2;
  s.branch = branching::min_min;
  s.ub_option = lb_lo + lb_span + 2;
  s.threshold = lb_lo + lb_span + 2;
  s.best_makespan = lb_lo + lb_span + 1;
  s.best_schedule.resize(static_cast<std::size_t>(n));
  std::iota(s.best_schedule.begin(), s.best_schedule.end(), 0);
  std::shuffle(s.best_schedule.begin(), s.best_schedule.end(), rng);
  s.stats.branched = 5'000'000'000'123ull;  // more than 2^32: 64-bit fields all the way
  s.stats.bounds = 0xfedcba9876543210ull;
  s.stats.pruned = (1ull << 40) + 7;
  s.stats.leaves = 3;
  s.stats.explored = 0.1 + 1e-17;
  s.stats.total_seconds = 86400.0 * 3 + 0.123456789;
  s.stats.bound_seconds = 1.0 / 3.0;
  s.backend = "synthetic";
  if (m >= 4) s.lb2_pairs = {{2, 3}, {0, 3}, {1, 2}};
  s.stack_sizes = {count / 3, 0, count - count / 3};
  std::vector<job_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), job_t{0});
  for (std::size_t i = 0; i < count; ++i) {
    std::shuffle(perm.begin(), perm.end(), rng);
    const int limit1 = static_cast<int>(rng() % static_cast<std::uint64_t>(n - 1)) - 1;
    const int limit2 = limit1 + 2 + static_cast<int>(rng() % static_cast<std::uint64_t>(n - limit1 - 1));
    const int lb = lb_lo + static_cast<int>(rng() % (static_cast<std::uint64_t>(lb_span) + 1));
    s.nodes.push_back({limit1, limit2, lb});
    s.perms.insert(s.perms.end(), perm.begin(), perm.end());
  }
  if (count > 0) s.nodes.back().lb = lb_lo + lb_span;  // the whole span is used
  return s;
}

TEST(checkpoint_format, binary_round_trip_is_bit_exact) {
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
  // Every job width and bound width: 8-bit ids (n <= 255) and 16-bit ids, offsets of 1, 2, 4 bytes.
  struct shape {
    int n, m;
    std::size_t count;
    int lb_lo, lb_span;
    std::size_t bytes_per_node;
  };
  const shape shapes[] = {{20, 20, 500, 1200, 200, 2 + 1 + 20},       {50, 20, 300, 3000, 4000, 2 + 2 + 50},
                          {255, 3, 40, 0, 70000, 2 + 4 + 255},        {256, 5, 40, 17, 10, 4 + 1 + 512},
                          {700, 2, 30, 1 << 30, 65535, 4 + 2 + 1400}, {2, 1, 5, 0, 0, 2 + 1 + 2}};
  for (const shape& sh : shapes) {
    states.push_back(synthetic_state(sh.n, sh.m, sh.count, sh.lb_lo, sh.lb_span, 42));
    const search_state& st = states.back();
    const std::string bytes = to_binary(st);
    const std::size_t w = sh.n <= 255 ? 1 : 2;
    const std::size_t fixed = 132 + st.instance_name.size() + st.backend.size() + 8 * st.lb2_pairs.size() +
                              w * static_cast<std::size_t>(sh.n) + 8 * st.stack_sizes.size() + 8;
    EXPECT_EQ(bytes.size(), fixed + sh.count * sh.bytes_per_node) << sh.n << "x" << sh.m << " span " << sh.lb_span;
  }
  states.push_back(synthetic_state(30, 5, 0, 0, 0, 7));  // no open node, incumbent
  states.back().best_schedule.clear();                   // ... then none
  states.back().best_makespan = 0;
  states.back().ub_option.reset();
  states.back().complete = true;
  for (std::size_t k = 0; k < states.size(); ++k) {
    SCOPED_TRACE("state " + std::to_string(k) + " (" + std::to_string(states[k].n) + " jobs, " +
                 std::to_string(states[k].open()) + " open)");
    const std::string bytes = to_binary(states[k]);
    EXPECT_TRUE(is_binary_checkpoint(bytes));
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PFSPCK\n", 8));
    const search_state back = parse_binary_search_state(bytes, "rt.ckpt");
    expect_equal_states(states[k], back);
    EXPECT_EQ(to_binary(back), bytes);
    expect_equal_states(states[k], parse_checkpoint(bytes, "rt.ckpt"));
    if (states[k].lb2_pairs.empty()) {
      // The same state through the text format: the formats hold the same information.
      expect_equal_states(parse_checkpoint(to_text(states[k]), "rt.ckpt"), back);
    } else {
      EXPECT_NE(input_error_of([&] { to_text(states[k]); }).find("cannot record LB2 machine pairs"), std::string::npos);
    }
  }
}

TEST(checkpoint_format, files_of_either_format_are_read) {
  test::temp_dir dir;
  const search_state s = synthetic_state(20, 10, 1000, 1500, 300, 5);
  search_state no_pairs = s;
  no_pairs.lb2_pairs.clear();
  { std::ofstream(dir.file("b.ckpt"), std::ios::binary) << to_binary(s); }
  { std::ofstream(dir.file("t.ckpt"), std::ios::binary) << to_text(no_pairs); }
  expect_equal_states(read_search_state(dir.file("b.ckpt")), s);
  expect_equal_states(read_search_state(dir.file("t.ckpt")), no_pairs);
  EXPECT_LT(test::slurp(dir.file("b.ckpt")).size() * 2, test::slurp(dir.file("t.ckpt")).size());
}

TEST(checkpoint_format, block_checksum_sees_every_bit_and_the_length) {
  std::mt19937 rng(3);
  std::string data(203, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  const std::uint64_t h = block_checksum(data.data(), data.size());
  // Each lane is a chain of bijections (xor a word, multiply by an odd prime): one changed word
  // always changes its lane.
  for (std::size_t i = 0; i < data.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string d = data;
      d[i] = static_cast<char>(d[i] ^ (1 << bit));
      ASSERT_NE(block_checksum(d.data(), d.size()), h) << "byte " << i << " bit " << bit;
    }
  // Zero bytes appended (the tail is zero-padded) change it through the length.
  std::vector<std::uint64_t> seen;
  const std::string zeros(100, '\0');
  for (std::size_t len = 0; len <= zeros.size(); ++len) seen.push_back(block_checksum(zeros.data(), len));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
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

// LB2 over learned pairs (--lb2-pairs learn): the checkpoints record the pairs, the resumed
// pieces evaluate them, and the pieces add up to the uninterrupted run, sequential and cpu-mt.
TEST(checkpoint_resume, learned_lb2_pairs_are_recorded_and_pieces_equal_uninterrupted) {
  for (int k : {1, 4}) {
    const instance inst = taillard_20x10(k);
    solve_options o;
    o.bound = bound_kind::lb2;
    o.initial_ub = taillard_20x10_optimum[k];
    const std::vector<std::pair<int, int>> pairs = learn_pairs(inst, inst.m - 1, *o.initial_ub).pairs;
    ASSERT_EQ(pairs.size(), static_cast<std::size_t>(inst.m - 1));
    const bound_data data(inst, pairs);
    ASSERT_EQ(lb2_pairs_of(data, o.bound), pairs);
    SCOPED_TRACE(inst.name + " with " + describe_lb2_pairs(pairs, inst.m));
    const solve_result whole = solve_sequential(data, o, incumbent());
    ASSERT_EQ(whole.status, solve_status::proven_bound);
    const std::uint64_t limit = whole.stats.branched / 4 + 1;
    int pieces = 0;
    expect_same_search(whole, run_in_pieces(data, o, incumbent(), limit, {sequential}, &pieces), true);
    EXPECT_GE(pieces, 4);
    expect_same_search(whole, run_in_pieces(data, o, incumbent(), limit, {{true, 2, false}, {true, 3, true}}), true);

    // Another set of pairs is refused, by check_resumable and by the solvers themselves.
    const search_state s =
        parse_checkpoint(to_binary(stopped_state(data, o, sequential, incumbent(), limit)), "p.ckpt");
    EXPECT_EQ(s.lb2_pairs, pairs);
    EXPECT_NO_THROW(check_resumable(s, data, o, "p.ckpt"));
    for (const auto& other : {std::vector<std::pair<int, int>>{}, bound_data::adjacent_pairs(inst.m)}) {
      const bound_data wrong(inst, other);
      std::string msg = input_error_of([&] { check_resumable(s, wrong, o, "p.ckpt"); });
      EXPECT_NE(msg.find("p.ckpt: cannot resume: the checkpoint was made with LB2 machine pairs"), std::string::npos)
          << msg;
      solve_options r = o;
      r.resume = &s;
      msg = input_error_of([&] { solve_sequential(wrong, r, start_of(s)); });
      EXPECT_NE(msg.find("LB2 machine pairs"), std::string::npos) << msg;
      r.threads = 2;
      msg = input_error_of([&] { solve_parallel(wrong, r, start_of(s)); });
      EXPECT_NE(msg.find("LB2 machine pairs"), std::string::npos) << msg;
    }
    // With LB1 the pairs play no part and are not recorded.
    solve_options l1 = o;
    l1.bound = bound_kind::lb1;
    EXPECT_TRUE(stopped_state(data, l1, sequential, incumbent(), 10).lb2_pairs.empty());
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
        const search_state s = through_bytes(snaps[i], static_cast<int>(i));
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

// The binary sample: the same stopped search as sample().
const std::string& sample_binary() {
  static const std::string b = to_binary(parse_search_state(sample().text, "s.ckpt"));
  return b;
}

// Offset of the first open node in a binary checkpoint (the layout of checkpoint_binary.cpp).
std::size_t first_node_offset(const std::string& b) {
  auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
    return static_cast<std::size_t>(v);
  };
  const std::size_t n = u32(12), w = static_cast<unsigned char>(b[23]);
  return 132 + u32(108) + u32(112) + 8 * u32(116) + ((b[22] & 2) ? n * w : 0) + 8 * u32(120);
}

// A corrupted binary checkpoint with its checksum made right again, so that the checks behind it run.
std::string resealed(std::string b) {
  const std::uint64_t h = block_checksum(b.data(), b.size() - 8);
  for (int i = 0; i < 8; ++i) b[b.size() - 8 + static_cast<std::size_t>(i)] = static_cast<char>(h >> (8 * i));
  return b;
}

void put_u64(std::string& b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
}

std::string binary_error(const std::string& b) {
  return input_error_of([&] { parse_checkpoint(b, "b.ckpt"); });
}

TEST(checkpoint_binary_errors, truncated_anywhere) {
  const std::string& b = sample_binary();
  ASSERT_GT(b.size(), 500u);
  for (std::size_t len = 1; len < b.size(); ++len) {
    const std::string msg = binary_error(b.substr(0, len));
    ASSERT_EQ(msg.rfind("b.ckpt: ", 0), 0u) << "prefix of " << len << " bytes: " << msg;
    ASSERT_NE(msg.find("truncated"), std::string::npos) << "prefix of " << len << " bytes: " << msg;
  }
  EXPECT_NE(binary_error("").find("empty file"), std::string::npos);
}

TEST(checkpoint_binary_errors, any_changed_byte_is_detected) {
  const std::string& b = sample_binary();
  for (std::size_t pos = 0; pos < b.size(); ++pos)
    for (int x : {0x01, 0x80, 0xff}) {
      std::string bad = b;
      bad[pos] = static_cast<char>(bad[pos] ^ x);
      const std::string msg = binary_error(bad);
      // A damaged magic may read as text; everything else names the file and the byte offset
      // (or says which counts disagree with the size).
      ASSERT_EQ(msg.rfind("b.ckpt", 0), 0u) << "byte " << pos << " ^ " << x << ": " << msg;
      if (pos >= 8) {
        ASSERT_TRUE(msg.find("byte offset") != std::string::npos || msg.find("inconsistent") != std::string::npos)
            << "byte " << pos << " ^ " << x << ": " << msg;
      }
    }
  // In the nodes, the checksum is what catches it.
  std::string bad = b;
  bad[first_node_offset(b) + 2] ^= 1;
  const std::string msg = binary_error(bad);
  EXPECT_NE(msg.find("byte offset " + std::to_string(b.size() - 8) + ": checksum"), std::string::npos) << msg;
}

TEST(checkpoint_binary_errors, each_kind_says_what_was_expected) {
  const std::string& b = sample_binary();
  const search_state s = parse_checkpoint(b, "s.ckpt");
  ASSERT_LE(s.n, 255);  // 1-byte jobs and limits below
  auto expect = [](const std::string& bytes, const std::vector<std::string>& words) {
    const std::string msg = binary_error(bytes);
    EXPECT_EQ(msg.rfind("b.ckpt: ", 0), 0u) << msg;
    for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "expected '" << w << "': " << msg;
  };
  std::string x = b;
  x[3] = 'X';
  expect(x, {"byte offset 3: bad magic", "89 50 46 53 50 43 4b 0a"});
  x = b;
  x[8] = 3;
  expect(x, {"byte offset 8: checkpoint format version 3 is not supported", "binary version 2", "text version 1"});
  expect(b + "x", {"inconsistent", "trailing"});
  x = b;
  put_u64(x, 124, std::uint64_t{1} << 62);  // a huge node count: refused before any allocation
  expect(x, {"truncated or inconsistent", std::to_string(std::uint64_t{1} << 62) + " open nodes"});
  x = b;
  put_u64(x, 124, ~std::uint64_t{0});
  expect(x, {"truncated or inconsistent"});
  x = b;
  x[120] = static_cast<char>(0xff);  // stack count
  x[121] = static_cast<char>(0xff);
  x[122] = static_cast<char>(0xff);
  expect(x, {"byte offset 120: stack count"});
  x = b;
  x[12] = 0;  // n = 0
  expect(x, {"byte offset 12: n (jobs) 0 is out of range 1..65535"});
  x = b;
  x[24] = 3;
  expect(x, {"byte offset 24: bound width 3"});
  x = b;
  x[20] = 9;
  expect(x, {"byte offset 20: bound 9 is out of range 0..2"});
  x = b;
  x[25] = 1;
  expect(x, {"byte offset 25: reserved byte"});

  // Past the checksum: the content's own checks (the file resealed).
  const std::size_t node = first_node_offset(b);
  x = b;
  x[node + 1] = static_cast<char>(s.n + 1);  // limit2 > n
  expect(resealed(x), {"byte offset " + std::to_string(node + 1) + ": open node 0: limit2"});
  x = b;
  x[node] = static_cast<char>(s.n + 1);  // limit1 = n
  expect(resealed(x), {"open node 0: limit1"});
  const std::size_t jobs = node + 2 + static_cast<unsigned char>(b[24]);
  x = b;
  x[jobs + 1] = x[jobs];
  expect(resealed(x), {"byte offset " + std::to_string(jobs) + ": open node 0: job", "appears twice",
                       "expected a permutation of 0.." + std::to_string(s.n - 1)});
  x = b;
  x[jobs] = static_cast<char>(s.n);
  expect(resealed(x), {"out of range 0.." + std::to_string(s.n - 1)});
  const std::size_t record = 2 + static_cast<unsigned char>(b[24]) + static_cast<std::size_t>(s.n);
  x = b;
  x[jobs + record + 5] = static_cast<char>(200);  // the second node
  expect(resealed(x), {"open node 1: job 200"});
  x = b;
  x[22] = static_cast<char>(x[22] | 4);  // complete with open nodes
  expect(resealed(x), {"marked complete"});
  x = b;
  const std::size_t stack0 = node - 8 * s.stack_sizes.size();
  x[stack0] = static_cast<char>(x[stack0] + 1);
  expect(resealed(x), {"byte offset ", "the stacks hold"});  // which stack overflows depends on the sample's stacks
  x = b;
  x[36] = static_cast<char>(x[36] + 1);  // incumbent's makespan: well-formed, wrong
  const search_state lying = parse_checkpoint(resealed(x), "b.ckpt");
  solve_options o;
  o.initial_ub = taillard_20x10_optimum[4];
  EXPECT_NE(input_error_of([&] { check_resumable(lying, sample().inst, o, "b.ckpt"); }).find("makespan"),
            std::string::npos);

  // LB2 pairs: only with LB2, each a pair k < l of the machines.
  search_state p = s;
  p.bound = bound_kind::lb2;
  p.lb2_pairs = {{0, 1}, {2, 9}};
  const std::string pb = to_binary(p);
  EXPECT_EQ(parse_checkpoint(pb, "b.ckpt").lb2_pairs, p.lb2_pairs);
  x = pb;
  const std::size_t pair_at = 132 + p.instance_name.size() + p.backend.size();
  x[pair_at + 8 + 4] = 10;  // (2, 10) with m = 10
  expect(resealed(x), {"byte offset " + std::to_string(pair_at + 12) + ": LB2 pair's second machine 10"});
  x = pb;
  x[pair_at + 4] = 0;  // (0, 0)
  expect(resealed(x), {"LB2 pair's second machine 0 is out of range 1..9"});
  x = pb;
  x[20] = 0;  // bound lb1 with pairs
  expect(resealed(x), {"byte offset 116: LB2 pair count 2 is out of range 0..0"});
}

TEST(checkpoint_binary_errors, another_instance_is_refused) {
  const search_state s = parse_checkpoint(sample_binary(), "m.ckpt");
  solve_options o;
  o.initial_ub = taillard_20x10_optimum[4];
  EXPECT_NO_THROW(check_resumable(s, sample().inst, o, "m.ckpt"));
  std::string msg = input_error_of([&] { check_resumable(s, taillard_20x10(5), o, "m.ckpt"); });
  EXPECT_NE(msg.find("m.ckpt: cannot resume"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not 'ta015'"), std::string::npos) << msg;
  instance changed = sample().inst;
  changed.p[3] += 1;
  msg = input_error_of([&] { check_resumable(s, changed, o, "m.ckpt"); });
  EXPECT_NE(msg.find("different processing times"), std::string::npos) << msg;
  solve_options b = o;
  b.initial_ub.reset();
  EXPECT_NE(input_error_of([&] { check_resumable(s, sample().inst, b, "m.ckpt"); }).find("--ub"), std::string::npos);
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
  // --memo 0: a checkpoint does not carry the memo table (search/memo_table.hpp), so resumed pieces
  // may branch nodes the uninterrupted run pruned; without it the tree is the same node for node.
  const auto whole =
      run_pfsp({"solve", "ta012", "--backend", "cpu", "--ub", "1659", "-q", "--memo", "0", "--json", whole_json});
  ASSERT_EQ(whole.exit_code, 0) << whole.describe();
  const std::uint64_t total = json_branched(whole_json);
  ASSERT_GT(total, 30000u);

  auto first = run_pfsp({"solve", "ta012", "--backend", "cpu", "--ub", "1659", "-q", "--memo", "0", "--checkpoint", ck,
                         "--node-limit", std::to_string(total / 4)});
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
                                     std::to_string(total / 4),
                                     "--memo",
                                     "0"};
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
  EXPECT_TRUE(read_search_state(ck).complete);

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
  expect_input_error(r, {cut + ": ", "truncated"});

  // The text format names the line.
  const std::string tk = dir.file("t.ckpt");
  ASSERT_EQ(run_pfsp({"solve", "ta014", "--backend", "cpu", "-q", "--checkpoint", tk, "--checkpoint-format", "text",
                      "--node-limit", "500"})
                .exit_code,
            4);
  const std::string tt = test::slurp(tk);
  EXPECT_EQ(tt.rfind("pfsp-checkpoint 1\n", 0), 0u);
  { std::ofstream(cut, std::ios::binary) << tt.substr(0, tt.size() / 2); }
  const auto rt = run_pfsp({"solve", "ta014", "--resume", cut});
  expect_input_error(rt, {cut + ":"});
  EXPECT_TRUE(std::regex_search(rt.err, std::regex("cut\\.ckpt:[0-9]+: "))) << rt.describe();
  expect_input_error(run_pfsp({"solve", "ta014", "--checkpoint", ck, "--checkpoint-format", "json"}),
                     {"--checkpoint-format"});
}

// --lb2-pairs learn with checkpoints: the pairs are learned once, recorded, and every resumed
// piece (which needs no --lb2-pairs) evaluates them: the pieces add up to the uninterrupted run.
TEST(checkpoint_cli, learned_lb2_pairs_are_recorded_and_enforced) {
  test::temp_dir dir;
  const std::string ck = dir.file("p.ckpt"), whole_json = dir.file("whole.json"), json = dir.file("piece.json");
  const std::vector<std::string> tree = {"--bound", "lb2", "--ub", "1659", "-q", "--memo", "0"};  // see above
  auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return run_pfsp(args);
  };
  const auto whole = with({"solve", "ta012", "--backend", "cpu", "--lb2-pairs", "learn", "--json", whole_json}, tree);
  ASSERT_EQ(whole.exit_code, 0) << whole.describe();
  const std::uint64_t total = json_branched(whole_json);
  ASSERT_GT(total, 4000u);
  const std::string limit = std::to_string(total / 3);
  const auto first = with({"solve", "ta012", "--backend", "cpu-mt", "--threads", "2", "--lb2-pairs", "learn",
                           "--checkpoint", ck, "--node-limit", limit},
                          tree);
  ASSERT_EQ(first.exit_code, 4) << first.describe();
  const search_state s = read_search_state(ck);
  EXPECT_EQ(s.lb2_pairs.size(), 9u);  // m - 1 of ta012's 45 pairs
  EXPECT_NE(test::slurp(whole_json).find("learn:"), std::string::npos);

  auto expect_refused = [&](const std::vector<std::string>& args, const std::string& word) {
    const auto r = run_pfsp(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find(word), std::string::npos) << r.describe();
  };
  expect_refused({"solve", "ta012", "--resume", ck, "--lb2-pairs", "adjacent"},
                 "the checkpoint was made with LB2 machine pairs 9 of 45 pairs");
  expect_refused({"solve", "ta012", "--resume", ck, "--lb2-pairs", "all"}, "--lb2-pairs all");
  expect_refused({"solve", "ta012", "--resume", ck, "--lb2-pairs", "learn:5"}, "--lb2-pairs learn:5");
  expect_refused({"solve", "ta012", "--resume", ck, "--checkpoint", ck, "--checkpoint-format", "text"},
                 "--checkpoint-format text cannot record");
  expect_refused({"solve", "ta012", "--bound", "lb2", "--lb2-pairs", "learn", "--checkpoint", dir.file("t.ckpt"),
                  "--checkpoint-format", "text"},
                 "--checkpoint-format text");

  test::process_result last;
  for (int k = 0; k < 10; ++k) {
    std::vector<std::string> args = {"solve", "ta012",        "-q",  "--resume", ck, "--checkpoint", ck, "--json",
                                     json,    "--node-limit", limit, "--memo",   "0"};
    if (k == 0) args.insert(args.end(), {"--lb2-pairs", "learn"});  // the same option: accepted
    if (k % 2 == 1)
      args.insert(args.end(), {"--backend", "cpu"});
    else
      args.insert(args.end(), {"--backend", "cpu-mt", "--threads", "2"});
    last = run_pfsp(args);
    if (last.exit_code != 4) break;
  }
  ASSERT_EQ(last.exit_code, 0) << last.describe();
  EXPECT_EQ(quiet_line(last), quiet_line(whole));
  EXPECT_EQ(json_branched(json), total) << "the pieces must add up to the uninterrupted run";
  EXPECT_NE(test::slurp(json).find("checkpoint:"), std::string::npos) << test::slurp(json);
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
