// pfsp_bench_dive: how soon a depth-first search finds a schedule of a target makespan T (issue 44
// item 2: once the lower bound is the incumbent minus one, the run is a search for one schedule at
// the bound). One CPU core, the solver's own expander, pruning at ub = T + 1, so every node kept
// has a bound of at most T. Three ways:
//   dfs       the solvers' order: the children of the smallest bound first, the whole tree once;
//   idle-ties the same, with ties of bound broken by the least idle time of the child's partial
//             schedules (the prefix's and the suffix's machines' idle, summed): where most nodes
//             of the tree have the same bound, the order within the tie decides how soon a
//             schedule at it is met;
//   lds       limited discrepancy search (Harvey and Ginsberg 1995): iteration k = 0, 1, 2, ...
//             searches depth-first the paths that leave the child of the smallest bound for
//             another at most k times, so the solvers' order is trusted as much near the root
//             as near the leaves; nodes of earlier iterations are counted again;
//   guided    solution-guided search (after Beck 2007): the bound's ties broken toward a guide
//             schedule, the child whose job the guide has nearest the position it takes first;
//             the guide is the best iterated-greedy schedule above the target (rounds doubled
//             from 1 until the next would reach it), as a run's stalled incumbent is;
//   follow    the same guide, followed first: the order of the CPU solvers' --child-order
//             incumbent (expander::follow): the children by that distance, the bound breaking ties
//             (every child kept has a bound of at most T anyway);
//   restarts  randomised depth-first searches restarted after a node budget that follows Luby's
//             sequence times --restart-base: the children ordered by bound plus uniform noise
//             in [0, --noise) (ties broken at random with --noise 0), a fresh random stream each
//             restart (the heavy-tailed behaviour of backtracking that restarts cut: Gomes,
//             Selman and Kautz 1998).
// --pool P (dfs and follow): the GPU device loop's discipline instead of one node at a time: each
// iteration pops up to P nodes from the top of the stack, expands them all, and pushes their
// children with the parent popped first on top (its best child last), as push_warp_kernel's
// mirrored segments do; an iteration that meets a schedule counts all its P expansions. P = 1 is
// the plain depth-first search.
// Prints, per instance and way, whether a schedule of at most T was found, the nodes and seconds
// to it, and its makespan recomputed from scratch.
//
//   pfsp_bench_dive --instances ta021-ta030 --bound lb1 --seconds 20 --way dfs,idle-ties,restarts
//   pfsp_bench_dive --instances ta090 --target 6404 --bound lb1 --seconds 120 --way restarts
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bound/bound_data.hpp"
#include "bound/node_parts.hpp"
#include "bound/pair_learning.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "problem/instance.hpp"
#include "problem/io.hpp"
#include "search/expander.hpp"

namespace pfsp::bench {
namespace {

struct config {
  bound_kind bound = bound_kind::lb1;
  branching branch = branching::min_min;
  double seconds = 20;
  double noise = 0;
  std::uint64_t restart_base = 1000;
  std::uint64_t seed = 1;
  std::string guide_file;  // guided, follow: a pfsp result's schedule instead of guide_above's
  std::size_t pool = 1;    // dfs, follow: nodes an iteration pops (diver::run_pooled)
};

struct open_node {
  std::vector<job_t> perm;
  int limit1 = -1, limit2 = 0, lb = 0;
  int discrepancies = 0;  // lds: the rank sum still allowed below this node
};

struct dive_result {
  bool found = false;
  int makespan = 0;
  std::vector<job_t> schedule;
  std::uint64_t branched = 0;  // expansions until the schedule (or the end)
  std::uint64_t restarts = 0;
  double seconds = 0;
  bool complete = false;  // dfs only: the whole tree was searched without one
  neh_result guide;       // guided, follow: the guide schedule (makespan 0 where none)
};

// The best iterated-greedy schedule above target: rounds 1, 2, 4, ... from NEH (seed 1), the
// last result before one reaches target (NEH itself if one round does), and no more rounds
// once one run has taken 5 s.
neh_result guide_above(const instance& inst, int target) {
  neh_result best = neh(inst);
  for (int rounds = 1; rounds <= 1 << 16; rounds *= 2) {
    ig_options o;
    o.iterations = rounds;
    const auto t0 = std::chrono::steady_clock::now();
    neh_result next = iterated_greedy(inst, o);
    if (next.makespan <= target) break;
    best = std::move(next);
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(5)) break;
  }
  return best;
}

// Luby's sequence 1, 1, 2, 1, 1, 2, 4, ... (i from 1): 2^(k-1) at i = 2^k - 1, else the sequence
// again from the start of the block.
std::uint64_t luby(std::uint64_t i) {
  std::uint64_t block = 1;  // 2^k - 1 >= i
  while (block < i) block = 2 * block + 1;
  return i == block ? (block + 1) / 2 : luby(i - block / 2);
}

// The idle time of a node's partial schedules, summed over the machines: the prefix's and the
// suffix's spans on each machine (front[k] + back[k], from node_parts) less the work scheduled
// on it. With one side empty its span is the smallest head or tail, the same for all siblings,
// so the order of a node's children is that of their idle times.
class idle_meter {
 public:
  explicit idle_meter(const bound_data& data)
      : view_(data.view()),
        total_(view_.inst.m, 0),
        front_(total_.size()),
        back_(total_.size()),
        remain_(total_.size()) {
    for (int k = 0; k < view_.inst.m; ++k)
      for (int j = 0; j < view_.inst.n; ++j) total_[k] += view_.inst.time(k, j);
  }

  int operator()(const open_node& c) {
    node_parts(view_, c.perm.data(), c.limit1, c.limit2, front_.data(), back_.data(), remain_.data());
    int idle = 0;
    for (std::size_t k = 0; k < total_.size(); ++k) idle += front_[k] + back_[k] - (total_[k] - remain_[k]);
    return idle;
  }

 private:
  bound_view view_;
  std::vector<int> total_, front_, back_, remain_;
};

// One depth-first search from the root, at most `budget` expansions (0: no limit), children
// ordered by bound plus noise drawn from rng (noise < 0: the expander's own order), or, with
// idle_ties, by bound and then the least idle time (idle_meter).
class diver {
 public:
  diver(expander& ex, const bound_data& data, int ub, bool idle_ties = false)
      : ex_(ex), idle_(data), n_(data.view().inst.n), ub_(ub), idle_ties_(idle_ties) {}

  // guided: the bound's ties broken by each job's distance from its position in `guide`.
  void set_guide(const std::vector<int>& guide) {
    guide_pos_.assign(guide.size(), 0);
    for (std::size_t i = 0; i < guide.size(); ++i) guide_pos_[static_cast<std::size_t>(guide[i])] = static_cast<int>(i);
  }

  // Returns true when a schedule below ub was found (in r); r.branched counts the expansions.
  // discrepancies >= 0: only children whose rank fits the node's allowance are pushed (lds), and
  // r.complete says whether none was left out.
  template <class Rng>
  bool run(std::uint64_t budget, double noise, Rng& rng, dive_result& r,
           const std::chrono::steady_clock::time_point& deadline, int discrepancies = -1) {
    stack_.clear();
    stack_.push_back(root());
    stack_.back().discrepancies = discrepancies;
    bool cut = false;
    std::uint64_t used = 0;
    while (!stack_.empty()) {
      if ((budget && used >= budget) || ((used & 1023) == 0 && std::chrono::steady_clock::now() > deadline))
        return false;
      open_node nd = std::move(stack_.back());
      stack_.pop_back();
      bool leaf_found = false;
      expand_into(nd, kids_, r, leaf_found);
      ++used;
      ++r.branched;
      if (leaf_found) return r.found = true;
      parent_limit1_ = nd.limit1;
      order_children(noise, rng);
      push_children(nd.discrepancies, cut);
    }
    r.complete = budget == 0 && !cut;
    return false;
  }

  // The device loop's iteration (loop_iteration.cuh) on the CPU: up to `pool` nodes popped from
  // the top, all expanded, their children pushed with the parent popped first on top. Returns
  // true when an iteration met a schedule below ub; r.branched counts every expansion.
  bool run_pooled(std::size_t pool, dive_result& r, const std::chrono::steady_clock::time_point& deadline) {
    stack_.clear();
    stack_.push_back(root());
    while (!stack_.empty()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      const std::size_t k = std::min(pool, stack_.size());
      batch_.assign(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(k)),
                    std::make_move_iterator(stack_.end()));
      stack_.resize(stack_.size() - k);
      if (expand_batch(r)) return r.found = true;
      for (std::vector<open_node>& kids : pushes_)  // batch_[0] was deepest in the stack: lowest segment
        for (open_node& c : kids) stack_.push_back(std::move(c));
    }
    r.complete = true;
    return false;
  }

 private:
  open_node root() const {
    open_node nd;
    nd.perm.resize(n_);
    for (int j = 0; j < n_; ++j) nd.perm[j] = static_cast<job_t>(j);
    nd.limit2 = n_;
    return nd;
  }

  // Expands every node of batch_, each one's children into pushes_ (the expander's push order,
  // best last); true when one of them met a schedule below ub (the first, into r).
  bool expand_batch(dive_result& r) {
    pushes_.resize(batch_.size());
    bool found = false;
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      expand_into(batch_[i], pushes_[i], r, found);
      ++r.branched;
    }
    return found;
  }

  // One expansion: nd's children into kids (cleared first; the expander's push order, best last);
  // the first schedule below ub met, if `found` is still false, into r (and found set).
  void expand_into(const open_node& nd, std::vector<open_node>& kids, dive_result& r, bool& found) {
    kids.clear();
    ex_.expand(
        nd.perm.data(), nd.limit1, nd.limit2, ub_,
        [&](const job_t* p, int from, int to, int l1, int l2, int lb) {
          open_node c{std::vector<job_t>(p, p + n_), l1, l2, lb};
          std::swap(c.perm[from], c.perm[to]);
          kids.push_back(std::move(c));
        },
        [&](const job_t* p, int from, int to, int makespan) {
          if (found) return;
          r.schedule.assign(p, p + n_);
          std::swap(r.schedule[from], r.schedule[to]);
          r.makespan = makespan;
          found = true;
        },
        stats_);
  }

  // kids_ hold the children best last (a stack pops the last first); with an allowance (>= 0)
  // every child but the best costs one discrepancy, and none is pushed once it is spent.
  void push_children(int allowance, bool& cut) {
    const int count = static_cast<int>(kids_.size());
    for (int i = 0; i < count; ++i) {
      const int cost = i == count - 1 ? 0 : 1;
      if (allowance >= 0 && cost > allowance) {
        cut = true;
        continue;
      }
      kids_[i].discrepancies = allowance >= 0 ? allowance - cost : -1;
      stack_.push_back(std::move(kids_[i]));
    }
  }

  // kids_ arrive largest bound first (the expander's push order); a stack pops the last first.
  template <class Rng>
  void order_children(double noise, Rng& rng) {
    if ((noise < 0 && !idle_ties_ && guide_pos_.empty()) || kids_.size() < 2) return;
    std::uniform_real_distribution<double> u(0.0, noise > 0 ? noise : 1e-9);
    keys_.resize(kids_.size());
    for (std::size_t i = 0; i < kids_.size(); ++i) keys_[i] = kids_[i].lb + tie_key(kids_[i], u, rng);
    idx_.resize(kids_.size());
    for (std::size_t i = 0; i < idx_.size(); ++i) idx_[i] = i;
    std::sort(idx_.begin(), idx_.end(), [&](std::size_t a, std::size_t b) { return keys_[a] > keys_[b]; });
    sorted_.clear();
    for (std::size_t i : idx_) sorted_.push_back(std::move(kids_[i]));
    kids_.swap(sorted_);
  }

  // Below 1, so that the bound decides first: the idle time, squeezed into [0, 1), or the noise.
  template <class Rng>
  double tie_key(const open_node& c, std::uniform_real_distribution<double>& u, Rng& rng) {
    if (!guide_pos_.empty()) {
      const double d = guide_distance(c);
      return d / (1.0 + d);
    }
    if (!idle_ties_) return u(rng);
    const double idle = idle_(c);
    return idle / (1.0 + idle);
  }

  // How far from the position the child gives its newly placed job the guide has it: a forward
  // child's job is at its limit1, a backward child's at its limit2.
  double guide_distance(const open_node& c) const {
    const int pos = c.limit1 > parent_limit1_ ? c.limit1 : c.limit2;
    const int job = c.perm[static_cast<std::size_t>(pos)];
    return std::abs(guide_pos_[static_cast<std::size_t>(job)] - pos);
  }

  expander& ex_;
  idle_meter idle_;
  int n_, ub_;
  bool idle_ties_;
  std::vector<int> guide_pos_;
  int parent_limit1_ = -1;
  solve_stats stats_;
  std::vector<open_node> stack_, kids_, sorted_, batch_;
  std::vector<std::vector<open_node>> pushes_;
  std::vector<double> keys_;
  std::vector<std::size_t> idx_;
};

// The schedule of a pfsp result (`pfsp solve --json`: jobs numbered from 1), its makespan
// recomputed.
neh_result guide_from(const instance& inst, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--guide: cannot read " + path);
  const nlohmann::json j = nlohmann::json::parse(in);
  neh_result g;
  for (const int job : j.at("schedule").get<std::vector<int>>()) g.schedule.push_back(job - 1);
  if (static_cast<int>(g.schedule.size()) != inst.n)
    throw std::runtime_error("--guide: not a schedule of " + inst.name);
  g.makespan = evaluate_schedule(inst, g.schedule);
  return g;
}

dive_result dive(const instance& inst, int target, const std::string& way, const config& c) {
  const bound_data data(inst, c.bound == bound_kind::lb1 ? std::vector<std::pair<int, int>>{}
                                                         : learn_pairs(inst, inst.m - 1, target + 1).pairs);
  expander ex(data, c.bound, c.branch);
  diver d(ex, data, target + 1, way == "idle-ties");
  dive_result r;
  if (way == "guided" || way == "follow") {
    r.guide = c.guide_file.empty() ? guide_above(inst, target) : guide_from(inst, c.guide_file);
    if (way == "guided") d.set_guide(r.guide.schedule);
    if (way == "follow") ex.follow(incumbent(r.guide.makespan, r.guide.schedule));  // the solvers' own order
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline =
      t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(c.seconds));
  std::mt19937_64 rng(c.seed);
  if (c.pool > 1 && (way == "dfs" || way == "follow")) {
    d.run_pooled(c.pool, r, deadline);
  } else if (way == "dfs" || way == "idle-ties" || way == "guided" || way == "follow") {
    d.run(0, -1, rng, r, deadline);
  } else if (way == "lds") {
    for (int k = 0; !r.complete && std::chrono::steady_clock::now() < deadline; ++k, ++r.restarts)
      if (d.run(0, -1, rng, r, deadline, k)) break;
  } else {
    while (std::chrono::steady_clock::now() < deadline) {
      ++r.restarts;
      if (d.run(luby(r.restarts) * c.restart_base, c.noise, rng, r, deadline)) break;
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// One row of the table and one JSON object, after the schedule's makespan is recomputed.
void add_run(const instance& inst, int target, const std::string& way, const dive_result& r, const config& c, table& t,
             nlohmann::json& runs) {
  const int check = r.found ? evaluate_schedule(inst, std::vector<int>(r.schedule.begin(), r.schedule.end())) : 0;
  if (r.found && check != r.makespan) throw std::runtime_error(inst.name + ": leaf makespan does not recompute");
  t.add({inst.name, std::to_string(target), way, r.found ? "yes" : (r.complete ? "none (tree done)" : "no"),
         r.found ? std::to_string(check) : "-", std::to_string(r.branched), std::to_string(r.restarts),
         r.guide.makespan ? std::to_string(r.guide.makespan) : "-", fixed(r.seconds, 2)});
  runs.push_back({{"instance", inst.name},
                  {"target", target},
                  {"way", way},
                  {"found", r.found},
                  {"complete", r.complete},
                  {"makespan", check},
                  {"branched", r.branched},
                  {"restarts", r.restarts},
                  {"guide_makespan", r.guide.makespan},
                  {"seconds", r.seconds},
                  {"noise", c.noise},
                  {"restart_base", c.restart_base},
                  {"pool", c.pool},
                  {"bound", to_string(c.bound)},
                  {"branching", to_string(c.branch)}});
}

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  using namespace pfsp;
  CLI::App app{"pfsp_bench_dive: nodes and seconds until a depth-first search finds a schedule of a target makespan"};
  std::string names = "ta021-ta030", bound = "lb1", branch = "min-min", ways = "dfs,restarts", json_path;
  int target_option = 0;
  bench::config c;
  app.add_option("--instances", names, "instances (ta001..ta120, ranges, files)")->capture_default_str();
  app.add_option("--target", target_option, "makespan to reach (0: each instance's proven optimum)");
  app.add_option("--bound", bound, "lb1, lb2 or lb1-lb2 (the chain over m - 1 pairs learned at the target)")
      ->capture_default_str();
  app.add_option("--branching", branch, "forward, backward, min-branch or min-min")->capture_default_str();
  app.add_option("--way", ways, "dfs, idle-ties, lds, guided, follow, restarts (comma-separated)")
      ->capture_default_str();
  app.add_option("--seconds", c.seconds, "seconds per instance and way at most")->capture_default_str();
  app.add_option("--noise", c.noise, "restarts: uniform noise added to each child's bound")->capture_default_str();
  app.add_option("--restart-base", c.restart_base, "restarts: expansions per Luby unit")->capture_default_str();
  app.add_option("--seed", c.seed, "random seed")->capture_default_str();
  app.add_option("--guide", c.guide_file, "guided, follow: the schedule of this pfsp result JSON as the guide");
  app.add_option("--pool", c.pool, "dfs, follow: nodes an iteration pops, the GPU device loop's discipline (1: plain)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24))
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    c.bound = from_string<bound_kind>(bound, "--bound");
    c.branch = from_string<branching>(branch, "--branching");
    for (const std::string& way : bench::split_list(ways))
      if (way != "dfs" && way != "idle-ties" && way != "lds" && way != "guided" && way != "follow" && way != "restarts")
        throw std::runtime_error("--way: expected dfs, idle-ties, lds, guided, follow or restarts, not " + way);
    if (c.pool > 1)
      for (const std::string& way : bench::split_list(ways))
        if (way != "dfs" && way != "follow")
          throw std::runtime_error("--pool: only with --way dfs or follow, not " + way);
    nlohmann::json out = {{"machine", bench::stamp(argc, argv)}, {"runs", nlohmann::json::array()}};
    bench::table t({"instance", "target", "way", "found", "makespan", "nodes", "restarts", "guide", "s"});
    for (const std::string& name : bench::expand_instances(names)) {
      const instance inst = load_instance(name);
      const int target = target_option > 0 ? target_option : (inst.known && inst.known->optimal ? inst.known->ub : 0);
      if (target <= 0) throw std::runtime_error(name + ": give --target (no proven optimum)");
      for (const std::string& way : bench::split_list(ways)) {
        bench::add_run(inst, target, way, bench::dive(inst, target, way, c), c, t, out["runs"]);
        std::cerr << name << " " << way << " done\n";
      }
    }
    std::cout << t.markdown();
    if (!json_path.empty()) bench::write_text_atomically(json_path, out.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "pfsp_bench_dive: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
