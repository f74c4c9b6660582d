#include "mpi/frontier.hpp"

#include <numeric>

#include "search/expander.hpp"

namespace pfsp::dist {

std::deque<frontier_node> build_frontier(const bound_data& data, const solve_options& opt, int threshold,
                                         incumbent& best, std::size_t target, solve_stats& stats) {
  const int n = data.view().inst.n;
  expander ex(data, opt.bound, opt.branch);
  std::deque<frontier_node> open;
  frontier_node root;
  root.perm.resize(static_cast<std::size_t>(n));
  std::iota(root.perm.begin(), root.perm.end(), job_t{0});
  int ub = std::min(threshold, best.value());
  const int root_lb = ex.root_bound(root.perm.data(), -1, n, ub);
  ++stats.bounds;
  if (root_lb >= ub) {
    ++stats.pruned;
    stats.explored += 1.0;
    return open;
  }
  root.meta = {-1, n, root_lb};
  open.push_back(std::move(root));
  std::vector<job_t> leaf(static_cast<std::size_t>(n));
  while (!open.empty() && open.size() < target) {
    frontier_node node = std::move(open.front());
    open.pop_front();
    ub = std::min(threshold, best.value());
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
  return open;
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
