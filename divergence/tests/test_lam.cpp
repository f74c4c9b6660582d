// LAM (Zhang et al. Figure 5) and the other remapping plans, on random class layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "divergence/error.hpp"
#include "divergence/remap.hpp"

namespace pfsp::divergence {
namespace {

enum class layout { uniform, skewed, sorted, constant, blocky };

std::vector<std::uint32_t> make_classes(std::size_t n, std::uint32_t r, layout how, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> cls(n);
  std::uniform_int_distribution<std::uint32_t> u(0, r - 1);
  std::geometric_distribution<std::uint32_t> g(0.4);
  for (std::size_t i = 0; i < n; ++i) {
    switch (how) {
      case layout::uniform:
        cls[i] = u(rng);
        break;
      case layout::skewed:
        cls[i] = std::min(r - 1, g(rng));
        break;
      case layout::sorted:
        cls[i] = u(rng);
        break;
      case layout::constant:
        cls[i] = 3 % r;
        break;
      case layout::blocky:
        cls[i] = (i / 32) % 3 == 0 ? static_cast<std::uint32_t>((i / 32) % r) : u(rng);
        break;
    }
  }
  if (how == layout::sorted) std::sort(cls.begin(), cls.end());
  return cls;
}

struct lam_case {
  std::size_t n;
  std::uint32_t r;
  layout how;
  std::uint32_t seed;
};

class lam_property : public ::testing::TestWithParam<lam_case> {};

TEST_P(lam_property, permutation_quotas_and_never_more_mixed_segments) {
  const auto [n, r, how, seed] = GetParam();
  SCOPED_TRACE("n=" + std::to_string(n) + " R=" + std::to_string(r) + " layout=" + std::to_string(int(how)) +
               " seed=" + std::to_string(seed));
  const auto cls = make_classes(n, r, how, seed);
  const remap_plan plan = lam_remap(cls, r, 32);
  ASSERT_EQ(plan.size(), n);
  EXPECT_TRUE(is_permutation(plan));

  // Quotas: class c labels at most floor(n_c / 32) segments, counting the full segments only.
  const std::size_t segments = n / 32;
  std::vector<std::size_t> count(r, 0), labeled(r, 0);
  for (std::size_t i = 0; i < segments * 32; ++i) ++count[cls[i]];
  ASSERT_EQ(plan.labels.size(), segments);
  for (std::size_t w = 0; w < segments; ++w) {
    const std::uint32_t l = plan.labels[w];
    if (l == remap_plan::unlabeled) continue;
    ASSERT_LT(l, r);
    ++labeled[l];
    // A labeled segment is pure after the move, and its elements of that class did not move.
    for (std::size_t t = w * 32; t < w * 32 + 32; ++t) {
      EXPECT_EQ(cls[plan.source[t]], l) << "segment " << w;
      if (cls[t] == l) {
        EXPECT_EQ(plan.source[t], t) << "an element already in place moved";
      }
    }
  }
  for (std::uint32_t c = 0; c < r; ++c) EXPECT_LE(labeled[c], count[c] / 32) << "class " << c;

  // The tail stays in place, moved[] lists exactly the positions that changed.
  for (std::size_t t = segments * 32; t < n; ++t) EXPECT_EQ(plan.source[t], t);
  std::size_t changed = 0;
  for (std::size_t t = 0; t < n; ++t) changed += plan.source[t] != t;
  EXPECT_EQ(plan.moved.size(), changed);
  EXPECT_TRUE(std::is_sorted(plan.moved.begin(), plan.moved.end()));

  EXPECT_LE(mixed_segments(cls, &plan), mixed_segments(cls, nullptr));
}

std::vector<lam_case> lam_cases() {
  std::vector<lam_case> out;
  std::uint32_t seed = 1;
  for (std::size_t n : {0u, 1u, 31u, 32u, 33u, 1000u, 4096u, 10007u})
    for (std::uint32_t r : {1u, 2u, 10u, 37u})
      for (layout how : {layout::uniform, layout::skewed, layout::sorted, layout::constant, layout::blocky})
        out.push_back({n, r, how, seed++});
  return out;
}

INSTANTIATE_TEST_SUITE_P(random_layouts, lam_property, ::testing::ValuesIn(lam_cases()));

TEST(lam, leaves_pure_input_untouched) {
  std::vector<std::uint32_t> cls(32 * 50);
  for (std::size_t i = 0; i < cls.size(); ++i) cls[i] = static_cast<std::uint32_t>((i / 32) % 4);
  const remap_plan plan = lam_remap(cls, 4);
  EXPECT_TRUE(plan.identity());
  EXPECT_EQ(plan.labeled_segments, 50u);
}

TEST(lam, makes_segments_pure_where_counts_allow) {
  // 64 elements of class 0 and 64 of class 1, interleaved: every segment is mixed before; LAM
  // reaches 4 pure segments.
  std::vector<std::uint32_t> cls(128);
  for (std::size_t i = 0; i < cls.size(); ++i) cls[i] = i % 2;
  const remap_plan plan = lam_remap(cls, 2);
  EXPECT_EQ(mixed_segments(cls, nullptr), 4u);
  EXPECT_EQ(mixed_segments(cls, &plan), 0u);
  EXPECT_EQ(plan.labeled_segments, 4u);
}

TEST(lam, lockstep_cost_between_sorting_and_identity_and_fewer_moves_than_sorting) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> trip(0, 999);
    std::vector<double> cost(20000);
    for (auto& c : cost) c = trip(rng);
    const auto classes = value_classes::fit(cost, lam_default_classes);
    const auto cls = classify(cost, classes);
    const remap_plan lam = lam_remap(cls, classes.count);
    const remap_plan sorted = sort_remap(cost);
    const double t_id = lockstep_cost(cost, nullptr), t_lam = lockstep_cost(cost, &lam),
                 t_sort = lockstep_cost(cost, &sorted);
    EXPECT_LE(t_sort, t_lam);
    EXPECT_LE(lockstep_lower_bound(cost), t_sort);
    EXPECT_LT(t_lam, 0.75 * t_id);  // 10 classes of width 100 out of [0, 1000): about 1/2 of T
    EXPECT_LT(lam.moved.size(), sorted.moved.size());
  }
}

TEST(remap, lower_bound_is_tight_when_nothing_diverges) {
  const std::vector<double> flat(320, 1.0);
  EXPECT_DOUBLE_EQ(lockstep_lower_bound(flat), lockstep_cost(flat, nullptr));
}

TEST(remap, value_classes_cover_range_and_clamp) {
  value_classes c{0.0, 10.0, 5};
  EXPECT_EQ(c.of(0.0), 0u);
  EXPECT_EQ(c.of(1.99), 0u);
  EXPECT_EQ(c.of(2.0), 1u);
  EXPECT_EQ(c.of(10.0), 4u);
  EXPECT_EQ(c.of(-3.0), 0u);
  EXPECT_EQ(c.of(99.0), 4u);
  value_classes flat{1.0, 1.0, 5};
  EXPECT_EQ(flat.of(1.0), 0u);
}

TEST(remap, gather_then_scatter_restores) {
  std::mt19937 rng(7);
  std::vector<double> cost(1000);
  for (auto& c : cost) c = static_cast<double>(rng() % 100);
  const remap_plan plan = sort_remap(cost);
  std::vector<double> moved(cost.size()), back(cost.size());
  gather<double>(cost, plan, moved);
  EXPECT_TRUE(std::is_sorted(moved.begin(), moved.end()));
  scatter<double>(moved, plan, back);
  EXPECT_EQ(back, cost);
  std::vector<double> copy = cost;
  move_in_place_copy<double>(cost, plan, copy);
  EXPECT_EQ(copy, moved);
}

TEST(remap, plan_from_source_rejects_non_permutations) {
  EXPECT_THROW(plan_from_source({0, 0, 1}), error);
  EXPECT_THROW(plan_from_source({0, 3}), error);
  EXPECT_EQ(plan_from_source({1, 0, 2}).moved.size(), 2u);
}

TEST(remap, selection_rule_of_section_3_3) {
  kernel_access coalesced;  // global memory, tid indexes arrays, layout conditions hold (GAFORT, 3D-LBM)
  EXPECT_EQ(select_mechanism(coalesced), remap_mechanism::layout_transformation);
  kernel_access texture;  // MarchingCubes
  texture.reads_through_cache = true;
  EXPECT_EQ(select_mechanism(texture), remap_mechanism::reference_redirection);
  kernel_access reduction;  // the remapped tid only enters the computation
  reduction.tid_only_in_computation = true;
  EXPECT_EQ(select_mechanism(reduction), remap_mechanism::reference_redirection);
  kernel_access shared_input;  // layout transformation not applicable: redirection is what is left
  shared_input.disjoint_input_sets = false;
  EXPECT_EQ(select_mechanism(shared_input), remap_mechanism::reference_redirection);
}

}  // namespace
}  // namespace pfsp::divergence
