// One branching step, shared by every solver (sequential, multi-threaded, and the host side of
// the GPU backend): compute the parent's parts once, bound its children incrementally in one or
// both directions, choose the direction, prune, and hand survivors and improving leaves back.
#pragma once

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/dominance.hpp"
#include "bound/lb2.hpp"
#include "bound/lb2_table.hpp"
#include "search/child_order.hpp"
#include "search/control.hpp"
#include "search/memo_table.hpp"
#include "search/types.hpp"

namespace pfsp {

// (n - d)! / n! for d = 0..n: the share of the search space under one node of depth d.
std::vector<double> subtree_weights(int n);

// Direction chosen for a node. fwd/bwd hold the children's bounds by position
// (limit1+1 .. limit2-1), only for the directions that were evaluated.
bool choose_forward(branching rule, const int* fwd, const int* bwd, int count, int ub);

class expander {
 public:
  expander(const bound_data& data, bound_kind kind, branching rule, bool profile = false, bool dominance = false)
      : b_(data.view()),
        kind_(kind),
        rule_(rule),
        profile_(profile),
        dominance_(dominance),
        weights_(subtree_weights(data.view().inst.n)) {
    const int n = b_.inst.n, m = b_.inst.m;
    front_.resize(m);
    back_.resize(m);
    remain_.resize(m);
    scratch_.resize(m);
    front0_.resize(m);
    scheduled_.resize(n);
    lb_fwd_.resize(n);
    lb_bwd_.resize(n);
    order_.resize(n);
    keys_.resize(n);
    if (kind != bound_kind::lb1) {
      pm_.resize(static_cast<std::size_t>(b_.npairs) * static_cast<std::size_t>(n));
      sm_.resize(pm_.size());
      sums_.resize(2 * static_cast<std::size_t>(b_.npairs));
      pair_parent_.assign(static_cast<std::size_t>(b_.npairs), 0);
    }
  }

  // Memo dominance (search/memo_table.hpp) in `table` (shared with other threads' expanders, or
  // not), instead of the swap rule: the two rest on different arguments and are not combined.
  void enable_memo(std::shared_ptr<memo_table> table) {
    memo_ = std::move(table);
    probe_ = memo_->probe();
    dominance_ = false;
  }

  // Solution-guided order (child_order::incumbent): from now on the children are ordered by the
  // schedule of `best`, read again whenever its makespan has dropped since the last read (a
  // relaxed load a call). Call before each expansion; without a schedule the bound's order stays.
  void follow(const incumbent& best) {
    if (best.value() >= guide_value_) return;
    auto [value, schedule] = best.snapshot();
    guide_value_ = value;
    guide_pos_.assign(schedule.size(), 0);
    for (std::size_t i = 0; i < schedule.size(); ++i)
      guide_pos_[static_cast<std::size_t>(schedule[i])] = static_cast<int>(i);
  }

  bound_view view() const { return b_; }
  int abandon_every() const { return abandon_every_; }
  double weight(int depth) const { return weights_[depth]; }

  // Expands node (perm, limit1, limit2) against threshold ub (prune when lb >= ub).
  // push(parent_perm, pos_from, pos_to, limit1, limit2, lb): a surviving inner child is the
  //   parent with positions pos_from and pos_to swapped.
  // leaf(parent_perm, pos_from, pos_to, makespan): a complete schedule with makespan < ub.
  // Children are pushed with the largest bound first, so a stack pops the most promising first.
  template <class Push, class Leaf>
  void expand(const job_t* perm, int limit1, int limit2, int ub, Push&& push, Leaf&& leaf, solve_stats& st) {
    expand(perm, limit1, limit2, ub, push, leaf, st, [] { return false; });
  }

  // As above, giving up when abandon() returns true. It is asked every `abandon_every()` children
  // while they are bounded: every 8 with LB2 (a 500-job LB2 child cost about a millisecond by the
  // pair walk, so a stop waits a few ms even on a loaded machine; the parent's first children,
  // which fill its table, still cost that; a 20-job node is asked at most twice), every 64
  // with LB1 (nodes below 64 jobs are never asked, so the clock read costs nothing where nodes
  // are cheap). Given up, nothing was pushed, offered or counted: returns false and the caller
  // puts the node back as it was, so the open nodes stay exact (checkpoints, final bound).
  template <class Push, class Leaf, class Abandon>
  bool expand(const job_t* perm, int limit1, int limit2, int ub, Push&& push, Leaf&& leaf, solve_stats& st,
              Abandon&& abandon) {
    const instance_view inst = b_.inst;
    const int n = inst.n;
    const int first = limit1 + 1, count = limit2 - first;
    const int child_depth = first + (n - limit2) + 1;
    using clock = std::chrono::steady_clock;
    clock::time_point t0;
    if (profile_) t0 = clock::now();

    node_parts(b_, perm, limit1, limit2, front_.data(), back_.data(), remain_.data());
    const bool memo = memo_ && count > 2 && child_depth > 2;  // not the nodes whose children are leaves
    if (memo && memo_->dominated(probe_, perm, limit1, limit2, front_.data(), back_.data())) {
      ++st.memo_pruned;  // an expanded node over the same sets is no worse on every machine
      st.explored += weights_[child_depth - 1];
      return true;
    }
    const bool need_flags = kind_ != bound_kind::lb1;
    if (need_flags) {
      for (int i = 0; i < n; ++i) scheduled_[perm[i]] = (i < first || i >= limit2) ? 1 : 0;
    }
    const unsigned char* flags = scheduled_.data();
    auto is_scheduled = [flags](int j) { return flags[j] != 0; };
    const bool do_fwd = rule_ != branching::backward;
    const bool do_bwd = rule_ != branching::forward;
    ++parent_;
    const bool swaps = do_fwd && dominance_ && limit1 >= 0;
    if (swaps) completion_times(inst, perm, limit1, front0_.data());
    for (int c = 0; c < count; ++c) {
      if (c % abandon_every_ == abandon_every_ - 1 && abandon()) return false;
      const int job = perm[first + c];
      if (do_fwd) {
        if (swaps && swap_dominated(inst, front_.data(), front0_.data(), perm[limit1], job)) {
          lb_fwd_[c] = kDominatedBound;  // P0·job·a is at least as good (bound/dominance.hpp)
          ++st.dominated;
        } else {
          lb_fwd_[c] = bound_child(job, true, ub, is_scheduled);
        }
      }
      if (do_bwd) lb_bwd_[c] = bound_child(job, false, ub, is_scheduled);
    }
    st.bounds += static_cast<std::uint64_t>(count) * ((do_fwd ? 1 : 0) + (do_bwd ? 1 : 0));
    if (profile_) st.bound_seconds += std::chrono::duration<double>(clock::now() - t0).count();
    ++st.branched;

    const bool forward = choose_forward(rule_, lb_fwd_.data(), lb_bwd_.data(), count, ub);
    const int* lbs = forward ? lb_fwd_.data() : lb_bwd_.data();
    const int to = forward ? first : limit2 - 1;
    const int l1 = forward ? limit1 + 1 : limit1;
    const int l2 = forward ? limit2 : limit2 - 1;
    const bool leaves = count == 1;
    int kept = 0;
    for (int c = 0; c < count; ++c) {
      if (lbs[c] >= ub) {
        ++st.pruned;
        st.explored += weights_[child_depth];
      } else if (leaves) {
        ++st.leaves;
        st.explored += weights_[child_depth];
        leaf(perm, first + c, to, lbs[c]);
        // A leaf may lower ub; later siblings are still checked against the caller's ub.
      } else {
        order_[kept++] = c;
      }
    }
    order_children(perm + first, lbs, kept, to);
    for (int a = 0; a < kept; ++a) {
      const int c = order_[a];
      push(perm, first + c, to, l1, l2, lbs[c]);
    }
    if (memo) memo_->store(probe_, front_.data(), back_.data());
    return true;
  }

  // Bound of a whole node from scratch (the root, or checks).
  int root_bound(const job_t* perm, int limit1, int limit2, int ub) {
    node_parts(b_, perm, limit1, limit2, front_.data(), back_.data(), remain_.data());
    const int n = b_.inst.n;
    for (int i = 0; i < n; ++i) scheduled_[perm[i]] = (i <= limit1 || i >= limit2) ? 1 : 0;
    const unsigned char* flags = scheduled_.data();
    return node_bound(
        kind_, b_, front_.data(), back_.data(), remain_.data(), [flags](int j) { return flags[j] != 0; }, ub);
  }

 private:
  // order_[0..kept) in push order, the child to explore first last: the largest bound first, or
  // with a guide (follow) the largest distance from it first, the bound breaking ties. Each kept
  // child's key computed once, then an insertion sort on at most n - depth entries. jobs[c] is
  // child c's job, placed at position `to`.
  void order_children(const job_t* jobs, const int* lbs, int kept, int to) {
    const bool guided = !guide_pos_.empty();
    for (int a = 0; a < kept; ++a) {
      const int c = order_[a];
      keys_[c] = guided ? guided_child_key(guide_pos_[jobs[c]], to, lbs[c]) : static_cast<unsigned>(lbs[c]);
    }
    for (int a = 1; a < kept; ++a) {
      const int v = order_[a];
      int q = a;
      while (q > 0 && keys_[order_[q - 1]] < keys_[v]) {
        order_[q] = order_[q - 1];
        --q;
      }
      order_[q] = v;
    }
  }

  // child_bound's value, LB2 from the parent's table (lb2_table.hpp: O(1) a pair and child instead
  // of the O(n) walk; a pair's part of the table, two O(n) passes, is filled when the parent's
  // first child reaches the pair, and read by about 5 children on average at 20x20 to 100x20 with
  // the optimum's ub. 2.3-3.0x the chain's CPU rate: docs/decisions/013-device-loop-roofline.md).
  template <class IsScheduled>
  int bound_child(int job, bool forward, int ub, IsScheduled parent_scheduled) {
    const instance_view inst = b_.inst;
    int* scratch = scratch_.data();
    const int lb1 = forward ? lb1_forward_child(inst, front_.data(), back_.data(), remain_.data(), job)
                            : lb1_backward_child(inst, front_.data(), back_.data(), remain_.data(), job, scratch);
    if (kind_ == bound_kind::lb1 || (kind_ == bound_kind::lb1_lb2 && lb1 >= ub)) return lb1;
    auto ensure_pair = [&](int q) {
      const auto uq = static_cast<std::size_t>(q);
      if (pair_parent_[uq] == parent_) return;
      lb2_parent_pair(b_, parent_scheduled, q, pm_.data(), sm_.data(), sums_.data());
      pair_parent_[uq] = parent_;
    };
    if (forward) front_after(inst, front_.data(), job, scratch);  // backward: scratch holds the child's back
    const int pairs = lb2_pairs_from_table(b_, pm_.data(), sm_.data(), sums_.data(), forward ? scratch : front_.data(),
                                           forward ? back_.data() : scratch, job, ub, ensure_pair);
    return pairs > lb1 ? pairs : lb1;
  }

  bound_view b_;
  bound_kind kind_;
  branching rule_;
  bool profile_;
  bool dominance_;
  int abandon_every_ = kind_ == bound_kind::lb1 ? 64 : 8;
  std::vector<double> weights_;
  std::vector<int> front_, back_, remain_, scratch_, front0_, lb_fwd_, lb_bwd_, order_;
  std::vector<int> pm_, sm_, sums_;         // the parent's LB2 table (lb2_table.hpp)
  std::vector<std::uint64_t> pair_parent_;  // per pair: the parent its part was filled for
  std::uint64_t parent_ = 0;                // parents expanded (pair_parent_'s clock)
  std::vector<unsigned char> scheduled_;
  std::shared_ptr<memo_table> memo_;  // null: no memo dominance
  memo_probe probe_;
  std::vector<int> guide_pos_;            // follow: each job's position in the guide (empty: no guide)
  std::vector<unsigned long long> keys_;  // order_children's sort key by child (guided_child_key)
  int guide_value_ = INT_MAX;             // follow: the guide's makespan
};

}  // namespace pfsp
