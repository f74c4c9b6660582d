#include "search/sequential.hpp"

#include <numeric>
#include <type_traits>

#include "base/error.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"
#include "search/feed_exchange.hpp"
#include "search/node_pool.hpp"

namespace pfsp {
namespace {

template <class Pool>
solve_result run(const bound_data& data, const solve_options& opt, const incumbent& start) {
  constexpr bool depth_first = std::is_same_v<Pool, dfs_pool>;
  if (!depth_first && (opt.resume || opt.on_checkpoint))
    throw input_error("checkpoints (--checkpoint, --resume) need --selection depth-first");
  run_control ctl(opt);
  const int n = data.view().inst.n;
  incumbent best(start);
  const int threshold = opt.resume ? opt.resume->threshold : initial_threshold(opt, best);
  feed_exchange feed(opt.feed, data.view().inst);
  feed.take(best);  // the engine beside the search may already hold a better schedule than `start`
  int ub = std::min(threshold, best.value());
  expander ex(data, opt.bound, opt.branch, opt.profile);
  Pool pool(n);
  solve_stats st;
  const std::string backend = "cpu (sequential, " + std::string(to_string(opt.select)) + ")";
  const double explored_before = opt.resume ? opt.resume->stats.explored : 0.0;

  std::vector<job_t> perm(n);
  if constexpr (depth_first) {
    if (opt.resume) {
      PFSP_EXPECTS(opt.resume->n == n, "checkpoint for another instance size");
      check_lb2_pairs(*opt.resume, data, "the checkpoint");
      restore_stacks(*opt.resume, {&pool});
    }
  }
  if (!opt.resume) {
    std::iota(perm.begin(), perm.end(), 0);
    const int root_lb = ex.root_bound(perm.data(), -1, n, ub);
    ++st.bounds;
    if (root_lb < ub) {
      pool.push_root(perm.data(), -1, n, root_lb);
    } else {
      ++st.pruned;
      st.explored += 1.0;
    }
  }
  // The state between two expansions: every open node is in the pool.
  auto state = [&](bool complete) {
    search_state s = make_search_state(data, opt, threshold, best, st, ctl.elapsed(), backend);
    s.complete = complete;
    if constexpr (depth_first) s.add_stack(pool);
    return s;
  };

  std::vector<job_t> leaf_perm(n);
  auto push = [&](const job_t* parent, int a, int b, int l1, int l2, int lb) { pool.push(parent, a, b, l1, l2, lb); };
  auto leaf = [&](const job_t* parent, int a, int b, int value) {
    std::copy(parent, parent + n, leaf_perm.begin());
    std::swap(leaf_perm[a], leaf_perm[b]);
    if (!best.offer(value, leaf_perm.data(), n)) return;
    ub = std::min(ub, value);
    feed.offer(leaf_perm.data(), n, value);
  };

  solve_status stop = solve_status::optimal;
  if (ctl.node_limit_reached(0)) stop = solve_status::node_limit;
  while (stop == solve_status::optimal && !pool.empty()) {
    const node_meta m = pool.pop(perm.data());
    if (m.lb >= ub) {  // the incumbent improved since this node was bounded
      ++st.pruned;
      st.explored += ex.weight(m.limit1 + 1 + n - m.limit2);
      continue;
    }
    const auto abandon = [&ctl] { return ctl.overdue() != solve_status::optimal; };
    if (!ex.expand(perm.data(), m.limit1, m.limit2, ub, push, leaf, st, abandon)) {
      pool.push_root(perm.data(), m.limit1, m.limit2, m.lb);  // given up: back, as it was
      stop = ctl.overdue();
    } else if (ctl.node_limit_reached(st.branched)) {
      stop = solve_status::node_limit;
    } else if (ctl.due(st.branched)) {
      stop = ctl.check(st.branched);
      if (feed.take(best)) ub = std::min(ub, best.value());
      ctl.maybe_report({0, st.branched, best.value(), pool.size(), explored_before + st.explored});
      if (stop == solve_status::optimal && ctl.checkpoint_due()) emit_checkpoint(opt, [&] { return state(false); });
    }
  }
  if (pool.empty()) stop = solve_status::optimal;  // a limit noticed as the last node closed
  emit_checkpoint(opt, [&] { return state(stop == solve_status::optimal); });
  const int open_min = pool.empty() ? INT_MAX : pool.min_lb();
  const solve_stats total = cumulative_stats(opt, st, ctl.elapsed());
  solve_result r = finish_result(stop, best, threshold, open_min, total, total.total_seconds);
  r.backend = backend;
  if (feed.active()) r.notes.push_back(feed_note(feed));
  return r;
}

}  // namespace

solve_result solve_sequential(const bound_data& data, const solve_options& opt, const incumbent& start) {
  switch (opt.select) {
    case selection::depth_first:
      return run<dfs_pool>(data, opt, start);
    case selection::breadth_first:
      return run<bfs_pool>(data, opt, start);
    case selection::best_first:
      return run<best_pool>(data, opt, start);
  }
  throw error("unknown selection strategy");
}

}  // namespace pfsp
