// Runtime thread-data remapping (Zhang, Jiang, Guo, Shen, ICS'10).
//
// A remap_plan is a thread-data mapping: thread t works on original element source[t] (the
// paper's index array D[], Section 3.1). It is realised either by reference redirection (the
// kernel reads D[tid] and uses it instead of tid) or by data layout transformation (the input
// is moved so that position t holds element source[t], the unchanged kernel runs, and the output
// is moved back, Section 3.2). select_mechanism() is the rule of Section 3.3.
//
// Plans come from lam_remap() (label-assign-move, Figure 5: R value classes, linear time, the
// fewest moves) or sort_remap() (exact sorting by cost, the upper reference; O(n log n)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pfsp::divergence {

inline constexpr std::uint32_t lam_default_classes = 10;  // R in Zhang et al. Section 4.2

struct remap_plan {
  std::vector<std::uint32_t> source;  // D[]: thread t works on element source[t]; a permutation
  std::vector<std::uint32_t> moved;   // positions t with source[t] != t, ascending (the "move" step)
  std::vector<std::uint32_t> labels;  // LAM: class of each full warp segment, or unlabeled (mixed)
  std::size_t labeled_segments = 0;   // LAM: warp segments made pure (0 for other plans)

  static constexpr std::uint32_t unlabeled = 0xffffffffu;

  std::size_t size() const { return source.size(); }
  bool identity() const { return moved.empty(); }
};

remap_plan identity_plan(std::size_t n);

// Equal-width partition of [lo, hi] into R sub-ranges (createValRngs in Figure 5); values outside
// are clamped to the first or last class. O(n).
struct value_classes {
  double lo = 0.0;
  double hi = 0.0;
  std::uint32_t count = lam_default_classes;

  std::uint32_t of(double v) const;
  static value_classes fit(std::span<const double> values, std::uint32_t count);
};
std::vector<std::uint32_t> classify(std::span<const double> values, const value_classes& classes);

// LAM (Figure 5). cls[i] < num_classes is the class of element i. Works on the n/warp full warp
// segments; a partial tail segment stays in place. Each class c may label at most
// floor(n_c / warp) segments (its quota); a labeled segment keeps its elements of class c and
// has its other positions filled with class-c elements; the rest are "mixed" segments that
// receive the left-overs. Two deviations from Figure 5, both still linear: segments that are
// already pure are labeled first, so they never move and the number of mixed segments never
// grows; and a segment whose largest class has no quota left takes the largest class that has
// some, instead of becoming mixed.
// O(n + (n / warp) * R) time, O(n + R) memory.
remap_plan lam_remap(std::span<const std::uint32_t> cls, std::uint32_t num_classes, std::uint32_t warp = 32);

// Exact reference: threads sorted by cost (stable), so that i < j implies cost(i) <= cost(j)
// (Zhang Section 2.2). O(n log n).
remap_plan sort_remap(std::span<const double> cost);

// A plan from an arbitrary D[] (checked to be a permutation). O(n).
remap_plan plan_from_source(std::vector<std::uint32_t> source);

// True if plan.source is a permutation of 0..n-1. O(n).
bool is_permutation(const remap_plan& plan);

// Number of warp segments (full and tail) holding more than one class, with thread t working on
// element plan.source[t] (identity when plan is null).
std::size_t mixed_segments(std::span<const std::uint32_t> cls, const remap_plan* plan, std::uint32_t warp = 32);

// T = sum over warps of the largest per-thread cost in the warp (Zhang Section 2.2): the time a
// loop with per-thread trip counts `cost` takes in lockstep.
double lockstep_cost(std::span<const double> cost, const remap_plan* plan, std::uint32_t warp = 32);

// A lower bound on lockstep_cost over every plan: the warps can at best share the total cost
// evenly. A remapper can skip a chunk cheaply, before planning, when even this bound is not below
// the share of the plain cost it asks for (BlackScholes: every thread costs the same). O(n).
double lockstep_lower_bound(std::span<const double> cost, std::uint32_t warp = 32);

// Data layout transformation on the host. gather: out[t] = in[source[t]] (input moved so warps
// get like data); scatter: out[source[t]] = in[t] (output moved back). O(n).
template <class T>
void gather(std::span<const T> in, const remap_plan& plan, std::span<T> out) {
  for (std::size_t t = 0; t < plan.source.size(); ++t) out[t] = in[plan.source[t]];
}
template <class T>
void scatter(std::span<const T> in, const remap_plan& plan, std::span<T> out) {
  for (std::size_t t = 0; t < plan.source.size(); ++t) out[plan.source[t]] = in[t];
}
// LAM's "move" step: `copy` already holds the data, only the moved elements are written.
template <class T>
void move_in_place_copy(std::span<const T> data, const remap_plan& plan, std::span<T> copy) {
  for (const std::uint32_t t : plan.moved) copy[t] = data[plan.source[t]];
}

// Section 3.3: how to realise a plan.
enum class remap_mechanism { reference_redirection, layout_transformation };

struct kernel_access {
  bool reads_through_cache = false;      // texture / read-only cache: tolerant of pattern changes
  bool tid_only_in_computation = false;  // the remapped tid indexes no global array (reduction)
  bool disjoint_input_sets = true;       // condition 1 of Section 3.2 (no overlap, no shared writes)
  bool counterpart_elements = true;      // condition 2 of Section 3.2 (same index function)
};

// Redirection where it provably cannot hurt coalescing; otherwise layout transformation when the
// conditions of Section 3.2 hold; otherwise redirection, the only mechanism left.
remap_mechanism select_mechanism(const kernel_access& access);

const char* to_string(remap_mechanism m);

}  // namespace pfsp::divergence
