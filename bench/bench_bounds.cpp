// pfsp_bench_bounds: single-thread lower bounds per second, per instance size and node depth.
//
// Kernels (what one "bound" is):
//   lb1-inc      LB1 of a child from its parent's parts (child_bound, bound_kind::lb1), as the
//                expander does it: node_parts once per parent, then both directions' children
//                (2 (n - d) bounds); the parent's parts are inside the timing, amortized.
//   lb1-children lb1-inc without the parents' parts: node_parts of every pool node is computed
//                before the clock starts, so this is the O(m) child bound alone (what the
//                search would pay if nodes carried their parts).
//   lb1-scratch  LB1 of a node from scratch: node_parts + node_bound, O(n m) each.
//   lb2          LB2 of a child from its parent's parts (child_bound, bound_kind::lb2,
//                ub = INT_MAX so no pair loop stops early), both directions, parts amortized.
//   lb2-scratch  LB2 of a node from scratch: node_parts + node_bound(lb2, INT_MAX).
//   lb2-nobranch lb2 with the masks form of the pair loop at every depth (scheduled jobs
//                contribute 0 through a mask, no data-dependent `continue`); since commit
//                288127f the solver's lb2 takes this form except near the root (decision 004),
//                so `lb2` against `lb2-nobranch` now measures that choice. Checksums must agree.
// Nodes come from fixed-seed random pools (random_nodes.hpp) so that a GPU benchmark can time
// the same nodes and compare the checksums written to the JSON.
#include <CLI/CLI.hpp>
#include <chrono>
#include <climits>
#include <cstdint>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "problem/instance.hpp"
#include "problem/io.hpp"
#include "random_nodes.hpp"

namespace pfsp::bench {
namespace {

using clock_type = std::chrono::steady_clock;

// Scratch of one evaluator; sized once per instance, so the timed loops do not allocate.
struct workspace {
  explicit workspace(int n, int m) : front(m), back(m), remain(m), scratch(m), flags(n) {}
  std::vector<int> front, back, remain, scratch;
  std::vector<unsigned char> flags;
  std::vector<int> pool_parts;  // lb1-children: front, back, remain of every pool node (3 m each)
};

// Parts of every node of the pool, for lb1-children (outside the timing).
void prepare_parts(bound_view b, const random_node_pool& pool, workspace& w) {
  const int m = b.inst.m;
  w.pool_parts.assign(static_cast<std::size_t>(pool.spec.count) * 3 * m, 0);
  for (int i = 0; i < pool.spec.count; ++i) {
    int* p = w.pool_parts.data() + static_cast<std::size_t>(i) * 3 * m;
    node_parts(b, pool.perm(i), pool.limit1(), pool.limit2(), p, p + m, p + 2 * m);
  }
}

// The masks form of lb2_pairs' pair loop alone (detail::lb2_pairs_form<false>, src/bound/lb2.hpp),
// whatever the node's depth; no early exit (the benchmark uses ub = INT_MAX).
int lb2_pairs_nobranch(bound_view b, const int* front, const int* back, const unsigned char* flags) {
  return detail::lb2_pairs_form<false>(
      b, front, back, [flags](int j) { return flags[j] != 0; }, INT_MAX);
}

// Evaluates node i of the pool with the kernel; returns the number of bounds computed and adds
// the bounds to `sum` (which keeps the compiler from discarding the work, and is the checksum).
std::uint64_t evaluate(const std::string& kernel, bound_view b, const random_node_pool& pool, int i, workspace& w,
                       std::uint64_t& sum) {
  const int n = pool.spec.n;
  const int l1 = pool.limit1(), l2 = pool.limit2();
  const int* perm = pool.perm(i);
  if (kernel == "lb1-children") {
    const int m = b.inst.m;
    const int* front = w.pool_parts.data() + static_cast<std::size_t>(i) * 3 * m;
    const int* back = front + m;
    const int* remain = back + m;
    auto none = [](int) { return false; };  // LB1 does not read the scheduled set
    std::uint64_t s = 0;
    for (int c = l1 + 1; c < l2; ++c) {
      const int job = perm[c];
      s += static_cast<std::uint64_t>(
          child_bound(bound_kind::lb1, b, front, back, remain, none, job, true, INT_MAX, w.scratch.data()));
      s += static_cast<std::uint64_t>(
          child_bound(bound_kind::lb1, b, front, back, remain, none, job, false, INT_MAX, w.scratch.data()));
    }
    sum += s;
    return 2 * static_cast<std::uint64_t>(l2 - l1 - 1);
  }
  node_parts(b, perm, l1, l2, w.front.data(), w.back.data(), w.remain.data());
  const bool nobranch = kernel == "lb2-nobranch";
  const bool lb2 = kernel == "lb2" || kernel == "lb2-scratch" || nobranch;
  if (lb2) {
    for (int p = 0; p < n; ++p) w.flags[perm[p]] = (p <= l1 || p >= l2) ? 1 : 0;
  }
  const unsigned char* flags = w.flags.data();
  auto is_scheduled = [flags](int j) { return flags[j] != 0; };
  if (kernel == "lb1-scratch" || kernel == "lb2-scratch") {
    sum += static_cast<std::uint64_t>(node_bound(lb2 ? bound_kind::lb2 : bound_kind::lb1, b, w.front.data(),
                                                 w.back.data(), w.remain.data(), is_scheduled, INT_MAX));
    return 1;
  }
  const bound_kind kind = lb2 ? bound_kind::lb2 : bound_kind::lb1;
  std::uint64_t s = 0;
  if (nobranch) {
    // As child_bound(lb2): LB1 of the child, its front/back, then the pairs with the child's
    // job also marked scheduled.
    const instance_view inst = b.inst;
    std::vector<int>& child = w.scratch;
    for (int c = l1 + 1; c < l2; ++c) {
      const int job = perm[c];
      w.flags[job] = 1;
      const int f1 = lb1_forward_child(inst, w.front.data(), w.back.data(), w.remain.data(), job);
      front_after(inst, w.front.data(), job, child.data());
      const int f2 = lb2_pairs_nobranch(b, child.data(), w.back.data(), w.flags.data());
      s += static_cast<std::uint64_t>(f2 > f1 ? f2 : f1);
      const int b1 = lb1_backward_child(inst, w.front.data(), w.back.data(), w.remain.data(), job, child.data());
      const int b2 = lb2_pairs_nobranch(b, w.front.data(), child.data(), w.flags.data());
      s += static_cast<std::uint64_t>(b2 > b1 ? b2 : b1);
      w.flags[job] = 0;
    }
    sum += s;
    return 2 * static_cast<std::uint64_t>(l2 - l1 - 1);
  }
  for (int c = l1 + 1; c < l2; ++c) {
    const int job = perm[c];
    s += static_cast<std::uint64_t>(child_bound(kind, b, w.front.data(), w.back.data(), w.remain.data(), is_scheduled,
                                                job, true, INT_MAX, w.scratch.data()));
    s += static_cast<std::uint64_t>(child_bound(kind, b, w.front.data(), w.back.data(), w.remain.data(), is_scheduled,
                                                job, false, INT_MAX, w.scratch.data()));
  }
  sum += s;
  return 2 * static_cast<std::uint64_t>(l2 - l1 - 1);
}

struct measurement {
  std::uint64_t bounds = 0;
  double seconds = 0;
  double cpu_seconds = 0;  // thread CPU time: below `seconds` when the core was shared
  double per_second() const { return seconds > 0 ? static_cast<double>(bounds) / seconds : 0; }
};

// Cycles through the pool until `seconds` have passed (at least one node). The clock is read
// once per >= 256 bounds so that reading it costs nothing measurable.
measurement time_kernel(const std::string& kernel, bound_view b, const random_node_pool& pool, double seconds,
                        workspace& w, std::uint64_t& sink) {
  measurement r;
  const double c0 = thread_cpu_seconds();
  const auto t0 = clock_type::now();
  std::uint64_t since_check = 0;
  int i = 0;
  for (;;) {
    const std::uint64_t k = evaluate(kernel, b, pool, i, w, sink);
    r.bounds += k;
    since_check += k;
    if (++i == pool.spec.count) i = 0;
    if (since_check >= 256 || i == 0) {
      since_check = 0;
      r.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
      if (r.seconds >= seconds) break;
    }
  }
  r.cpu_seconds = thread_cpu_seconds() - c0;
  return r;
}

struct cell_key {
  std::string instance;
  double fraction;
  std::string variant;
};

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  using namespace pfsp;
  using namespace pfsp::bench;
  CLI::App app{"pfsp_bench_bounds: single-thread lower bounds per second (LB1 incremental and from scratch, LB2)"};
  std::string instances = "ta021,ta051,ta081,ta101,ta111";
  std::string depths = "0,0.25,0.5,0.75,0.9";
  std::string variants = "prefix,suffix,split";
  std::string kernels = "lb1-inc,lb1-children,lb1-scratch,lb2";
  double seconds = 0.3;
  int repeat = 3;
  int pool_size = 256;
  std::uint64_t seed = 20240601;
  int checksum_nodes = 16;
  std::string json_path, commit;
  app.add_option("--instances", instances, "comma list: ta001..ta120, ranges ta021-ta030, random:N,M,SEED, files")
      ->capture_default_str();
  app.add_option("--depths", depths, "fractions of the n jobs scheduled")->capture_default_str();
  app.add_option("--variants", variants, "prefix (all in front), suffix (all at the back), split (half and half)")
      ->capture_default_str();
  // --kernels names this program's ways of timing a bound (the list at the top of the file), not
  // an enum of the product: bound_kind's lb1/lb2 are only part of them (lb1-inc, lb1-children and
  // lb1-scratch all compute bound_kind::lb1), so it stays a string list checked below. Options
  // that are product enums take their names from base/enum_names.hpp via app/enum_options.hpp
  // (pfsp_bench_solve, pfsp_bench_checkpoint, pfsp_gpu_bench, pfsp_gpu_clock); this program has none.
  app.add_option("--kernels", kernels,
                 "lb1-inc, lb1-children, lb1-scratch, lb2, lb2-scratch, lb2-nobranch (experiment)")
      ->capture_default_str();
  app.add_option("--seconds", seconds, "time per cell and repeat")->capture_default_str();
  app.add_option("--repeat", repeat, "repeats per cell; the median is reported")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--pool", pool_size, "random nodes per (instance, depth, variant)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the node pools")->capture_default_str();
  app.add_option("--checksum-nodes", checksum_nodes,
                 "nodes of each pool summed into the checksum (for CPU/GPU comparison)")
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON to this file");
  app.add_option("--commit", commit, "commit to stamp (default: the one this binary was built from)");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json out;
  out["benchmark"] = "pfsp_bench_bounds";
  out["machine"] = stamp(argc, argv, commit);
  out["parameters"] = {{"seconds", seconds},
                       {"repeat", repeat},
                       {"pool", pool_size},
                       {"seed", seed},
                       {"threads", 1},
                       {"checksum_nodes", checksum_nodes},
                       {"node_generator", "bench/random_nodes.hpp (splitmix64 Fisher-Yates)"}};
  out["results"] = nlohmann::json::array();

  const auto kernel_list = split_list(kernels);
  for (const auto& k : kernel_list)
    if (k != "lb1-inc" && k != "lb1-children" && k != "lb1-scratch" && k != "lb2" && k != "lb2-scratch" &&
        k != "lb2-nobranch") {
      std::cerr << "unknown kernel '" << k << "'\n";
      return 2;
    }
  std::vector<std::string> headers{"instance", "n x m", "depth", "variant", "prefix+suffix"};
  for (const auto& k : kernel_list) {
    headers.push_back(k + " Mb/s");
    headers.push_back(k + " ns");
  }
  headers.push_back("cpu/wall");
  table tab(headers);
  std::uint64_t sink = 0;

  for (const auto& name : expand_instances(instances)) {
    const instance inst = load_instance(name);
    const bound_data data(inst);
    const bound_view b = data.view();
    workspace w(inst.n, inst.m);
    for (const auto& fs : split_list(depths)) {
      const double fraction = std::stod(fs);
      for (const auto& variant : split_list(variants)) {
        const node_pool_spec spec = depth_spec(inst.n, fraction, variant, pool_size, seed);
        // At depth 0 the variants are the same node set; time it once.
        if (spec.prefix + spec.suffix == 0 && variant != split_list(variants).front()) continue;
        const random_node_pool pool = make_node_pool(spec);
        prepare_parts(b, pool, w);
        std::vector<std::string> row{inst.name, std::to_string(inst.n) + "x" + std::to_string(inst.m), fs,
                                     spec.prefix + spec.suffix == 0 ? "root" : variant,
                                     std::to_string(spec.prefix) + "+" + std::to_string(spec.suffix)};
        std::map<std::string, std::vector<double>> rates;
        std::map<std::string, std::vector<measurement>> runs;
        std::vector<double> shares;  // cpu / wall of every measurement of the cell
        for (int r = 0; r < repeat; ++r)
          for (const auto& k : kernel_list) {
            const measurement mm = time_kernel(k, b, pool, seconds, w, sink);
            rates[k].push_back(mm.per_second());
            runs[k].push_back(mm);
            shares.push_back(mm.seconds > 0 ? mm.cpu_seconds / mm.seconds : 0);
          }
        for (const auto& k : kernel_list) {
          std::uint64_t checksum = 0;
          for (int i = 0; i < std::min(checksum_nodes, pool_size); ++i) evaluate(k, b, pool, i, w, checksum);
          const double rate = median(rates[k]);
          row.push_back(fixed(rate / 1e6, rate >= 1e7 ? 1 : 3));
          row.push_back(fixed(rate > 0 ? 1e9 / rate : 0, 1));
          nlohmann::json rj;
          rj["instance"] = inst.name;
          rj["n"] = inst.n;
          rj["m"] = inst.m;
          rj["depth_fraction"] = fraction;
          rj["variant"] = spec.prefix + spec.suffix == 0 ? "root" : variant;
          rj["prefix"] = spec.prefix;
          rj["suffix"] = spec.suffix;
          rj["limit1"] = pool.limit1();
          rj["limit2"] = pool.limit2();
          rj["kernel"] = k;
          rj["bounds_per_second"] = rate;
          rj["ns_per_bound"] = rate > 0 ? 1e9 / rate : 0;
          std::vector<double> cpu_rates;
          for (const auto& mm : runs[k])
            cpu_rates.push_back(mm.cpu_seconds > 0 ? static_cast<double>(mm.bounds) / mm.cpu_seconds : 0);
          // Per second of thread CPU time: less sensitive to a shared core than wall time.
          rj["bounds_per_cpu_second"] = median(cpu_rates);
          rj["repeats"] = nlohmann::json::array();
          for (const auto& mm : runs[k])
            rj["repeats"].push_back({{"bounds", mm.bounds},
                                     {"seconds", mm.seconds},
                                     {"cpu_seconds", mm.cpu_seconds},
                                     {"bounds_per_second", mm.per_second()}});
          rj["checksum"] = checksum;
          out["results"].push_back(rj);
        }
        row.push_back(fixed(median(shares), 2));
        tab.add(row);
        std::cerr << "." << std::flush;
      }
    }
  }
  std::cerr << "\n";
  const load_average l = read_load();
  out["machine"]["load_at_end"] = {l.one, l.five, l.fifteen};
  out["sink"] = sink;  // the accumulated bounds: printed, so the work cannot be optimized away

  std::cout << "# pfsp_bench_bounds  commit " << out["machine"]["commit"].get<std::string>() << "  cpu "
            << out["machine"]["cpu"].get<std::string>() << "  gpu none  host "
            << out["machine"]["hostname"].get<std::string>() << "\n# " << out["machine"]["command"].get<std::string>()
            << "\n# single thread; Mb/s = million bounds per second"
            << " (median of " << repeat << " x " << seconds << " s); ns = nanoseconds per bound; load "
            << fixed(out["machine"]["load_at_start"][0].get<double>(), 2) << " -> " << fixed(l.one, 2) << "\n\n"
            << tab.markdown() << "\n(sink " << sink << ")\n";
  if (!json_path.empty()) write_text_atomically(json_path, out.dump(2) + "\n");
  return 0;
}
