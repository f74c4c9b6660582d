// The GPU bounds equal the CPU bounds exactly: every kernel variant x table placement x bound
// kind x sort, with int and with compact tables (--compact-times), on random pools with parents
// at every depth (empty prefixes and suffixes included), for every size class of the kernels and
// with tables that do not fit in shared memory, with and without early exits (ub).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <numeric>

#include "gpu_test_support.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp::test {
namespace {

std::vector<instance_case> bound_cases() {
  std::vector<instance_case> v;
  v.push_back({random_instance(7, 3, 11, 1, 20), "random_instance(7, 3, 11, 1..20)", 6});
  v.push_back({random_instance(12, 6, 12, 1, 3), "random_instance(12, 6, 12, 1..3) (ties)", 4});
  v.push_back({taillard_instance("ta021"), "ta021 (20x20)", 4});
  v.push_back({random_instance(64, 5, 13, 1, 99), "random_instance(64, 5, 13) (largest small class)", 1});
  v.push_back({random_instance(65, 4, 14, 1, 99), "random_instance(65, 4, 14) (medium class)", 1});
  v.push_back({random_instance(256, 3, 17, 1, 255), "random_instance(256, 3, 17, 1..255) (largest 8-bit jobs)", 1});
  v.push_back({random_instance(257, 3, 15, 1, 99), "random_instance(257, 3, 15) (large class, 16-bit jobs)", 1});
  v.push_back(
      {random_instance(200, 20, 16, 1, 99), "random_instance(200, 20, 16) (tables do not fit in shared memory)", 0});
  return v;
}

// Every case of bound_cases() x bound kind x ub x kernel variant x placement, sorts rotating.
void expect_every_variant_and_placement_matches_the_cpu(bool compact) {
  std::uint32_t seed = 1000;
  for (const instance_case& c : bound_cases()) {
    const bound_data data(c.inst);
    std::mt19937 rng(++seed);
    const auto parents = parents_for(c, rng, 48);
    for (bound_kind kind : all_kinds()) {
      // ub = infinity (full bounds), then the median bound (early exits in LB2 and the chain).
      std::vector<int> full = cpu_child_bounds(data, kind, branching::min_min, parents, INT_MAX);
      std::vector<int> sorted = full;
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
      for (int ub : {INT_MAX, sorted[sorted.size() / 2]}) {
        const std::vector<int> ref =
            ub == INT_MAX ? full : cpu_child_bounds(data, kind, branching::min_min, parents, ub);
        const std::vector<int> ref_nodes = cpu_node_bounds(data, kind, parents, ub);
        int combo = 0;
        for (gpu::kernel_variant variant : all_variants())
          for (gpu::memory_placement place : all_placements()) {
            gpu::gpu_policy pol;
            pol.kernel = variant;
            pol.memory = place;
            pol.sort = all_sorts()[static_cast<std::size_t>(combo++ % 3)];
            pol.streams = 1;
            pol.compact_times = compact ? gpu::compact_mode::on : gpu::compact_mode::off;
            gpu::bounder bd(data, kind, branching::min_min, pol, ref.size());
            stage(bd, 0, parents);
            const std::size_t children = bd.submit_children(0, parents.size(), ub, 64);
            ASSERT_EQ(children, ref.size());
            const int* out = bd.wait(0);
            const std::string where =
                c.what + ", seed " + std::to_string(seed) + ", " + std::string(to_string(kind)) + ", " +
                std::string(gpu::to_string(variant)) + ", " + std::string(gpu::to_string(place)) + ", sort " +
                std::string(gpu::to_string(pol.sort)) + ", ub " + std::to_string(ub) + ": " + bd.describe();
            std::size_t bad = 0;
            for (std::size_t i = 0; i < ref.size(); ++i)
              if (out[i] != ref[i] && ++bad <= 3)
                ADD_FAILURE() << where << ": child " << i << " gpu " << out[i] << " cpu " << ref[i];
            ASSERT_EQ(bad, 0u) << where;
            bd.submit_nodes(0, parents.size(), ub, 96);
            const int* nodes = bd.wait(0);
            for (std::size_t p = 0; p < parents.size(); ++p)
              ASSERT_EQ(nodes[p], ref_nodes[p])
                  << where << ": node " << p << " limits " << parents[p].limit1 << "," << parents[p].limit2;
            // Every case has times below 256. 200x20 with LB2's pairs: 320 KiB of int tables, 117
            // KiB compact (docs/gpu_backend.md): only the compact ones fit in an H100's or H200's
            // 227 KiB. LB1 alone loads no pairs (16 KiB of times at 200x20): it fits either way.
            EXPECT_EQ(bd.tables_compact(), compact) << where;
            EXPECT_EQ(bd.describe().find("compact 8-bit times") != std::string::npos, compact) << where;
            if (c.inst.n == 200) {
              EXPECT_EQ(bd.tables_in_shared(),
                        (compact || kind == bound_kind::lb1) && place == gpu::memory_placement::shared)
                  << where;
            }
            if ((c.inst.n <= 65 || compact) && place == gpu::memory_placement::shared) {
              EXPECT_TRUE(bd.tables_in_shared()) << where;
            }
          }
      }
    }
  }
}

TEST(GpuBounds, EveryVariantPlacementKindAndSortMatchesTheCpu) {
  PFSP_REQUIRE_GPU();
  expect_every_variant_and_placement_matches_the_cpu(false);
}

// --compact-times: 8-bit times, 8/16-bit Johnson orders (both size classes), 16-bit lags.
TEST(GpuBounds, CompactTablesMatchTheCpuInSharedAndGlobalMemory) {
  PFSP_REQUIRE_GPU();
  expect_every_variant_and_placement_matches_the_cpu(true);
}

// Compact tables need every time below 256; otherwise the bounder keeps the int tables and says
// why in describe() (the bounds are the same either way).
TEST(GpuBounds, CompactTimesFallBackToIntTablesAboveTime255) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(20, 6, 41, 1, 1000);
  const bound_data data(inst);
  std::mt19937 rng(41);
  const auto parents = parents_at_every_depth(inst.n, 2, rng);
  for (bound_kind kind : all_kinds()) {
    const std::vector<int> ref = cpu_child_bounds(data, kind, branching::min_min, parents, INT_MAX);
    gpu::gpu_policy pol;
    pol.compact_times = gpu::compact_mode::on;
    gpu::bounder bd(data, kind, branching::min_min, pol, ref.size());
    EXPECT_FALSE(bd.tables_compact());
    EXPECT_NE(bd.describe().find("no compact copy: processing time"), std::string::npos) << bd.describe();
    stage(bd, 0, parents);
    ASSERT_EQ(bd.submit_children(0, parents.size(), INT_MAX, 128), ref.size());
    const int* out = bd.wait(0);
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(out[i], ref[i]) << to_string(kind) << " child " << i;
  }
}

// --compact-times auto (the default): compact tables exactly where the int tables miss shared
// memory and the compact ones fit (200x20 on an H100/H200: 320 KiB int, 117 KiB compact), never
// with global placement, a time above 255 or a strategy that reads int tables only.
TEST(GpuBounds, CompactTimesAutoOnlyWhereTheIntTablesMissSharedMemory) {
  PFSP_REQUIRE_GPU();
  auto make = [](const bound_data& d, gpu::compact_mode mode,
                 gpu::memory_placement place = gpu::memory_placement::shared, const char* strategy = "plain") {
    gpu::gpu_policy pol;
    pol.compact_times = mode;
    pol.memory = place;
    pol.strategy = gpu::parse_strategy(strategy, "");
    return std::make_unique<gpu::bounder>(d, bound_kind::lb2, branching::min_min, pol, 65536);
  };
  EXPECT_EQ(gpu::gpu_policy{}.compact_times, gpu::compact_mode::automatic);
  for (const instance& inst : {taillard_instance("ta021"), random_instance(200, 20, 16, 1, 99)}) {
    const bound_data data(inst);
    const auto as_int = make(data, gpu::compact_mode::off);
    const auto as_compact = make(data, gpu::compact_mode::on);
    const bool expect = !as_int->tables_in_shared() && as_compact->tables_in_shared();
    if (inst.n == 200 && as_int->device().shared_per_block_optin >= 120 * 1024) {
      EXPECT_TRUE(expect) << as_int->describe() << " / " << as_compact->describe();
    }
    if (inst.n == 20) {
      EXPECT_FALSE(expect) << as_int->describe();
    }
    const auto automatic = make(data, gpu::compact_mode::automatic);
    EXPECT_EQ(automatic->tables_compact(), expect) << automatic->describe();
    EXPECT_EQ(automatic->describe().find("compact 8-bit times (auto") != std::string::npos, expect)
        << automatic->describe();
    EXPECT_FALSE(make(data, gpu::compact_mode::automatic, gpu::memory_placement::global)->tables_compact());
    EXPECT_FALSE(make(data, gpu::compact_mode::automatic, gpu::memory_placement::shared, "split")->tables_compact());
    if (!expect) continue;
    // The automatic compact tables give the CPU's bounds.
    std::mt19937 rng(16);
    std::vector<parent_node> parents = parents_at_every_depth(inst.n, 1, rng), some;
    for (std::size_t i = 0; i < parents.size(); i += 17) some.push_back(parents[i]);
    const std::vector<int> ref = cpu_child_bounds(data, bound_kind::lb2, branching::min_min, some, INT_MAX);
    const auto bd = make(data, gpu::compact_mode::automatic);
    stage(*bd, 0, some);
    ASSERT_EQ(bd->submit_children(0, some.size(), INT_MAX, 128), ref.size());
    const int* out = bd->wait(0);
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(out[i], ref[i]) << "child " << i;
  }
  // A time above 255: int tables, and the reason.
  const bound_data wide(random_instance(200, 20, 17, 1, 1000));
  const auto bd = make(wide, gpu::compact_mode::automatic);
  EXPECT_FALSE(bd->tables_compact());
  EXPECT_NE(bd->describe().find("no compact copy: processing time"), std::string::npos) << bd->describe();
}

TEST(GpuBounds, OneDirectionRulesBoundOnlyTheirDirection) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(15, 7, 77, 1, 99);
  const bound_data data(inst);
  std::mt19937 rng(77);
  const auto parents = parents_at_every_depth(inst.n, 3, rng);
  for (branching rule : {branching::forward, branching::backward, branching::min_branch})
    for (bound_kind kind : all_kinds()) {
      const std::vector<int> ref = cpu_child_bounds(data, kind, rule, parents, INT_MAX);
      gpu::gpu_policy pol;
      pol.sort = gpu::pool_sort::device;
      gpu::bounder bd(data, kind, rule, pol, ref.size());
      stage(bd, 1, parents);
      ASSERT_EQ(bd.submit_children(1, parents.size(), INT_MAX, 128), ref.size());
      const int* out = bd.wait(1);
      for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(out[i], ref[i]) << to_string(rule) << " " << to_string(kind) << " child " << i;
    }
}

// Thread-data reordering: the host counting sort and CUB's radix sort give the same order, a
// stable sort of the children by child_key.
TEST(GpuBounds, HostAndDeviceSortGiveTheSameStableOrder) {
  PFSP_REQUIRE_GPU();
  const instance inst = random_instance(30, 5, 5, 1, 99);
  const bound_data data(inst);
  std::mt19937 rng(5);
  auto parents = parents_at_every_depth(inst.n, 5, rng);
  std::shuffle(parents.begin(), parents.end(), rng);
  std::vector<std::uint32_t> keys;
  for (const auto& p : parents) {
    const int count = p.limit2 - p.limit1 - 1;
    for (bool backward : {false, true})
      for (int c = 0; c < count; ++c) keys.push_back(gpu::child_key(inst.n, p.limit1, p.limit2, backward));
  }
  std::vector<std::uint32_t> expect(keys.size());
  std::iota(expect.begin(), expect.end(), 0u);
  std::stable_sort(expect.begin(), expect.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  for (gpu::pool_sort sort : {gpu::pool_sort::host, gpu::pool_sort::device}) {
    gpu::gpu_policy pol;
    pol.sort = sort;
    gpu::bounder bd(data, bound_kind::lb2, branching::min_min, pol, keys.size());
    stage(bd, 0, parents);
    bd.submit_children(0, parents.size(), INT_MAX, 128);
    bd.wait(0);
    EXPECT_EQ(bd.order(0), expect) << gpu::to_string(sort);
  }
}

// Two slots in flight at once, waited for in reverse order.
TEST(GpuBounds, TwoSlotsInFlight) {
  PFSP_REQUIRE_GPU();
  const instance inst = taillard_instance("ta031");
  const bound_data data(inst);
  std::mt19937 rng(31);
  const auto a = parents_at_every_depth(inst.n, 2, rng), b = parents_at_every_depth(inst.n, 2, rng);
  const auto ra = cpu_child_bounds(data, bound_kind::lb2, branching::min_min, a, INT_MAX);
  const auto rb = cpu_child_bounds(data, bound_kind::lb2, branching::min_min, b, INT_MAX);
  gpu::gpu_policy pol;
  pol.streams = 2;
  gpu::bounder bd(data, bound_kind::lb2, branching::min_min, pol, std::max(ra.size(), rb.size()));
  ASSERT_EQ(bd.slots(), 2);
  stage(bd, 0, a);
  stage(bd, 1, b);
  bd.submit_children(0, a.size(), INT_MAX, 256);
  bd.submit_children(1, b.size(), INT_MAX, 256);
  const int* ob = bd.wait(1);
  EXPECT_TRUE(std::equal(rb.begin(), rb.end(), ob));
  const int* oa = bd.wait(0);
  EXPECT_TRUE(std::equal(ra.begin(), ra.end(), oa));
}

}  // namespace
}  // namespace pfsp::test
