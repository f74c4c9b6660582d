// pfsp_bench_lb2_walk: how many machine pairs the LB1->LB2 chain's LB2 walks per child, and what
// that means for a warp (docs/decisions/013, option D). Counts, not times: a depth-first search
// of the instance from --ub (default its best known + 1) with the chain over the learned pairs
// (--lb2-pairs learn's default K = m - 1 and budget, as pfsp solve's device loop uses), forward
// branching, children of a parent in order and the kept ones pushed best last. For every child
// LB1 does not prune, the pairs LB2 walks before it reaches the ub (or all of them: a survivor).
//
// The warp model: the GPU's second kernel bounds the LB1 survivors of a pool in list order, one
// thread a child, so a warp walks as many pairs as its longest lane. Here the children LB2
// evaluates are cut into groups of 32 in the order the search produced them; SIMT efficiency is
// pairs walked / (32 x the groups' longest walks). With a split after P pairs (a first pass of
// P pairs for every child, the children not yet pruned compacted, a second pass of the rest),
// each pass's groups pay their own longest walk: the predicted pair-walk cost against one pass.
//
// The parent's table (bound/lb2_table.hpp, decision 013 option I): a parent fills the pairs its
// children reach (the longest walk among them: the pairs reached are a prefix), two O(n) passes
// each, and a child's pair then costs O(1). Counted: the pairs' parts filled, their reuse (pair
// walks over parts filled) and the job steps against the walk's (n a pair walked: the masks form
// steps over every job).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb1.hpp"
#include "bound/node_parts.hpp"
#include "bound/pair_learning.hpp"
#include "problem/instance.hpp"
#include "problem/io.hpp"

namespace pfsp::bench {
namespace {

// The pairs LB2 walks for a child before its value reaches ub (1-based), or npairs + 1 when it
// survives them all (it then walked npairs).
int pairs_walked(const bound_view& b, const int* front, const int* back, std::uint64_t scheduled, int ub) {
  const int n = b.inst.n;
  int lb = 0;
  for (int q = 0; q < b.npairs; ++q) {
    const int k = b.pair_first[q], l = b.pair_second[q];
    int t0 = front[k], t1 = front[l];
    for (int r = 0; r < n; ++r) {
      const int j = b.johnson[q * n + r];
      if ((scheduled >> j) & 1u) continue;
      t0 += b.inst.time(k, j);
      t1 = std::max(t1, t0 + b.lags[q * n + j]) + b.inst.time(l, j);
    }
    lb = std::max({lb, t0 + back[k], t1 + back[l]});
    if (lb >= ub) return q + 1;
  }
  return b.npairs + 1;
}

struct walk_counts {
  long long parents = 0, children = 0, lb1_pruned = 0;
  long long table_parts = 0;  // over the parents: the pairs their LB2-evaluated children reach
  std::vector<int> walks;     // per LB2-evaluated child, in order: pairs walked (npairs + 1: survived)
};

walk_counts search(const bound_view& b, int ub, long long limit) {
  const int n = b.inst.n, m = b.inst.m;
  walk_counts c;
  struct node {
    std::vector<int> perm;
    int depth;
  };
  std::vector<node> stack;
  std::vector<int> root(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) root[static_cast<std::size_t>(j)] = j;
  stack.push_back({root, 0});
  std::vector<int> front(m), back(m), remain(m), child_front(m);
  std::vector<std::pair<int, int>> kept;
  while (!stack.empty() && c.children < limit) {
    node nd = std::move(stack.back());
    stack.pop_back();
    ++c.parents;
    const int d = nd.depth;
    node_parts(b, nd.perm.data(), d - 1, n, front.data(), back.data(), remain.data());
    std::uint64_t mask = 0;
    for (int i = 0; i < d; ++i) mask |= std::uint64_t{1} << nd.perm[static_cast<std::size_t>(i)];
    kept.clear();
    int reached = 0;  // pairs this parent's children reach
    for (int i = d; i < n; ++i) {
      const int job = nd.perm[static_cast<std::size_t>(i)];
      ++c.children;
      const int lb1 = lb1_forward_child(b.inst, front.data(), back.data(), remain.data(), job);
      if (lb1 >= ub) {
        ++c.lb1_pruned;
        continue;
      }
      front_after(b.inst, front.data(), job, child_front.data());
      const int w = pairs_walked(b, child_front.data(), back.data(), mask | (std::uint64_t{1} << job), ub);
      c.walks.push_back(w);
      reached = std::max(reached, std::min(w, b.npairs));
      if (w > b.npairs && d + 1 < n) kept.emplace_back(lb1, i);
    }
    c.table_parts += reached;
    std::sort(kept.begin(), kept.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [lb, i] : kept) {
      node ch{nd.perm, d + 1};
      std::swap(ch.perm[static_cast<std::size_t>(d)], ch.perm[static_cast<std::size_t>(i)]);
      stack.push_back(std::move(ch));
    }
  }
  return c;
}

// Pair-walk cost of warps of 32 over `walks` (in order), each warp paying its longest walk,
// with the walks capped at `cap` pairs.
double warp_cost(const std::vector<int>& walks, int npairs, int from, int cap) {
  double cost = 0;
  int longest = 0, lanes = 0;
  for (const int w : walks) {
    const int walked = std::min(w, npairs) - from;  // pairs after `from` this child walks
    if (walked <= 0) continue;
    longest = std::max(longest, std::min(walked, cap));
    if (++lanes == 32) {
      cost += longest;
      longest = lanes = 0;
    }
  }
  return cost + longest;
}

nlohmann::json measure(const instance& inst, int ub, long long limit, const std::vector<int>& splits) {
  const pair_learning pl = learn_pairs(inst, inst.m - 1, ub);
  const bound_data data(inst, pl.pairs);
  const bound_view b = data.view();
  const walk_counts c = search(b, ub, limit);
  long long survived = 0, pair_walks = 0;
  for (const int w : c.walks) {
    survived += w > b.npairs;
    pair_walks += std::min(w, b.npairs);
  }
  const double evaluated = static_cast<double>(c.walks.size());
  const double one_pass = warp_cost(c.walks, b.npairs, 0, b.npairs);
  nlohmann::json r = {
      {"instance", inst.name},
      {"ub", ub},
      {"pairs", b.npairs},
      {"parents", c.parents},
      {"children", c.children},
      {"lb1_pruned_share", static_cast<double>(c.lb1_pruned) / static_cast<double>(c.children)},
      {"lb2_evaluated", c.walks.size()},
      {"lb2_survived_share", static_cast<double>(survived) / evaluated},
      {"mean_pairs_walked", static_cast<double>(pair_walks) / evaluated},
      {"simt_one_pass", static_cast<double>(pair_walks) / (32.0 * one_pass)},
      {"table_parts", c.table_parts},
      {"table_reuse", static_cast<double>(pair_walks) / static_cast<double>(std::max(1LL, c.table_parts))},
      {"table_steps_against_walk",
       (2.0 * inst.n * static_cast<double>(c.table_parts) + static_cast<double>(pair_walks)) /
           (static_cast<double>(inst.n) * static_cast<double>(std::max(1LL, pair_walks)))}};
  nlohmann::json sp = nlohmann::json::array();
  for (const int p : splits) {
    if (p <= 0 || p >= b.npairs) continue;
    const double cost = warp_cost(c.walks, b.npairs, 0, p) + warp_cost(c.walks, b.npairs, p, b.npairs);
    sp.push_back({{"after_pairs", p}, {"cost_against_one_pass", cost / one_pass}});
  }
  r["splits"] = sp;
  return r;
}

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  using namespace pfsp;
  CLI::App app{
      "pfsp_bench_lb2_walk: pairs the LB1->LB2 chain's LB2 walks per child, and the warp cost of one or two "
      "passes"};
  std::string names = "ta051,ta053,ta056";
  long long limit = 20000000;
  int ub_option = 0;
  std::vector<int> splits{1, 2, 3, 4, 6};
  std::string json_path;
  app.add_option("--instances", names, "comma list of instances (ta001..ta120, ranges, files)")->capture_default_str();
  app.add_option("--ub", ub_option, "pruning threshold (0: each instance's best known upper bound + 1)");
  app.add_option("--children", limit, "children the search bounds per instance")->capture_default_str();
  app.add_option("--split", splits, "pairs of the first pass to model (comma list)")->delimiter(',');
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);
  nlohmann::json out = {{"machine", bench::stamp(argc, argv)}, {"runs", nlohmann::json::array()}};
  std::vector<std::string> headers{"instance",          "ub",       "pairs",         "children",       "LB1 pruned",
                                   "LB2 evaluated",     "survived", "pairs a child", "SIMT, one pass", "table reuse",
                                   "table steps / walk"};
  for (const int p : splits) headers.push_back("split after " + std::to_string(p));
  bench::table t(headers);
  for (const auto& name : bench::expand_instances(names)) {
    const instance inst = load_instance(name);
    const int ub = ub_option > 0 ? ub_option : (inst.known ? inst.known->ub + 1 : 0);
    if (ub <= 0 || inst.n > 64) {
      std::cerr << name << ": give --ub (no best known), and at most 64 jobs\n";
      return 2;
    }
    const nlohmann::json r = bench::measure(inst, ub, limit, splits);
    std::vector<std::string> row{name,
                                 std::to_string(ub),
                                 std::to_string(r["pairs"].get<int>()),
                                 bench::human(r["children"].get<double>()),
                                 bench::fixed(100 * r["lb1_pruned_share"].get<double>(), 1) + " %",
                                 bench::human(r["lb2_evaluated"].get<double>()),
                                 bench::fixed(100 * r["lb2_survived_share"].get<double>(), 1) + " %",
                                 bench::fixed(r["mean_pairs_walked"].get<double>(), 2),
                                 bench::fixed(r["simt_one_pass"].get<double>(), 3),
                                 bench::fixed(r["table_reuse"].get<double>(), 2),
                                 bench::fixed(r["table_steps_against_walk"].get<double>(), 3)};
    for (const auto& sp : r["splits"]) row.push_back(bench::fixed(sp["cost_against_one_pass"].get<double>(), 3));
    t.add(row);
    out["runs"].push_back(r);
  }
  std::cout << t.markdown();
  if (!json_path.empty()) bench::write_text_atomically(json_path, out.dump(2) + "\n");
  return 0;
}
