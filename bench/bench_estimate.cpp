// pfsp_bench_estimate: the size of the tree a proof from a fixed upper bound branches, estimated
// before running it (search/estimator.hpp: stratified probes, Chen 1992; Knuth's with
// --gap-width 0), on one CPU core, over the solver's own expander with the configuration the
// GPU device loop uses by default below 200 jobs: the LB1 -> LB2 chain over the m - 1 pairs
// learned at the same ub, MinMin branching. Each instance gets probes until --probes or
// --seconds is reached; the table gives their mean, its 95 % interval, the median and the range.
//
// Checks: --exact-limit L counts the same tree exactly by depth-first search (up to L nodes), and
// --actual FILE (CSV: instance,ub,bound,pairs,branching,nodes,source) gives node counts of
// completed proofs measured elsewhere (the GPU device loop) to compare with.
//
//   pfsp_bench_estimate --instances ta021-ta030 --seconds 20 --actual bench/data/tree_sizes.csv
//   pfsp_bench_estimate --instances ta052,ta053,ta056,ta057,ta058 --seconds 60
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bound/bound_data.hpp"
#include "bound/pair_learning.hpp"
#include "problem/instance.hpp"
#include "problem/io.hpp"
#include "search/estimator.hpp"

namespace pfsp::bench {
namespace {

struct config {
  bound_kind bound = bound_kind::lb1_lb2;
  std::string pairs = "learn";  // learn (m - 1 pairs learned at ub), all, adjacent
  branching branch = branching::min_min;
  int gap_width = 1;
  int slots = 1;
  bool by_front = false;
  bool dominance = false;  // the expander's swap dominance (bound/dominance.hpp; off on the GPU by default)
  int probes = 1000;
  double seconds = 20;
  std::uint64_t seed = 1;
  std::uint64_t exact_limit = 0;
  std::uint64_t trace_every = 0;  // with --exact-limit: a snapshot of the closed tree weight every this many nodes
};

// Node counts of completed proofs: key "instance,ub,bound,pairs,branching" -> nodes.
std::map<std::string, std::pair<double, std::string>> read_actual(const std::string& path) {
  std::map<std::string, std::pair<double, std::string>> a;
  if (path.empty()) return a;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--actual " + path + ": cannot open");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("instance,", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() < 6) continue;
    a[f[0] + "," + f[1] + "," + f[2] + "," + f[3] + "," + f[4]] = {std::stod(f[5]), f.size() > 6 ? f[6] : ""};
  }
  return a;
}

std::vector<std::pair<int, int>> lb2_pairs(const instance& inst, const std::string& spec, int ub) {
  if (spec == "all") return {};
  if (spec == "adjacent") return bound_data::adjacent_pairs(inst.m);
  if (spec == "learn") return learn_pairs(inst, inst.m - 1, ub).pairs;
  throw std::runtime_error("--lb2-pairs: expected learn, all or adjacent");
}

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

nlohmann::json estimate_one(const instance& inst, int ub, const config& c, double actual, table& t) {
  const auto t0 = std::chrono::steady_clock::now();
  const bound_data data(inst,
                        c.bound == bound_kind::lb1 ? std::vector<std::pair<int, int>>{} : lb2_pairs(inst, c.pairs, ub));
  expander ex(data, c.bound, c.branch, false, c.dominance);
  std::mt19937_64 rng(c.seed);
  std::vector<probe_estimate> ps;
  double seconds = 0;
  const probe_options po{.ub = ub, .gap_width = c.gap_width, .slots = c.slots, .by_front = c.by_front};
  while (static_cast<int>(ps.size()) < c.probes && seconds < c.seconds) {
    ps.push_back(stratified_probe(ex, po, rng));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const tree_estimate_summary s = summarize_probes(ps);
  std::vector<double> each;
  for (const probe_estimate& p : ps) each.push_back(p.branched);
  nlohmann::json r = {{"instance", inst.name},
                      {"n", inst.n},
                      {"m", inst.m},
                      {"ub", ub},
                      {"bound", to_string(c.bound)},
                      {"lb2_pairs", c.pairs},
                      {"branching", to_string(c.branch)},
                      {"gap_width", c.gap_width},
                      {"slots", c.slots},
                      {"by_front", c.by_front},
                      {"dominance", c.dominance},
                      {"probes", s.probes},
                      {"mean", s.mean},
                      {"std_error", s.std_error},
                      {"ci95", {s.low, s.high}},
                      {"median", s.median},
                      {"min", s.min},
                      {"max", s.max},
                      {"expansions", s.expansions},
                      {"seconds", seconds},
                      {"by_depth", s.by_depth},
                      {"each", each}};
  std::string exact = "-";
  if (c.exact_limit > 0) {
    const auto e0 = std::chrono::steady_clock::now();
    nlohmann::json trace = nlohmann::json::array();
    const exact_count e = count_tree(ex, ub, c.exact_limit, c.trace_every, [&](std::uint64_t b, double closed) {
      trace.push_back({{"branched", b},
                       {"tree_done", closed},
                       {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count()}});
    });
    const double es = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
    r["exact"] = {{"branched", e.branched},
                  {"complete", e.complete},
                  {"seconds", es},
                  {"trace", trace},
                  {"by_depth", e.by_depth}};
    if (e.complete) {
      actual = static_cast<double>(e.branched);
      exact = "dfs";
    } else {
      exact = "> " + std::to_string(e.branched);
    }
  }
  if (actual > 0) r["actual"] = actual;
  t.add({inst.name, std::to_string(ub), std::to_string(s.probes), sci(s.mean), sci(s.low) + " - " + sci(s.high),
         sci(s.median), fixed(s.mean > 0 ? s.std_error / s.mean : 0, 3), actual > 0 ? sci(actual) : exact,
         actual > 0 ? fixed(s.mean / actual, 3) : "-", fixed(seconds, 1)});
  return r;
}

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  using namespace pfsp;
  CLI::App app{"pfsp_bench_estimate: tree sizes from a fixed upper bound, estimated by stratified probes"};
  std::string names = "ta021-ta030", json_path, actual_path, bound = "lb1-lb2", branch = "min-min";
  int ub_option = 0, ub_offset = 0;
  bench::config c;
  app.add_option("--instances", names, "instances (ta001..ta120, ranges, files)")->capture_default_str();
  app.add_option("--ub", ub_option, "pruning threshold (0: each instance's best known upper bound)");
  app.add_option("--ub-offset", ub_offset, "added to the best known upper bound when --ub is 0")->capture_default_str();
  app.add_option("--bound", bound, "lb1, lb2 or lb1-lb2")->capture_default_str();
  app.add_option("--lb2-pairs", c.pairs, "learn (m - 1 pairs learned at ub, as the device loop), all, adjacent")
      ->capture_default_str();
  app.add_option("--branching", branch, "forward, backward, min-branch or min-min")->capture_default_str();
  app.add_option("--gap-width", c.gap_width, "type = (depth, (ub - lb) / W); 0: Knuth's one type a depth")
      ->capture_default_str();
  app.add_option("--slots", c.slots, "representatives a type (each type split at random into this many)")
      ->capture_default_str();
  app.add_flag("--by-front", c.by_front, "types split by the jobs scheduled in front too");
  app.add_flag("--dominance", c.dominance, "the expander prunes by swap dominance too (the CPU's default)");
  app.add_option("--probes", c.probes, "probes per instance at most")->capture_default_str();
  app.add_option("--seconds", c.seconds, "seconds of probes per instance at most")->capture_default_str();
  app.add_option("--seed", c.seed, "random seed")->capture_default_str();
  app.add_option("--exact-limit", c.exact_limit, "also count the tree exactly, up to this many nodes (0: no)")
      ->capture_default_str();
  app.add_option("--trace-every", c.trace_every,
                 "with --exact-limit: record the closed tree weight every this many nodes (JSON exact.trace)")
      ->capture_default_str();
  app.add_option("--actual", actual_path,
                 "CSV of measured node counts: instance,ub,bound,pairs,branching,nodes,source");
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    c.bound = from_string<bound_kind>(bound, "--bound");
    c.branch = from_string<branching>(branch, "--branching");
    const auto actual = bench::read_actual(actual_path);
    nlohmann::json out = {{"machine", bench::stamp(argc, argv)}, {"runs", nlohmann::json::array()}};
    bench::table t(
        {"instance", "ub", "probes", "estimate", "95% interval", "median", "rel. s.e.", "actual", "est/actual", "s"});
    for (const std::string& name : bench::expand_instances(names)) {
      const instance inst = load_instance(name);
      const int ub = ub_option > 0 ? ub_option : (inst.known ? inst.known->ub + ub_offset : 0);
      if (ub <= 0) {
        std::cerr << name << ": give --ub (no best known)\n";
        return 2;
      }
      const std::string pairs = c.bound == bound_kind::lb1 ? "-" : c.pairs;
      const auto it = actual.find(inst.name + "," + std::to_string(ub) + "," + bound + "," + pairs + "," + branch);
      out["runs"].push_back(bench::estimate_one(inst, ub, c, it == actual.end() ? 0.0 : it->second.first, t));
      std::cerr << name << " done\n";
    }
    std::cout << t.markdown();
    if (!json_path.empty()) bench::write_text_atomically(json_path, out.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "pfsp_bench_estimate: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
