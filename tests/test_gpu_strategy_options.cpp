// The host side of --gpu-strategy (src/gpu/strategy.hpp), which every build has: option parsing
// and validation (bad values are exit code 2 with a message naming the key, through the real
// binary, with or without CUDA), and the remap strategy's cost classes (Zhang's LAM input) and
// its prediction of when remapping cannot pay.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "divergence/remap.hpp"
#include "gpu/pool_layout.hpp"
#include "gpu/strategy.hpp"
#include "run_process.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

using divergence::fetch_control;
using divergence::pool_kind;
using gpu::gpu_strategy;
using gpu::parse_strategy;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The message of the input_error that parse_strategy throws, or "" if it does not throw.
std::string parse_error(const std::string& name, const std::string& params) {
  try {
    (void)parse_strategy(name, params);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(GpuStrategyOptions, NamesAndDefaults) {
  EXPECT_EQ(parse_strategy("plain", "").kind, gpu_strategy::plain);
  EXPECT_EQ(parse_strategy("split", "").kind, gpu_strategy::split);
  EXPECT_EQ(parse_strategy("context-switch", "").kind, gpu_strategy::context_switch);
  const gpu::strategy_params p = parse_strategy("persistent", "");
  EXPECT_EQ(p.kind, gpu_strategy::persistent);
  EXPECT_EQ(p.pool.pool, pool_kind::hybrid);
  EXPECT_EQ(p.pool.control, fetch_control::ballot);
  const gpu::strategy_params r = parse_strategy("remap", "");
  EXPECT_EQ(r.remap_classes, divergence::lam_default_classes);
  EXPECT_TRUE(r.remap_control);
  for (const std::string& name : gpu::strategy_names()) EXPECT_EQ(gpu::to_string(parse_strategy(name, "").kind), name);
}

TEST(GpuStrategyOptions, EveryKnob) {
  const gpu::strategy_params p = parse_strategy("persistent", "pool=local,fetch=atomic,k=8,chunk=4096,interval=4");
  EXPECT_EQ(p.pool.pool, pool_kind::local);
  EXPECT_EQ(p.pool.control, fetch_control::atomic);
  EXPECT_EQ(p.pool.idle_threshold, 8u);
  EXPECT_EQ(p.pool.chunk, 4096u);
  EXPECT_EQ(p.pool.check_interval, 4u);
  EXPECT_EQ(gpu::describe(p), "persistent (local atomic(8) chunk 4096 interval 4)");
  EXPECT_EQ(parse_strategy("persistent", "pool=hybrid,chunk=0").pool.chunk, 0u);  // hybrid: refill = idle lanes
  const gpu::strategy_params c = parse_strategy("context-switch", "contexts=160,vote=2");
  EXPECT_EQ(c.contexts.pool_contexts, 160u);
  EXPECT_EQ(c.contexts.vote_interval, 2u);
  const gpu::strategy_params r = parse_strategy("remap", "classes=16,control=off,");
  EXPECT_EQ(r.remap_classes, 16u);
  EXPECT_FALSE(r.remap_control);
}

TEST(GpuStrategyOptions, PersistentPoolTakesFetchAll) {
  EXPECT_EQ(parse_strategy("persistent", "pool=persistent").pool.control, fetch_control::all);
  EXPECT_EQ(parse_strategy("persistent", "pool=persistent,fetch=all").pool.control, fetch_control::all);
  EXPECT_TRUE(contains(parse_error("persistent", "pool=persistent,fetch=ballot"), "fetch=all"));
}

TEST(GpuStrategyOptions, BadValuesNameTheKeyAndWhatWasExpected) {
  struct bad_case {
    std::string name, params, expect;
  };
  const std::vector<bad_case> cases{
      {"fast", "", "--gpu-strategy fast: expected plain, persistent"},
      {"persistent", "pool=huge", "pool=huge: expected global|local|hybrid|persistent"},
      {"persistent", "fetch=some", "fetch=some: expected any|all|ballot|atomic"},
      {"persistent", "k=0", "k=0: expected an integer in [1, 32]"},
      {"persistent", "k=33", "k=33: expected an integer in [1, 32]"},
      {"persistent", "k=4x", "k=4x: expected an integer"},
      {"persistent", "chunk=-1", "chunk=-1: expected an integer"},
      {"persistent", "pool=global,chunk=0", "pool=global needs chunk >= 1"},
      {"persistent", "pool=local,chunk=0", "pool=local needs chunk >= 1"},
      {"persistent", "interval=0", "interval=0"},
      {"persistent", "contexts=64", "'contexts' applies to --gpu-strategy context-switch, not persistent"},
      {"context-switch", "contexts=48", "contexts=48: expected a multiple of 32"},
      {"context-switch", "contexts=2048", "expected an integer in [32, 1024]"},
      {"context-switch", "vote=0", "vote=0"},
      {"split", "pool=hybrid", "'pool' applies to --gpu-strategy persistent, not split"},
      {"plain", "classes=4", "'classes' applies to --gpu-strategy remap, not plain"},
      {"remap", "classes=1", "classes=1: expected an integer in [2, 1024]"},
      {"remap", "control=maybe", "control=maybe: expected on|off"},
      {"remap", "colour=red", "unknown key 'colour'"},
      {"remap", "classes", "'classes': expected key=value"},
      {"remap", "=3", "'=3': expected key=value"},
  };
  for (const bad_case& c : cases) {
    const std::string msg = parse_error(c.name, c.params);
    EXPECT_TRUE(contains(msg, c.expect)) << c.name << " '" << c.params << "': got '" << msg << "'";
  }
}

// Through the real binary: exit code 2 and the message on stderr, before any solving (so the
// same in the CPU-only build, where the strategies are validated and the cpu backends ignore them).
TEST(GpuStrategyOptions, CliRejectsBadValuesWithExitCode2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--gpu-strategy", "fastest"}, "--gpu-strategy"},
      {{"--gpu-strategy", "persistent", "--strategy-params", "fetch=maybe"}, "fetch=maybe: expected"},
      {{"--gpu-strategy", "split", "--strategy-params", "contexts=64"}, "'contexts' applies to"},
      {{"--gpu-strategy", "context-switch", "--strategy-params", "contexts=40"}, "multiple of 32"},
      {{"--strategy-params", "classes=10"}, "'classes' applies to --gpu-strategy remap, not plain"},
  };
  for (const auto& [extra, expect] : cases) {
    std::vector<std::string> args{"solve", "random:6,3,1", "--backend", "cpu", "--no-progress"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run_pfsp(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, expect)) << r.describe();
  }
  // Valid strategies are accepted (the cpu backends do not use them).
  const auto ok = test::run_pfsp({"solve", "random:6,3,1", "--backend", "cpu", "--no-progress", "-q", "--gpu-strategy",
                                  "persistent", "--strategy-params", "pool=local,chunk=256"});
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
}

// A pool in the bounder's layout: parents' packed limits and child offsets.
struct pool_fixture {
  int n = 0, directions = 2;
  std::vector<std::uint32_t> limits, offsets;
  std::vector<std::uint32_t> keys;  // child_key of every child, natural order

  pool_fixture(int n_, int parents, int directions_, std::uint32_t seed) : n(n_), directions(directions_) {
    std::mt19937 rng(seed);
    std::uint32_t total = 0;
    for (int p = 0; p < parents; ++p) {
      const int depth = static_cast<int>(rng() % static_cast<unsigned>(n - 1));
      const int a = static_cast<int>(rng() % static_cast<unsigned>(depth + 1));
      const int limit1 = a - 1, limit2 = n - (depth - a);
      limits.push_back(gpu::pack_limits(limit1, limit2));
      offsets.push_back(total);
      const int count = limit2 - limit1 - 1;
      for (int dir = 0; dir < directions; ++dir) {
        const bool backward = directions == 2 ? dir == 1 : false;
        for (int c = 0; c < count; ++c) keys.push_back(gpu::child_key(n, limit1, limit2, backward));
      }
      total += static_cast<std::uint32_t>(count * directions);
    }
    offsets.push_back(total);
  }
};

TEST(GpuStrategyRemap, ClassesFollowTheChildKeys) {
  for (int directions : {1, 2})
    for (std::uint32_t classes : {2u, 10u, 64u}) {
      const pool_fixture f(20, 300, directions, 7 + classes);
      std::vector<std::uint32_t> cls;
      gpu::remap_classes_of(f.n, directions, false, f.limits.data(), f.offsets.data(), f.limits.size(), classes, cls);
      ASSERT_EQ(cls.size(), f.keys.size());
      // Bidirectional: class = 2 x bucket + direction (the key's low bit), buckets over key >> 1.
      const std::uint32_t shift = directions == 2 ? 1 : 0, buckets = directions == 2 ? classes / 2 : classes;
      auto bucket = [&](std::size_t i) { return cls[i] >> shift; };
      std::vector<std::uint32_t> part(f.keys.size());
      for (std::size_t i = 0; i < part.size(); ++i) part[i] = f.keys[i] >> shift;
      const auto [lo, hi] = std::minmax_element(part.begin(), part.end());
      for (std::size_t i = 0; i < cls.size(); ++i) {
        ASSERT_LT(cls[i], classes);
        if (directions == 2) {
          EXPECT_EQ(cls[i] & 1u, f.keys[i] & 1u);
        }
        if (part[i] == *lo) {
          EXPECT_EQ(bucket(i), 0u);
        }
        if (part[i] == *hi) {
          EXPECT_EQ(bucket(i), buckets - 1);
        }
      }
      // Monotone in the key: the exact sort's order is a refinement of the classes.
      for (std::size_t i = 0; i < cls.size(); ++i)
        for (std::size_t j = i + 1; j < std::min(cls.size(), i + 40); ++j) {
          if (part[i] < part[j]) {
            EXPECT_LE(bucket(i), bucket(j));
          }
          if (f.keys[i] == f.keys[j]) {
            EXPECT_EQ(cls[i], cls[j]);
          }
        }
    }
}

TEST(GpuStrategyRemap, BackwardOnlyAndEmptyPools) {
  const pool_fixture f(12, 40, 1, 3);
  std::vector<std::uint32_t> fwd, bwd;
  gpu::remap_classes_of(f.n, 1, false, f.limits.data(), f.offsets.data(), f.limits.size(), 10, fwd);
  gpu::remap_classes_of(f.n, 1, true, f.limits.data(), f.offsets.data(), f.limits.size(), 10, bwd);
  EXPECT_EQ(fwd.size(), bwd.size());
  std::vector<std::uint32_t> none{7};
  const std::uint32_t zero = 0;
  gpu::remap_classes_of(f.n, 2, false, f.limits.data(), &zero, 0, 10, none);
  EXPECT_TRUE(none.empty());
}

// LAM on the classes: a permutation of the children that leaves no more mixed warps than the
// natural order; the prediction says when there is nothing to gain.
TEST(GpuStrategyRemap, LamPlanAndPrediction) {
  const pool_fixture deep(20, 2000, 2, 11);  // many parents at random depths: mixed warps
  std::vector<std::uint32_t> cls;
  gpu::remap_classes_of(deep.n, 2, false, deep.limits.data(), deep.offsets.data(), deep.limits.size(), 10, cls);
  const double share = gpu::remap_mixed_share(cls);
  EXPECT_GT(share, gpu::kRemapMinMixedShare);
  const divergence::remap_plan plan = divergence::lam_remap(cls, 10);
  ASSERT_TRUE(divergence::is_permutation(plan));
  EXPECT_LT(divergence::mixed_segments(cls, &plan), divergence::mixed_segments(cls, nullptr));

  std::vector<std::uint32_t> pure(32 * 50);
  for (std::size_t i = 0; i < pure.size(); ++i) pure[i] = static_cast<std::uint32_t>(i / 320);
  EXPECT_EQ(gpu::remap_mixed_share(pure), 0.0);
  std::vector<std::uint32_t> striped(32 * 10);
  for (std::size_t i = 0; i < striped.size(); ++i) striped[i] = static_cast<std::uint32_t>(i % 2);
  EXPECT_EQ(gpu::remap_mixed_share(striped), 1.0);
  EXPECT_EQ(gpu::remap_mixed_share(std::vector<std::uint32_t>(31, 1)), 0.0);  // no full warp
}

// The context-switch and split strategies skip the LB2 pair loop at leaves (children with no
// unscheduled job left) and return LB1 there. That is what child_bound returns only if the pair
// loop cannot exceed LB1 at a leaf, whatever the ub: checked here on every leaf child of random
// instances, both directions, against child_bound with and without early exits.
TEST(GpuStrategyRemap, AtLeavesLb2EqualsLb1) {
  int leaves = 0;
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    const int n = 2 + static_cast<int>(seed % 9), m = 1 + static_cast<int>(seed % 7);
    const instance inst = test::random_instance(n, m, seed, 1, seed % 3 == 0 ? 3 : 99);
    const bound_data data(inst);
    const bound_view b = data.view();
    std::mt19937 rng(seed);
    std::vector<int> perm(static_cast<std::size_t>(n)), front(m), back(m), remain(m), scratch(m);
    std::vector<unsigned char> flags(static_cast<std::size_t>(n));
    for (int r = 0; r < 20; ++r) {
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      const int a = static_cast<int>(rng() % static_cast<unsigned>(n));  // prefix length; one job unscheduled
      const int limit1 = a - 1, limit2 = a + 1;
      node_parts(b, perm.data(), limit1, limit2, front.data(), back.data(), remain.data());
      for (int i = 0; i < n; ++i) flags[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = i != a;
      const unsigned char* f = flags.data();
      auto sched = [f](int j) { return f[j] != 0; };
      const int job = perm[static_cast<std::size_t>(a)];
      for (bool forward : {true, false}) {
        const int lb1 = child_bound(bound_kind::lb1, b, front.data(), back.data(), remain.data(), sched, job, forward,
                                    INT_MAX, scratch.data());
        for (int ub : {INT_MAX, lb1, lb1 + 1, lb1 / 2 + 1}) {
          for (bound_kind kind : {bound_kind::lb2, bound_kind::lb1_lb2})
            ASSERT_EQ(
                child_bound(kind, b, front.data(), back.data(), remain.data(), sched, job, forward, ub, scratch.data()),
                lb1)
                << "seed " << seed << " n " << n << " m " << m << " prefix " << a << " forward " << forward << " ub "
                << ub;
        }
        ++leaves;
      }
    }
  }
  EXPECT_EQ(leaves, 40 * 20 * 2);
}

}  // namespace
}  // namespace pfsp
