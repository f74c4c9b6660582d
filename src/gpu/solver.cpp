#include "gpu/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <vector>

#include "base/error.hpp"
#include "gpu/bounder.hpp"
#include "gpu/host_bounder.hpp"
#include "gpu/host_workers.hpp"
#include "gpu/node_store.hpp"
#include "problem/makespan.hpp"
#include "search/expander.hpp"
#include "search/incumbent_feed.hpp"

namespace pfsp::gpu {
namespace {

using steady = std::chrono::steady_clock;

double since(steady::time_point t0) { return std::chrono::duration<double>(steady::now() - t0).count(); }

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

struct launch_config {
  std::size_t pool = 0;
  int threads_per_block = 0;
  bool operator==(const launch_config&) const = default;
};

// Run-time choice of the pool size and block size (CCPE 6.3: the best pool depends on the
// instance and has to be tuned at run time). Tries each candidate, smallest pools first, for a
// few full pools (after one to settle the pipeline) and keeps the highest rate of children
// bounded and processed per second of wall time.
class pool_tuner {
 public:
  // Largest pool any candidate can ask for (sizes the buffers before the block size is known).
  static std::size_t max_pool(const gpu_policy& p) { return p.pool_size ? p.pool_size : kMaxPoolSize; }

  pool_tuner(const gpu_policy& p, int occupancy_tpb) {
    std::vector<std::size_t> pools;
    if (p.pool_size)
      pools = {p.pool_size};
    else
      pools.assign(p.host.pools.begin(), p.host.pools.end());
    std::vector<int> tpbs;
    if (p.threads_per_block)
      tpbs = {p.threads_per_block};
    else
      tpbs.assign(p.host.blocks.begin(), p.host.blocks.end());
    if (!p.threads_per_block && std::find(tpbs.begin(), tpbs.end(), occupancy_tpb) == tpbs.end())
      tpbs.push_back(occupancy_tpb);
    for (std::size_t pool : pools)
      for (int t : tpbs)
        if (static_cast<std::size_t>(t) <= pool) candidates_.push_back({pool, t});
    if (candidates_.empty()) candidates_.push_back({pools.front(), tpbs.front()});
    measures_.resize(candidates_.size());
    tuning_ = candidates_.size() > 1;
    chosen_ = candidates_.back();
    batches_ = p.host.batches;
    max_misses_ = p.host.max_misses;
  }

  launch_config current() const { return tuning_ ? candidates_[idx_] : chosen_; }

  void record(const launch_config& used, std::size_t children, double seconds) {
    if (!tuning_ || !(used == candidates_[idx_])) return;
    measure& m = measures_[idx_];
    if (2 * children < used.pool) {  // the open nodes could not fill this pool
      if (++m.misses > max_misses_) finish(true);
      return;
    }
    if (!m.settled) {
      m.settled = true;
      return;
    }
    m.children += static_cast<double>(children);
    m.seconds += seconds;
    if (++m.batches >= batches_) {
      if (++idx_ == candidates_.size()) finish(false);
    }
  }

  // Called at the end: reports what was chosen and measured.
  std::string note() const {
    std::ostringstream s;
    if (candidates_.size() == 1) {
      s << "pool " << chosen_.pool
        << " children = " << (chosen_.pool + chosen_.threads_per_block - 1) / chosen_.threads_per_block << " blocks x "
        << chosen_.threads_per_block << " threads (set by the user)";
      return s.str();
    }
    const launch_config c = current();
    s << "auto-tuned pool " << c.pool << " children = " << (c.pool + c.threads_per_block - 1) / c.threads_per_block
      << " blocks x " << c.threads_per_block << " threads"
      << (tuning_ ? " (tuning unfinished: the search ended first)" : "") << "; measured";
    bool any = false;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (measures_[i].batches == 0) continue;
      s << (any ? ", " : " ") << candidates_[i].pool << "x" << candidates_[i].threads_per_block << ": "
        << fixed(measures_[i].children / measures_[i].seconds / 1e6, 1) << " M children/s";
      any = true;
    }
    if (!any) s << " nothing";
    return s.str();
  }

  void finish(bool stopped_early) {
    (void)stopped_early;
    tuning_ = false;
    double best = -1;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      const measure& m = measures_[i];
      if (m.batches == 0 || m.seconds <= 0) continue;
      const double rate = m.children / m.seconds;
      if (rate > best) {
        best = rate;
        chosen_ = candidates_[i];
      }
    }
    if (best < 0) chosen_ = candidates_[std::min(idx_, candidates_.size() - 1)];
  }

 private:
  struct measure {
    bool settled = false;
    int batches = 0, misses = 0;
    double children = 0, seconds = 0;
  };
  std::vector<launch_config> candidates_;
  std::vector<measure> measures_;
  std::size_t idx_ = 0;
  bool tuning_ = false;
  launch_config chosen_;
  int batches_ = 3, max_misses_ = 24;
};

struct host_phase_times {
  double select = 0, branch = 0, wait = 0, prune = 0;
};

// The host loop (CCPE Fig. 2) on one bounder: the root bounded on the host, then pools selected
// from the bucket store, bounded on the GPU (two slots: the host selects and launches pool k+1
// while the GPU bounds pool k), pruned and branched by the host threads.
template <class Job, class Bounder>
class host_loop {
 public:
  host_loop(const bound_data& data, const solve_options& opt, const gpu_policy& policy_in, const incumbent& start)
      : data_(data),
        opt_(opt),
        ctl_(opt),
        n_(data.view().inst.n),
        best_(start),
        threshold_(initial_threshold(opt, best_)),
        policy_(normalized(policy_in)),
        setup_start_(ctl_.elapsed()),
        bd_(data, opt.bound, opt.branch, policy_,
            std::max<std::size_t>(pool_tuner::max_pool(policy_), 2 * static_cast<std::size_t>(n_))),
        setup_seconds_(ctl_.elapsed() - setup_start_),
        tuner_(policy_, bd_.occupancy_threads_per_block()),
        T_(policy_.host_threads),
        workers_(T_),
        weights_(subtree_weights(n_)),
        stats_(static_cast<std::size_t>(T_)),
        root_lb_(bound_root()),
        store_(n_, T_, root_lb_, threshold_),
        dirs_(bd_.directions()),
        slots_(static_cast<std::size_t>(bd_.slots())),
        leaf_bufs_(static_cast<std::size_t>(T_), std::vector<Job>(static_cast<std::size_t>(n_))),
        part_perms_(static_cast<std::size_t>(T_)),
        part_limits_(static_cast<std::size_t>(T_)),
        parts_(static_cast<std::size_t>(T_)) {
    seed_root();
  }

  // Select and launch on one slot, process the other, until the store and the slots are empty
  // or a limit stops the search.
  solve_result run() {
    solve_status stop = solve_status::optimal;
    int s = 0;
    for (;;) {
      const bool launched = stop == solve_status::optimal && !store_.empty() && launch(s);
      const int other = bd_.slots() == 2 ? (s ^ 1) : s;
      if (slots_[static_cast<std::size_t>(other)].inflight) process(other);
      bool busy = false;
      for (const auto& ss : slots_) busy = busy || ss.inflight;
      if (!launched && !busy && (stop != solve_status::optimal || store_.empty())) break;
      if (bd_.slots() == 2) s ^= 1;
      if (stop == solve_status::optimal) {
        const std::uint64_t branched = total_branched();
        take_feed();
        stop = ctl_.check(branched);
        ctl_.maybe_report({0, branched, best_.value(), store_.size(), total_explored()});
      }
    }
    return finish(stop);
  }

 private:
  struct slot_state {
    bool inflight = false;
    std::size_t parents = 0;
    int ub = 0;
    launch_config cfg;
  };

  static gpu_policy normalized(const gpu_policy& in) {
    gpu_policy policy = in;
    policy.host_threads = std::max(1, policy.host_threads);
    policy.streams = std::clamp(policy.streams, 1, 2);
    if (policy.pool_size && (policy.pool_size < 64 || policy.pool_size > (std::size_t{1} << 24)))
      throw input_error("--pool-size must be between 64 and 16777216 children");
    return policy;
  }

  int ub_now() const { return std::min(threshold_, best_.value()); }

  // The root is bounded on the host by the same code (one node is no pool).
  int bound_root() const {
    std::vector<job_t> identity(static_cast<std::size_t>(n_));
    std::iota(identity.begin(), identity.end(), 0);
    expander root_ex(data_, opt_.bound, opt_.branch, false, opt_.dominance);
    return root_ex.root_bound(identity.data(), -1, n_, ub_now());
  }

  void seed_root() {
    ++stats_[0].bounds;
    if (root_lb_ < ub_now()) {
      std::vector<Job> root(static_cast<std::size_t>(n_));
      std::iota(root.begin(), root.end(), Job{0});
      store_.push(0, root.data(), -1, n_, root_lb_);
    } else {
      ++stats_[0].pruned;
      stats_[0].explored += 1.0;
    }
  }

  // The order of the next pool: hybrid is best-first until hybrid_max open nodes, then
  // depth-first down to hybrid_min (CCPE 5.1).
  select_order next_order(const launch_config& cfg) {
    const std::size_t open = store_.size();
    const std::size_t hmax = policy_.hybrid_max ? policy_.hybrid_max : 8 * cfg.pool;
    const std::size_t hmin = policy_.hybrid_min ? policy_.hybrid_min : cfg.pool;
    if (best_phase_ && open >= hmax) best_phase_ = false;
    if (!best_phase_ && open <= hmin) best_phase_ = true;
    switch (policy_.select) {
      case pool_selection::hybrid:
        return best_phase_ ? select_order::best : select_order::deepest;
      case pool_selection::depth_first:
        return select_order::deepest;
      case pool_selection::best_first:
        return select_order::best;
      case pool_selection::breadth_first:
        return select_order::shallowest;
    }
    return select_order::deepest;
  }

  // Selects a pool into slot s and submits it; false when the store gave no parent.
  bool launch(int s) {
    const launch_config cfg = tuner_.current();
    const select_order order = next_order(cfg);
    auto t0 = steady::now();
    const int ub = ub_now();
    const selection_result sel = select_pool(order, cfg, ub, s);
    stats_[0].pruned += sel.pruned;
    stats_[0].explored += sel.explored;
    ht_.select += since(t0);
    if (sel.parents == 0) return false;
    t0 = steady::now();
    slot_state& ss = slots_[static_cast<std::size_t>(s)];
    ss.inflight = true;
    ss.parents = sel.parents;
    ss.ub = ub;
    ss.cfg = cfg;
    bd_.submit_children(s, sel.parents, ub, cfg.threads_per_block);
    ht_.branch += since(t0);
    return true;
  }

  // Pool selection. With several host threads each worker takes its share of the pool from its
  // own shard of the store (each shard is then searched in the chosen order), the shares are
  // gathered into the staging buffer, and a last sequential pass over all shards fills what a
  // drained shard left empty.
  selection_result select_pool(select_order order, const launch_config& cfg, int ub, int s) {
    const std::size_t perm_len = static_cast<std::size_t>(n_);
    const int T = T_;
    Job* stage_perms = static_cast<Job*>(bd_.perms(s));
    std::uint32_t* stage_limits = bd_.limits(s);
    const std::size_t pool = std::max(cfg.pool, 2 * perm_len);
    const std::size_t share_children = pool / static_cast<std::size_t>(T);
    const std::size_t share_parents = bd_.max_parents() / static_cast<std::size_t>(T);
    selection_result total;
    if (T > 1 && share_children >= 8 * perm_len) {
      workers_.run_each([&](int w, std::size_t, std::size_t) {
        auto& pp = part_perms_[static_cast<std::size_t>(w)];
        auto& pl = part_limits_[static_cast<std::size_t>(w)];
        pp.resize(share_parents * perm_len);
        pl.resize(share_parents);
        parts_[static_cast<std::size_t>(w)] = store_.select(order, share_parents, share_children, dirs_, ub,
                                                            weights_.data(), pp.data(), pl.data(), w, w + 1);
      });
      std::vector<std::size_t> at(static_cast<std::size_t>(T) + 1, 0);
      for (int w = 0; w < T; ++w) {
        const selection_result& r = parts_[static_cast<std::size_t>(w)];
        at[static_cast<std::size_t>(w) + 1] = at[static_cast<std::size_t>(w)] + r.parents;
        total.children += r.children;
        total.pruned += r.pruned;
        total.explored += r.explored;
      }
      workers_.run_each([&](int w, std::size_t, std::size_t) {
        const std::size_t from = at[static_cast<std::size_t>(w)], count = parts_[static_cast<std::size_t>(w)].parents;
        std::copy_n(part_perms_[static_cast<std::size_t>(w)].data(), count * perm_len, stage_perms + from * perm_len);
        std::copy_n(part_limits_[static_cast<std::size_t>(w)].data(), count, stage_limits + from);
      });
      total.parents = at[static_cast<std::size_t>(T)];
    }
    if (10 * total.children < 9 * pool && !store_.empty()) {
      const selection_result r =
          store_.select(order, bd_.max_parents() - total.parents, pool - total.children, dirs_, ub, weights_.data(),
                        stage_perms + total.parents * perm_len, stage_limits + total.parents);
      total.parents += r.parents;
      total.children += r.children;
      total.pruned += r.pruned;
      total.explored += r.explored;
    }
    return total;
  }

  // Choose each parent's direction, prune its children, keep the survivors (CCPE Fig. 2's
  // elimination on the CPU). Worker w pushes into shard w of the store.
  // What process() reads of a waited-for pool: the bounds, child offsets, parents and the upper
  // bound the pool was launched with.
  struct pool_result {
    const int* bounds;
    const std::uint32_t* off;
    const Job* perms;
    const std::uint32_t* lim;
    int launch_ub;
  };

  // Parent p of the pool, on worker w: its direction (the branching rule on both directions'
  // bounds), then each child pruned, offered to the incumbent as a leaf, or pushed.
  void branch_parent(int w, const pool_result& pr, std::size_t p, Job* leaf, int& ub, solve_stats& st) {
    const int n = n_, dirs = dirs_;
    const int l1 = limit1_of(pr.lim[p]), l2 = limit2_of(pr.lim[p]);
    const int first = l1 + 1, count = l2 - first;
    const int child_depth = first + (n - l2) + 1;
    const int* fwd = pr.bounds + pr.off[p];
    const int* bwd = dirs == 2 ? fwd + count : fwd;
    const bool forward = choose_forward(opt_.branch, fwd, bwd, count, pr.launch_ub);
    const int* lbs = forward ? fwd : bwd;
    const int to = forward ? first : l2 - 1;
    const int nl1 = forward ? l1 + 1 : l1, nl2 = forward ? l2 : l2 - 1;
    const Job* perm = pr.perms + p * static_cast<std::size_t>(n);
    ++st.branched;
    st.bounds += static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(dirs);
    ub = std::min(ub, best_.value());
    for (int c = 0; c < count; ++c) {
      const int lb = lbs[c];
      if (lb >= ub) {
        ++st.pruned;
        st.explored += weights_[static_cast<std::size_t>(child_depth)];
      } else if (count == 1) {
        ++st.leaves;
        st.explored += weights_[static_cast<std::size_t>(child_depth)];
        std::copy(perm, perm + n, leaf);
        std::swap(leaf[first + c], leaf[to]);
        if (best_.offer(lb, leaf, n)) ub = std::min(ub, lb);
      } else {
        store_.push_child(w, perm, first + c, to, nl1, nl2, lb);
      }
    }
  }

  // The feed's incumbent (solve_options::feed: e.g. iterated greedy on the CPU cores), when
  // better: re-evaluated, then the workers prune at it from the next pool on.
  void take_feed() {
    if (!opt_.feed || opt_.feed->best_value() >= best_.value()) return;
    const std::vector<int> sched = opt_.feed->best_schedule();
    const auto inst = data_.view().inst;
    if (static_cast<int>(sched.size()) != n_) return;
    std::vector<int> scratch(static_cast<std::size_t>(inst.m));
    const int cmax = makespan(inst, sched.data(), scratch.data());
    if (best_.offer(cmax, sched.data(), n_)) ++feed_improvements_;
  }

  // An improving leaf of the last pool to the feed, as a seed.
  void seed_feed(int before) {
    if (!opt_.feed) return;
    const auto [value, schedule] = best_.snapshot();
    if (value < before && !schedule.empty()) opt_.feed->offer_seed(schedule, value);
  }

  // Waits for slot s's pool and branches its parents on the host workers.
  void process(int s) {
    const int best_before = best_.value();
    slot_state& ss = slots_[static_cast<std::size_t>(s)];
    auto t0 = steady::now();
    const int* bounds = bd_.wait(s);
    ht_.wait += since(t0);
    t0 = steady::now();
    const pool_result pr{bounds, bd_.offsets(s), static_cast<const Job*>(bd_.perms(s)), bd_.limits(s), ss.ub};
    workers_.run(ss.parents, [&](int w, std::size_t begin, std::size_t end) {
      solve_stats st;  // local: workers' counters would share cache lines
      Job* leaf = leaf_bufs_[static_cast<std::size_t>(w)].data();
      int ub = ub_now();
      for (std::size_t p = begin; p < end; ++p) branch_parent(w, pr, p, leaf, ub, st);
      stats_[static_cast<std::size_t>(w)] += st;
    });
    ht_.prune += since(t0);
    seed_feed(best_before);
    ss.inflight = false;
    const std::size_t kids = bd_.children(s);
    ++pools_;
    children_total_ += kids;
    tuner_.record(ss.cfg, kids, since(last_done_));
    last_done_ = steady::now();
  }

  std::uint64_t total_branched() const {
    std::uint64_t b = 0;
    for (const auto& st : stats_) b += st.branched;
    return b;
  }
  double total_explored() const {
    double e = 0;
    for (const auto& st : stats_) e += st.explored;
    return e;
  }

  // The result: statistics, backend string, the tuner's choice, pools, and --profile's times.
  solve_result finish(solve_status stop) {
    solve_stats total;
    for (const auto& st : stats_) total += st;
    const int open_min = store_.empty() ? INT_MAX : store_.min_lb();
    solve_result r = finish_result(stop, best_, threshold_, open_min, total, ctl_.elapsed());
    r.stats.setup_seconds = setup_seconds_;
    const device_times dt = bd_.times();
    std::ostringstream backend;
    backend << "gpu (" << bd_.device().name << ", " << bd_.describe() << ", " << to_string(policy_.select)
            << " selection, " << T_ << (T_ == 1 ? " host thread)" : " host threads)");
    r.backend = backend.str();
    r.notes.push_back(tuner_.note());
    if (opt_.feed)
      r.notes.push_back("incumbent improved " + std::to_string(feed_improvements_) +
                        " times by the incumbent feed (the CPU cores' iterated greedy)");
    r.notes.push_back(
        std::to_string(pools_) + " pools, " + std::to_string(children_total_) + " children bounded on the GPU, " +
        fixed(pools_ ? static_cast<double>(children_total_) / static_cast<double>(pools_) : 0.0, 0) + " per pool");
    if (opt_.profile) {
      const double wall = std::max(r.stats.total_seconds, 1e-12);
      r.stats.bound_seconds = dt.kernel;
      r.notes.push_back("profile host (wall): selection " + fixed(ht_.select, 3) + " s, branching " +
                        fixed(ht_.branch, 3) + " s (host sort " + fixed(bd_.host_sort_seconds(), 3) +
                        " s), waiting for the GPU " + fixed(ht_.wait, 3) + " s, pruning " + fixed(ht_.prune, 3) + " s");
      r.notes.push_back(
          "profile device (events): transfers " + fixed(dt.h2d + dt.d2h, 3) + " s (h2d " + fixed(dt.h2d, 3) + ", d2h " +
          fixed(dt.d2h, 3) + "), expand " + fixed(dt.expand, 3) + " s, sort " + fixed(dt.sort, 3) +
          " s, bounding kernel " + fixed(dt.kernel, 3) + " s = " + fixed(100.0 * dt.kernel / wall, 1) +
          " % of the run" +
          (bd_.slots() > 1 ? " (summed over 2 streams: a phase queued behind the other stream counts its wait)" : ""));
    }
    return r;
  }

  const bound_data& data_;
  const solve_options& opt_;
  run_control ctl_;
  const int n_;
  int feed_improvements_ = 0;
  incumbent best_;
  const int threshold_;
  const gpu_policy policy_;
  const double setup_start_;
  Bounder bd_;
  const double setup_seconds_;
  pool_tuner tuner_;
  const int T_;
  host_workers workers_;
  const std::vector<double> weights_;
  std::vector<solve_stats> stats_;
  host_phase_times ht_;
  const int root_lb_;
  bucket_store<Job> store_;
  const int dirs_;
  std::vector<slot_state> slots_;
  std::vector<std::vector<Job>> leaf_bufs_;
  std::vector<std::vector<Job>> part_perms_;
  std::vector<std::vector<std::uint32_t>> part_limits_;
  std::vector<selection_result> parts_;
  steady::time_point last_done_ = steady::now();
  std::uint64_t pools_ = 0, children_total_ = 0;
  bool best_phase_ = true;  // hybrid: best-first until hybrid_max open nodes, then depth-first
};

template <class Job, class Bounder>
solve_result run(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const incumbent& start) {
  return host_loop<Job, Bounder>(data, opt, policy, start).run();
}

}  // namespace

solve_result solve(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const incumbent& start) {
  if (data.view().inst.n <= 256) return run<std::uint8_t, bounder>(data, opt, policy, start);
  return run<std::uint16_t, bounder>(data, opt, policy, start);
}

solve_result solve_emulated(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start) {
  if (data.view().inst.n <= 256) return run<std::uint8_t, host_bounder>(data, opt, policy, start);
  return run<std::uint16_t, host_bounder>(data, opt, policy, start);
}

}  // namespace pfsp::gpu
