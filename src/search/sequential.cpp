#include "search/sequential.hpp"

#include <memory>
#include <numeric>
#include <string>
#include <type_traits>

#include "base/error.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"
#include "search/feed_exchange.hpp"
#include "search/node_pool.hpp"

namespace pfsp {
namespace {

// One sequential solve, in named steps: seed the pool (the root, or a checkpoint's stack), pop
// and expand until the pool is empty or a limit stops the search (clock checks with the feed,
// progress and periodic checkpoints between expansions), then the result.
// Best- and breadth-first pools grow without bound (500 x 20: about 0.75 GB a second); past
// solve_options::pool_memory their nodes are explored depth-first, one subtree at a time from the
// pool's next node (the `dive` stack), so that memory stays bounded and the search exact.
template <class Pool>
class sequential_run {
 public:
  static constexpr bool depth_first = std::is_same_v<Pool, dfs_pool>;

  sequential_run(const bound_data& data, const solve_options& opt, const incumbent& start)
      : data_(data),
        opt_(opt),
        n_(data.view().inst.n),
        ctl_(opt),
        best_(start),
        threshold_(opt.resume ? opt.resume->threshold : initial_threshold(opt, best_)),
        feed_(opt.feed, data.view().inst),
        ex_(data, opt.bound, opt.branch, opt.profile, opt.dominance),
        pool_(n_),
        dive_(n_),
        backend_("cpu (sequential, " + std::string(to_string(opt.select)) + ")"),
        explored_before_(opt.resume ? opt.resume->stats.explored : 0.0),
        perm_(n_),
        leaf_perm_(n_) {
    if (!depth_first && (opt.resume || opt.on_checkpoint))
      throw input_error("checkpoints (--checkpoint, --resume) need --selection depth-first");
    if (opt.memo_bytes > 0) ex_.enable_memo(std::make_shared<memo_table>(n_, data.view().inst.m, opt.memo_bytes));
    feed_.take(best_);  // the engine beside the search may already hold a better schedule than `start`
    ub_ = std::min(threshold_, best_.value());
  }

  solve_result run() {
    seed();
    solve_status stop = ctl_.node_limit_reached(0) ? solve_status::node_limit : solve_status::optimal;
    while (stop == solve_status::optimal && open() > 0) stop = step();
    if (open() == 0) stop = solve_status::optimal;  // a limit noticed as the last node closed
    return finish(stop);
  }

 private:
  std::size_t open() const { return pool_.size() + dive_.size(); }

  void seed() {
    if constexpr (depth_first) {
      if (opt_.resume) {
        PFSP_EXPECTS(opt_.resume->n == n_, "checkpoint for another instance size");
        check_lb2_pairs(*opt_.resume, data_, "the checkpoint");
        restore_stacks(*opt_.resume, {&pool_});
      }
    }
    if (opt_.resume) return;
    std::iota(perm_.begin(), perm_.end(), 0);
    const int root_lb = ex_.root_bound(perm_.data(), -1, n_, ub_);
    ++st_.bounds;
    if (root_lb < ub_) {
      pool_.push_root(perm_.data(), -1, n_, root_lb);
    } else {
      ++st_.pruned;
      st_.explored += 1.0;
    }
  }

  // Over its memory budget, a best- or breadth-first pool hands its next node to the dive stack.
  bool over_budget() const {
    return !depth_first && pool_.size() * (static_cast<std::size_t>(n_) * sizeof(job_t) + 64) > opt_.pool_memory;
  }

  // One node popped and pruned or expanded; then, when due, the clock, the feed, the progress
  // report and a periodic checkpoint. Returns the status to stop with, or optimal to go on.
  solve_status step() {
    const bool from_dive = !dive_.empty();
    const bool diving = from_dive || over_budget();
    dove_ = dove_ || diving;
    const node_meta m = from_dive ? dive_.pop(perm_.data()) : pool_.pop(perm_.data());
    if (m.lb >= ub_) {  // the incumbent improved since this node was bounded
      ++st_.pruned;
      st_.explored += ex_.weight(m.limit1 + 1 + n_ - m.limit2);
      return solve_status::optimal;
    }
    auto push = [this, diving](const job_t* parent, int a, int b, int l1, int l2, int lb) {
      if (diving)
        dive_.push(parent, a, b, l1, l2, lb);
      else
        pool_.push(parent, a, b, l1, l2, lb);
    };
    auto leaf = [this](const job_t* parent, int a, int b, int value) { offer_leaf(parent, a, b, value); };
    auto abandon = [this] { return ctl_.overdue() != solve_status::optimal; };
    if (opt_.order == child_order::incumbent) ex_.follow(best_);
    if (!ex_.expand(perm_.data(), m.limit1, m.limit2, ub_, push, leaf, st_, abandon)) {
      // Given up: back where it came from, as it was.
      if (from_dive)
        dive_.push_root(perm_.data(), m.limit1, m.limit2, m.lb);
      else
        pool_.push_root(perm_.data(), m.limit1, m.limit2, m.lb);
      return ctl_.overdue();
    }
    if (ctl_.node_limit_reached(st_.branched)) return solve_status::node_limit;
    if (!ctl_.due(st_.branched)) return solve_status::optimal;
    return between_expansions();
  }

  void offer_leaf(const job_t* parent, int a, int b, int value) {
    std::copy(parent, parent + n_, leaf_perm_.begin());
    std::swap(leaf_perm_[a], leaf_perm_[b]);
    if (!best_.offer(value, leaf_perm_.data(), n_)) return;
    ub_ = std::min(ub_, value);
    feed_.offer(leaf_perm_.data(), n_, value);
  }

  solve_status between_expansions() {
    const solve_status stop = ctl_.check(st_.branched);
    if (feed_.take(best_)) ub_ = std::min(ub_, best_.value());
    ctl_.maybe_report({0, st_.branched, best_.value(), open(), explored_before_ + st_.explored});
    if (stop == solve_status::optimal && ctl_.checkpoint_due()) emit_checkpoint(opt_, [&] { return state(false); });
    return stop;
  }

  // The state between two expansions: every open node is in the pool (depth-first: no dive).
  search_state state(bool complete) const {
    search_state s = make_search_state(data_, opt_, threshold_, best_, st_, ctl_.elapsed(), backend_);
    s.complete = complete;
    if constexpr (depth_first) s.add_stack(pool_);
    return s;
  }

  solve_result finish(solve_status stop) {
    emit_checkpoint(opt_, [&] { return state(stop == solve_status::optimal); });
    const int open_min = open() == 0 ? INT_MAX : std::min(pool_.min_lb(), dive_.min_lb());
    const solve_stats total = cumulative_stats(opt_, st_, ctl_.elapsed());
    solve_result r = finish_result(stop, best_, threshold_, open_min, total, total.total_seconds);
    r.backend = backend_;
    if (feed_.active()) r.notes.push_back(feed_note(feed_));
    if (dove_ && !depth_first)
      r.notes.push_back("the open nodes outgrew " + std::to_string(opt_.pool_memory >> 20) +
                        " MiB: subtrees explored depth-first from then on");
    return r;
  }

  const bound_data& data_;
  const solve_options& opt_;
  const int n_;
  run_control ctl_;
  incumbent best_;
  const int threshold_;
  feed_exchange feed_;
  int ub_ = 0;
  expander ex_;
  Pool pool_;
  dfs_pool dive_;
  bool dove_ = false;
  solve_stats st_;
  const std::string backend_;
  const double explored_before_;
  std::vector<job_t> perm_, leaf_perm_;
};

}  // namespace

solve_result solve_sequential(const bound_data& data, const solve_options& opt, const incumbent& start) {
  switch (opt.select) {
    case selection::depth_first:
      return sequential_run<dfs_pool>(data, opt, start).run();
    case selection::breadth_first:
      return sequential_run<bfs_pool>(data, opt, start).run();
    case selection::best_first:
      return sequential_run<best_pool>(data, opt, start).run();
  }
  throw error("unknown selection strategy");
}

}  // namespace pfsp
