#include "mpi/frontier.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "search/expander.hpp"

namespace pfsp::dist {

std::deque<frontier_node> build_frontier(const bound_data& data, const solve_options& opt, int threshold,
                                         incumbent& best, std::size_t target, solve_stats& stats) {
  const int n = data.view().inst.n;
  expander ex(data, opt.bound, opt.branch, false, opt.dominance);
  std::deque<frontier_node> open;
  frontier_node root;
  root.perm.resize(static_cast<std::size_t>(n));
  std::iota(root.perm.begin(), root.perm.end(), job_t{0});
  const int ub = std::min(threshold, best.value());
  const int root_lb = ex.root_bound(root.perm.data(), -1, n, ub);
  ++stats.bounds;
  if (root_lb >= ub) {
    ++stats.pruned;
    stats.explored += 1.0;
    return open;
  }
  root.meta = {-1, n, root_lb};
  open.push_back(std::move(root));
  expand_frontier(data, opt, threshold, best, target, open, stats);
  return open;
}

void expand_frontier(const bound_data& data, const solve_options& opt, int threshold, incumbent& best,
                     std::size_t target, std::deque<frontier_node>& open, solve_stats& stats) {
  const int n = data.view().inst.n;
  expander ex(data, opt.bound, opt.branch, false, opt.dominance);
  std::vector<job_t> leaf(static_cast<std::size_t>(n));
  while (!open.empty() && open.size() < target) {
    frontier_node node = std::move(open.front());
    open.pop_front();
    const int ub = std::min(threshold, best.value());
    if (node.meta.lb >= ub) {
      ++stats.pruned;
      stats.explored += ex.weight(node.meta.limit1 + 1 + n - node.meta.limit2);
      continue;
    }
    ex.expand(
        node.perm.data(), node.meta.limit1, node.meta.limit2, ub,
        [&](const job_t* parent, int a, int b, int l1, int l2, int lb) {
          frontier_node child;
          child.perm.assign(parent, parent + n);
          std::swap(child.perm[static_cast<std::size_t>(a)], child.perm[static_cast<std::size_t>(b)]);
          child.meta = {l1, l2, lb};
          open.push_back(std::move(child));
        },
        [&](const job_t* parent, int a, int b, int value) {
          std::copy(parent, parent + n, leaf.begin());
          std::swap(leaf[static_cast<std::size_t>(a)], leaf[static_cast<std::size_t>(b)]);
          best.offer(value, leaf.data(), n);
        },
        stats);
  }
}

search_state chunk_state(const bound_data& data, const solve_options& opt, int threshold,
                         const std::vector<frontier_node>& nodes) {
  solve_options o = opt;
  o.resume = nullptr;
  search_state s = make_search_state(data, o, threshold, incumbent(), solve_stats{}, 0.0, "distributed chunk");
  s.stack_sizes = {nodes.size()};
  for (const frontier_node& f : nodes) {
    s.nodes.push_back(f.meta);
    s.perms.insert(s.perms.end(), f.perm.begin(), f.perm.end());
  }
  return s;
}

}  // namespace pfsp::dist

namespace pfsp::dist {

search_state run_state(const bound_data& data, const solve_options& opt, int threshold, const incumbent& best,
                       const solve_stats& total, double seconds, const std::vector<const frontier_node*>& open,
                       std::string_view backend) {
  solve_options o = opt;
  o.resume = nullptr;
  search_state s = make_search_state(data, o, threshold, best, total, seconds, backend);
  if (opt.resume) s.ub_option = opt.resume->ub_option;
  s.complete = open.empty();
  s.stack_sizes = {open.size()};
  for (const frontier_node* f : open) {
    s.nodes.push_back(f->meta);
    s.perms.insert(s.perms.end(), f->perm.begin(), f->perm.end());
  }
  return s;
}

std::deque<frontier_node> frontier_of(const search_state& s) {
  const std::vector<frontier_node> v = nodes_of(s);
  return {v.begin(), v.end()};
}

std::vector<frontier_node> nodes_of(const search_state& s) {
  std::vector<frontier_node> out(s.open());
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].meta = s.nodes[i];
    out[i].perm.assign(s.perm(i), s.perm(i) + s.n);
  }
  return out;
}

}  // namespace pfsp::dist

namespace pfsp::dist {

chunk_run run_chunk(const bound_data& data, const solve_options& opt, const chunk_solver& solve, const chunk_job& job) {
  const search_state state = chunk_state(data, opt, job.ub, *job.nodes);
  solve_options o = opt;
  o.resume = &state;
  o.initial_ub.reset();
  o.node_limit = 0;
  o.time_limit = job.seconds_left < 0 ? 0.0 : std::max(job.seconds_left, 1e-3);
  o.time_origin.reset();  // seconds_left counts from now (rank 0's clock decided it)
  o.interrupt = job.interrupt;
  o.feed = job.feed;
  o.on_progress = nullptr;
  // The solver's states: the periodic ones go to job.on_checkpoint, the last one says what is left.
  std::optional<search_state> last;
  o.checkpoint_interval = job.on_checkpoint ? job.checkpoint_interval : 1e300;
  // At the end, whether the final state's nodes are wanted (chunk_job::drop_left_at_stop): not
  // when the chunk stops on its time limit (no interrupt) or for good.
  bool dropped = false;
  const auto drop_now = [&job] {
    if (!job.drop_left_at_stop) return false;
    const bool interrupted = job.interrupt && job.interrupt->load();
    return !interrupted || (job.final_stop && job.final_stop->load());
  };
  o.on_checkpoint = [&](const search_state& s) {
    if (job.on_checkpoint && !s.complete) job.on_checkpoint(s);
    if (!s.complete && drop_now()) {
      dropped = true;
      last.reset();
      return;
    }
    last = s;
  };
  chunk_run out;
  out.result = solve(o, incumbent(job.ub, {}));
  const solve_status st = out.result.status;
  out.complete = st == solve_status::optimal || st == solve_status::proven_bound;
  if (out.complete) return out;
  if (dropped && !last) {
    out.left_dropped = true;  // result.lower_bound stands for them
  } else if (last) {
    out.left = nodes_of(*last);
  } else {
    out.left = *job.nodes;
    out.result.stats = solve_stats{};
  }
  return out;
}

}  // namespace pfsp::dist
