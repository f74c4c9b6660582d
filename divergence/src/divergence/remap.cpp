#include "divergence/remap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "divergence/error.hpp"

namespace pfsp::divergence {

namespace {
constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

void fill_moved(remap_plan& plan) {
  plan.moved.clear();
  for (std::uint32_t t = 0; t < plan.source.size(); ++t)
    if (plan.source[t] != t) plan.moved.push_back(t);
}
}  // namespace

remap_plan identity_plan(std::size_t n) {
  remap_plan plan;
  plan.source.resize(n);
  std::iota(plan.source.begin(), plan.source.end(), 0u);
  return plan;
}

std::uint32_t value_classes::of(double v) const {
  if (!(hi > lo) || count <= 1) return 0;
  const double x = std::floor((v - lo) / (hi - lo) * static_cast<double>(count));
  if (!(x > 0.0)) return 0;  // also NaN
  return x >= static_cast<double>(count - 1) ? count - 1 : static_cast<std::uint32_t>(x);
}

value_classes value_classes::fit(std::span<const double> values, std::uint32_t count) {
  PFSP_DIV_EXPECTS(count >= 1, "at least one value class");
  value_classes c;
  c.count = count;
  if (values.empty()) return c;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  c.lo = *mn;
  c.hi = *mx;
  return c;
}

std::vector<std::uint32_t> classify(std::span<const double> values, const value_classes& classes) {
  std::vector<std::uint32_t> cls(values.size(), 0);
  if (!(classes.hi > classes.lo) || classes.count <= 1) return cls;
  // of() without its per-element division: one multiply by the precomputed scale.
  const double scale = static_cast<double>(classes.count) / (classes.hi - classes.lo);
  const double last = static_cast<double>(classes.count - 1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = (values[i] - classes.lo) * scale;
    cls[i] = x > 0.0 ? static_cast<std::uint32_t>(x < last ? x : last) : 0u;  // NaN -> 0, as of()
  }
  return cls;
}

remap_plan lam_remap(std::span<const std::uint32_t> cls, std::uint32_t num_classes, std::uint32_t warp) {
  PFSP_DIV_EXPECTS(num_classes >= 1 && warp >= 1, "LAM needs R >= 1 and a warp size >= 1");
  const std::size_t n = cls.size();
  PFSP_DIV_EXPECTS(n < none, "LAM: too many elements for 32-bit indices");
  const std::size_t segments = n / warp;  // full warp segments; a partial tail stays in place
  const std::size_t prefix = segments * warp;

  // "Label": quota = floor(n_c / warp), the most segments class c can cover entirely.
  std::vector<std::size_t> quota(num_classes, 0);
  for (std::size_t i = 0; i < prefix; ++i) {
    PFSP_DIV_EXPECTS(cls[i] < num_classes, "LAM: class id out of range");
    ++quota[cls[i]];
  }
  for (auto& q : quota) q /= warp;

  std::vector<std::uint32_t> label(segments, none);
  // Pass 1: segments that are already pure take their class's quota first and never move.
  for (std::size_t w = 0; w < segments; ++w) {
    const std::size_t b = w * warp;
    const std::uint32_t c = cls[b];
    bool pure = true;
    for (std::size_t j = b + 1; j < b + warp && pure; ++j) pure = cls[j] == c;
    if (pure && quota[c] > 0) {
      --quota[c];
      label[w] = c;
    }
  }
  // Pass 2 (Figure 5): the remaining segments take the class with the largest coverage among the
  // classes with quota left (the paper labels the segment mixed when the single largest class has
  // none left); its other positions become openings (toFill) for that class.
  std::vector<std::vector<std::uint32_t>> to_fill(num_classes);
  std::vector<std::uint32_t> coverage(num_classes, 0);
  std::vector<std::uint8_t> mixed(segments, 0);
  for (std::size_t w = 0; w < segments; ++w) {
    if (label[w] != none) continue;
    const std::size_t b = w * warp;
    for (std::size_t j = b; j < b + warp; ++j) ++coverage[cls[j]];
    std::uint32_t best = none;
    for (std::uint32_t c = 0; c < num_classes; ++c)
      if (quota[c] > 0 && coverage[c] > 0 && (best == none || coverage[c] > coverage[best])) best = c;
    for (std::size_t j = b; j < b + warp; ++j) coverage[cls[j]] = 0;
    if (best != none) {
      --quota[best];
      label[w] = best;
      for (std::size_t j = b; j < b + warp; ++j)
        if (cls[j] != best) to_fill[best].push_back(static_cast<std::uint32_t>(j));
    } else {
      mixed[w] = 1;
    }
  }

  // "Assign", substep 1: every element in an opening must leave; it fills an opening of its own
  // class while there is one, else it is set aside (toMix) for a mixed segment.
  std::vector<std::uint32_t> dest(prefix, none);
  std::vector<std::size_t> cur(num_classes, 0);
  std::vector<std::uint32_t> to_mix;
  for (std::uint32_t c = 0; c < num_classes; ++c) {
    for (const std::uint32_t from : to_fill[c]) {
      const std::uint32_t l = cls[from];
      if (cur[l] < to_fill[l].size()) {
        dest[from] = to_fill[l][cur[l]++];
      } else {
        to_mix.push_back(from);
      }
    }
  }
  // Substep 2: elements of mixed segments fill the remaining openings of their class; each
  // vacated position takes one set-aside element. Counting shows the two run out together.
  std::size_t k = 0;
  for (std::size_t w = 0; w < segments; ++w) {
    if (!mixed[w]) continue;
    for (std::size_t j = w * warp; j < (w + 1) * warp; ++j) {
      const std::uint32_t l = cls[j];
      if (cur[l] < to_fill[l].size()) {
        dest[j] = to_fill[l][cur[l]++];
        PFSP_DIV_EXPECTS(k < to_mix.size(), "LAM: opening without a set-aside element");
        dest[to_mix[k++]] = static_cast<std::uint32_t>(j);
      }
    }
  }
  PFSP_DIV_EXPECTS(k == to_mix.size(), "LAM: set-aside elements left without a place");

  // "Move" is done by the caller (gather / move_in_place_copy); here the plan as D[].
  remap_plan plan = identity_plan(n);
  for (std::uint32_t i = 0; i < prefix; ++i)
    if (dest[i] != none) plan.source[dest[i]] = i;
  fill_moved(plan);
  plan.labeled_segments =
      static_cast<std::size_t>(std::count_if(label.begin(), label.end(), [](std::uint32_t l) { return l != none; }));
  plan.labels = std::move(label);
  return plan;
}

remap_plan sort_remap(std::span<const double> cost) {
  PFSP_DIV_EXPECTS(cost.size() < none, "sort_remap: too many elements for 32-bit indices");
  remap_plan plan = identity_plan(cost.size());
  std::stable_sort(plan.source.begin(), plan.source.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return cost[a] < cost[b]; });
  fill_moved(plan);
  return plan;
}

remap_plan plan_from_source(std::vector<std::uint32_t> source) {
  remap_plan plan;
  plan.source = std::move(source);
  PFSP_DIV_EXPECTS(is_permutation(plan), "plan_from_source: D[] is not a permutation");
  fill_moved(plan);
  return plan;
}

bool is_permutation(const remap_plan& plan) {
  std::vector<bool> seen(plan.source.size(), false);
  for (const std::uint32_t s : plan.source) {
    if (s >= seen.size() || seen[s]) return false;
    seen[s] = true;
  }
  return true;
}

std::size_t mixed_segments(std::span<const std::uint32_t> cls, const remap_plan* plan, std::uint32_t warp) {
  const std::size_t n = cls.size();
  auto at = [&](std::size_t t) { return cls[plan ? plan->source[t] : t]; };
  std::size_t mixed = 0;
  for (std::size_t b = 0; b < n; b += warp) {
    const std::size_t e = std::min(n, b + warp);
    const std::uint32_t c = at(b);
    for (std::size_t t = b + 1; t < e; ++t) {
      if (at(t) != c) {
        ++mixed;
        break;
      }
    }
  }
  return mixed;
}

double lockstep_cost(std::span<const double> cost, const remap_plan* plan, std::uint32_t warp) {
  const std::size_t n = cost.size();
  double total = 0.0;
  for (std::size_t b = 0; b < n; b += warp) {
    double mx = 0.0;
    for (std::size_t t = b; t < std::min(n, b + warp); ++t) mx = std::max(mx, cost[plan ? plan->source[t] : t]);
    total += mx;
  }
  return total;
}

double lockstep_lower_bound(std::span<const double> cost, std::uint32_t warp) {
  double total = 0.0, mx = 0.0;
  for (const double c : cost) {
    total += c;
    mx = std::max(mx, c);
  }
  return std::max(mx, total / static_cast<double>(warp));
}

remap_mechanism select_mechanism(const kernel_access& access) {
  if (access.reads_through_cache || access.tid_only_in_computation) return remap_mechanism::reference_redirection;
  if (access.disjoint_input_sets && access.counterpart_elements) return remap_mechanism::layout_transformation;
  return remap_mechanism::reference_redirection;
}

const char* to_string(remap_mechanism m) {
  return m == remap_mechanism::reference_redirection ? "redirection" : "layout";
}

}  // namespace pfsp::divergence
