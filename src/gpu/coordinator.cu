// The device loop on one or several devices (policy.devices; an ordinal may repeat: several
// engines on one device): solve_resident (resident.hpp). Engine 0 starts with the root (or the
// resumed nodes); an engine whose stack runs empty asks for work and a busy one gives it the
// bottom half of its stack (the shallowest nodes, the largest subtrees) at its next sync point. A
// better leaf found by any engine lowers every engine's threshold at their next sync. One host
// thread drives each engine (worker); the calling thread checks limits, reports progress and takes
// checkpoints (pausing every engine between two iterations). Engine 0 starts alone; the others
// are built on their threads and join when the join rule (join_rule.hpp: the search has lasted
// long enough, engine 0's pools are full enough for a second engine to help, and the
// remaining-tree forecast says the rest is worth it) fires, so that a small tree takes one
// engine's time. With one engine this is the plain loop.
//
// Same bounds as every other path: the bounding kernels are the bounder's (bound_kernels.cuh,
// through device_tables.cuh), the direction choice is search/direction.hpp and the per-parent
// step is resident_step.hpp, both shared with the host. The iteration's kernels:
// loop_iteration.cuh; one device's engine: loop_engine.cuh.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/host_memory.hpp"
#include "gpu/engine_cache.cuh"
#include "gpu/join_rule.hpp"
#include "gpu/loop_engine.cuh"
#include "gpu/plan.hpp"
#include "gpu/resident.hpp"
#include "problem/makespan.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"
#include "search/incumbent_feed.hpp"
#include "search/tree_estimate.hpp"

namespace pfsp::gpu::device_loop {
namespace {

using steady = std::chrono::steady_clock;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// One engine's block-size tuning: each candidate bounds policy.loop.tune_batches batches of
// full pools (policy.loop.tune_full_share; the ramp-up from the root does not count), then the
// highest rate of children a second is kept.
class block_tuner {
 public:
  block_tuner(std::size_t candidates, const loop_tuning& t)
      : children_(candidates, 0.0),
        seconds_(candidates, 0.0),
        batches_(candidates, 0),
        want_(t.tune_batches),
        full_share_(t.tune_full_share),
        tuning_(candidates > 1) {}

  // A batch of `batch` iterations bounded `kids` children in dt seconds on the selected block
  // size. Returns the note once the tuning ends (empty otherwise).
  template <class Job>
  std::string record(loop_engine<Job>& eng, std::size_t e, int batch, double kids, double dt) {
    if (!tuning_) return {};
    const std::size_t c = eng.selected();
    if (kids < full_share_ * static_cast<double>(batch) * static_cast<double>(eng.child_cap())) return {};
    children_[c] += kids;
    seconds_[c] += dt;
    if (++batches_[c] < want_) return {};
    if (c + 1 < eng.candidates().size()) {
      eng.select(c + 1);
      return {};
    }
    std::size_t bestc = 0;
    for (std::size_t k = 1; k < children_.size(); ++k)
      if (children_[k] / seconds_[k] > children_[bestc] / seconds_[bestc]) bestc = k;
    eng.select(bestc);
    eng.mark_tuned();
    tuning_ = false;
    std::ostringstream note;
    note << "engine " << e << " tuned the block size: " << eng.candidates()[bestc] << " threads (measured";
    for (std::size_t k = 0; k < children_.size(); ++k)
      note << (k ? ", " : " ") << eng.candidates()[k] << ": " << fixed(children_[k] / seconds_[k] / 1e6, 1)
           << " M children/s";
    note << ')';
    return note.str();
  }

 private:
  std::vector<double> children_, seconds_;
  std::vector<int> batches_;
  int want_;
  double full_share_;
  bool tuning_;
};

template <class Job>
class coordinator {
 public:
  coordinator(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const incumbent& start)
      : data_(data),
        opt_(opt),
        policy_(policy),
        ctl_(opt),
        bv_(data.view()),
        n_(bv_.inst.n),
        best_(start),
        // A resumed search keeps its first run's threshold; its incumbent comes in `start`.
        threshold_(opt.resume ? opt.resume->threshold : initial_threshold(opt, best_)),
        devices_(policy.devices.empty() ? std::vector<int>{policy.device} : policy.devices),
        E_(devices_.size()),
        start_best_(std::min(threshold_, best_.value())),
        global_best_(start_best_) {}

  solve_result solve() {
    const double setup_start = ctl_.elapsed();
    setup_engines();
    seed();
    setup_seconds_ = ctl_.elapsed() - setup_start;
    search_start_ = ctl_.elapsed();
    backend_name_ = describe_backend();
    start_coordination();
    std::vector<std::thread> threads;
    for (std::size_t e = 0; e < E_; ++e) threads.emplace_back([this, e] { worker(e); });
    solve_status stop = supervise();
    for (auto& t : threads) t.join();
    if (failure_) std::rethrow_exception(failure_);
    if (node_limit_hit_ && stop == solve_status::optimal) stop = solve_status::node_limit;
    solve_result r = finish(stop);
    keep_engines();
    return r;
  }

  // Builds (or finds kept) every engine into policy.engines and gives them back: prepare_engines.
  void prepare() {
    for (std::size_t e = 0; e < E_; ++e) engines_.push_back(make_engine(e));
    keep_engines();
  }

 private:
  // --- setup ---

  // Engine 0 now; the others on their own threads when they join (join_engine), or now too where
  // the rule joins them at once (join_rule::at_once, the tests of the engines' cooperation: every
  // engine is there when the search starts, however small the tree).
  void setup_engines() {
    engines_.resize(E_);
    const bool at_once = engines_should_join(policy_.loop.join, 0.0, 0.0, -1.0);
    for (std::size_t e = 0; e < E_; ++e)
      if (e == 0 || at_once) engines_[e] = make_engine(e);
    for (std::size_t e = 0; e < E_; ++e) spill_.emplace_back(n_);
    spilled_.assign(E_, 0);
    spill_budget_ = host_spill_budget(policy_.spill_cap, policy_.loop.host_spill_share, process_memory_room(), E_);
  }

  // One engine per --devices entry (one kept in policy.engines where there is one); engines
  // sharing a device share its memory.
  std::unique_ptr<loop_engine<Job>> make_engine(std::size_t e) {
    std::unique_ptr<loop_engine<Job>> eng = policy_.engines ? policy_.engines->take<Job>(key(e)) : nullptr;
    if (eng) {
      ++kept_taken_;
    } else {
      eng = std::make_unique<loop_engine<Job>>(data_, opt_, policy_, settings(e), devices_[e], share(e));
    }
    eng->lower_best(std::min(start_best_, global_best_.load()));
    return eng;
  }
  // Engine e's settings and share of its device's free memory: engines sharing a device split them.
  loop_settings settings(std::size_t e) const {
    loop_settings ls = settings_of(policy_, data_.view().inst.n, data_.view().inst.m);
    ls.memory_cap /= sharing(e);
    return ls;
  }
  double share(std::size_t e) const { return policy_.loop.stack_memory_share / static_cast<double>(sharing(e)); }
  std::size_t sharing(std::size_t e) const {
    return static_cast<std::size_t>(std::count(devices_.begin(), devices_.end(), devices_[e]));
  }
  engine_key key(std::size_t e) const { return key_of(data_, opt_, policy_, settings(e), devices_[e], share(e)); }

  // The engines back into policy.engines, emptied, for the next solve (after a failure they are
  // freed: their state is unknown).
  void keep_engines() {
    if (!policy_.engines || failure_) return;
    for (std::size_t e = 0; e < E_; ++e)
      if (engines_[e]) policy_.engines->give<Job>(key(e), std::move(engines_[e]));
  }

  // Engine 0 starts with the checkpoint's open nodes or the root.
  void seed() {
    if (opt_.resume)
      seed_resume();
    else
      seed_root();
  }

  // The checkpoint's open nodes, its stacks one above the other, go to engine 0.
  void seed_resume() {
    const search_state& rs = *opt_.resume;
    PFSP_EXPECTS(rs.n == n_, "checkpoint for another instance size");
    check_lb2_pairs(rs, data_, "the checkpoint");
    node_batch<Job> b;
    b.perms.resize(rs.open() * static_cast<std::size_t>(n_));
    b.limits.resize(rs.open());
    b.lbs.resize(rs.open());
    // The checkpoint keeps no tree weights: the open nodes share the weight evenly, the children
    // of a virtual root, and the estimate counts the tree from the resume on.
    b.w.assign(rs.open(), rs.open() ? 1.0f / static_cast<float>(rs.open()) : 0.0f);
    for (std::size_t i = 0; i < rs.open(); ++i) {
      std::copy_n(rs.perm(i), n_, b.perms.data() + i * static_cast<std::size_t>(n_));
      b.limits[i] = pack_limits(rs.nodes[i].limit1, rs.nodes[i].limit2);
      b.lbs[i] = rs.nodes[i].lb;
      initial_open_min_ = std::min(initial_open_min_, b.lbs[i]);
    }
    initial_open_w_ = b.weight();
    place(0, std::move(b));
  }

  // The root, bounded on the host by the same code.
  void seed_root() {
    loop_state counters;
    counters.best = start_best_;
    std::vector<job_t> identity(static_cast<std::size_t>(n_));
    std::iota(identity.begin(), identity.end(), 0);
    expander root_ex(data_, opt_.bound, opt_.branch);
    const int root_lb = root_ex.root_bound(identity.data(), -1, n_, start_best_);
    counters.bounds = 1;
    if (root_lb < start_best_) {
      node_batch<Job> b;
      b.perms.resize(static_cast<std::size_t>(n_));
      std::iota(b.perms.begin(), b.perms.end(), Job{0});
      b.limits = {pack_limits(-1, n_)};
      b.lbs = {root_lb};
      b.w = {1.0f};
      initial_open_min_ = root_lb;
      initial_open_w_ = 1.0;
      engines_[0]->push(b);
    } else {
      counters.pruned = 1;
      counters.explored = 1.0;
    }
    engines_[0]->set_counters(counters);
  }

  std::string describe_backend() const {
    std::ostringstream b;
    b << "gpu (" << engines_[0]->device_properties().name << ", device-resident loop, "
      << engines_[0]->describe_tables() << ", " << engines_[0]->bound_step() << ", pool " << engines_[0]->max_children()
      << " children, ";
    const std::vector<int>& c = engines_[0]->candidates();
    if (c.size() == 1) {
      b << c[0] << " threads a block";
    } else {
      b << "block size tuned among";
      for (int t : c) b << ' ' << t;
    }
    if (E_ > 1) {
      b << ", " << E_ << " engines on devices";
      for (int d : devices_) b << ' ' << d;
    }
    b << ')';
    return b.str();
  }

  // The coordination state's starting values (engine 0 holds the first nodes; the others are
  // absent until they join).
  void start_coordination() {
    mail_.resize(E_);
    idle_.assign(E_, 0);
    published_.assign(E_, loop_state{});
    for (std::size_t e = 0; e < E_; ++e)
      if (engines_[e]) published_[e] = engines_[e]->state();
    absent_ = static_cast<std::size_t>(std::count(engines_.begin(), engines_.end(), nullptr));
    joined_ = E_ - 1 - absent_;
    join_ = absent_ == 0;
    if (join_) join_at_ = 0;
    spilled_[0] = spill_[0].size();
    want_stats_.reset(new std::atomic<bool>[E_]);
    for (std::size_t e = 0; e < E_; ++e) want_stats_[e].store(true);
    engine_profile_.assign(E_, depth_profile(n_));
    engine_open_min_.assign(E_, INT_MAX);
    recv_min_.assign(E_, INT_MAX);
    engine_w_.assign(E_, open_weight_ledger{});
    engine_open_min_[0] = initial_open_min_;
    engine_w_[0].collect(initial_open_w_);
    engine_busy_.assign(E_, 0.0);
    engine_idle_.assign(E_, 0.0);
    engine_life_.assign(E_, 0.0);
  }

  // --- the engines' threads ---

  // An improving leaf of the engine's last run into the incumbent (checked against its makespan).
  void take_leaf(loop_engine<Job>& eng) {
    const loop_state& s = eng.state();
    if (!s.found || s.best >= best_.value()) return;
    const std::vector<Job> perm = eng.best_leaf();
    std::vector<int> scratch(static_cast<std::size_t>(bv_.inst.m));
    const int cmax = makespan(bv_.inst, perm.data(), scratch.data());
    if (cmax != s.best)
      throw error("--gpu-loop device: the best leaf's makespan " + std::to_string(cmax) + " differs from its bound " +
                  std::to_string(s.best));
    best_.offer(cmax, perm.data(), n_);
    if (opt_.feed) opt_.feed->offer_seed(std::vector<int>(perm.begin(), perm.end()), cmax);
  }

  // Engine e's thread: (after the first) join when the rule says so; then wait for work, run a
  // batch of iterations, publish, donate; until the search ends, a stop or a failure.
  void worker(std::size_t e) {
    try {
      if (!engines_[e] && !join_engine(e)) return;  // engines_[e] is this thread's to set
    } catch (...) {
      fail(false);
      return;
    }
    loop_engine<Job>& eng = *engines_[e];
    const auto born = steady::now();
    struct life_guard {  // the thread's life, recorded under mu on every way out
      std::mutex& mu;
      double& life;
      steady::time_point born;
      ~life_guard() {
        std::lock_guard l(mu);
        life = std::chrono::duration<double>(steady::now() - born).count();
      }
    } life{mu_, engine_life_[e], born};
    int batch = 1;
    block_tuner tuner(eng.tuned() ? 1 : eng.candidates().size(), policy_.loop);  // a kept engine is tuned
    try {
      for (;;) {
        node_batch<Job> got;
        if (!wait_for_work(e, got)) return;
        place(e, std::move(got));
        yield_to_beam(e);
        eng.lower_best(global_best_.load());
        eng.follow(best_);  // child_order::incumbent (else nothing)
        const int ran = prepare(e, batch);
        const std::uint64_t bounds_before = eng.state().bounds, iterations_before = eng.state().iterations;
        const auto t0 = steady::now();
        const loop_state& s = eng.run(ran);
        const double dt = std::chrono::duration<double>(steady::now() - t0).count();
        if (s.top > 0 && s.iterations == iterations_before)  // pool_limit always lets one parent go: a bug
          throw error("--gpu-loop device: a batch popped no node from a stack of " + std::to_string(s.top));
        if (want_stats_[e].exchange(false)) collect_statistics(e);
        const std::string note = tuner.record(eng, e, ran, static_cast<double>(s.bounds - bounds_before), dt);
        if (!note.empty()) {
          std::lock_guard tl(mu_);
          tune_notes_.push_back(note);
        }
        adapt(eng, batch, ran, dt);
        std::unique_lock lock(mu_);
        publish(e, s, dt);
        donate(e);
      }
    } catch (...) {
      fail(true);
    }
  }

  // Engine e's thread, between batches: while the tree is hopeless in the time left (judge_hope)
  // and the incumbent engine's GPU beam runs a pass on this engine's device, the pass has the GPU;
  // the loop waits (a stop honoured within a millisecond).
  void yield_to_beam(std::size_t e) {
    const gpu_sharing* sh = policy_.sharing.get();
    if (!sh || !hopeless_.load() || sh->beam_device.load() != engines_[e]->device()) return;
    const auto t0 = steady::now();
    bool waited = false;
    while (hopeless_.load() && sh->beam_passes.load() > 0 && !stop_flag_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      waited = true;
    }
    if (!waited) return;
    std::lock_guard l(mu_);
    yielded_s_ += std::chrono::duration<double>(steady::now() - t0).count();
  }

  // The current exception ends the search (`counted`: the engine had joined it).
  void fail(bool counted) {
    std::lock_guard lock(mu_);
    if (counted) ++exited_;
    if (!failure_) failure_ = std::current_exception();
    stop_flag_.store(true);
    cv_.notify_all();
  }

  // Engine e (after the first) waits for the join rule (maybe_join), builds its engine on this
  // thread while engine 0 searches, and enters the search. False: the search ended first.
  bool join_engine(std::size_t e) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return join_ || finished_ || stop_flag_.load(); });
      if (finished_ || stop_flag_.load()) return false;
    }
    const auto t0 = steady::now();
    std::unique_ptr<loop_engine<Job>> eng = make_engine(e);
    std::lock_guard lock(mu_);
    join_build_s_ = std::max(join_build_s_, std::chrono::duration<double>(steady::now() - t0).count());
    if (finished_ || stop_flag_.load()) return false;
    eng->lower_best(global_best_.load());
    published_[e] = eng->state();
    engines_[e] = std::move(eng);
    --absent_;
    ++joined_;
    cv_.notify_all();
    return true;
  }

  // --- engine e's open nodes: device stack and host spill (engine e's thread) ---

  // Nodes that arrive (mail, a resumed search) onto engine e's stack, grown to hold them; when
  // it cannot, into its spill, from which prepare() brings them back as room allows. They come
  // to an empty stack (an idle engine's, or before the search), where the spill keeps the order.
  void place(std::size_t e, node_batch<Job>&& b) {
    if (b.empty()) return;
    loop_engine<Job>& eng = *engines_[e];
    const std::size_t top = eng.state().top, want = top + b.size() + eng.reserve() + eng.max_push();
    if (eng.grow(want) || eng.capacity() >= top + b.size() + eng.reserve()) {
      eng.push(b);
      return;
    }
    PFSP_EXPECTS(top == 0 && spill_[e].empty(), "device loop: nodes placed under a busy engine's stack");
    spill_[e].push(std::move(b));
    note_spill(e);
  }

  // Before a batch of `batch` iterations on engine e: room for what it can push (the stack
  // grown, else its bottom nodes spilled to the host within spill_budget_), spilled nodes brought
  // back under the stack's nodes before the batch could pop below them. Returns the iterations
  // to run: fewer than `batch` where room or the spill asks for it (the order of search is then
  // still the unbounded stack's; only an iteration whose pool pool_limit cuts changes it).
  int prepare(std::size_t e, int batch) {
    loop_engine<Job>& eng = *engines_[e];
    const std::size_t reserve = eng.reserve(), parents = eng.max_parents();
    auto top = [&] { return static_cast<std::size_t>(eng.state().top); };
    const std::size_t batch_room = std::max(eng.max_push(), policy_.loop.batch_room_bytes / eng.node_bytes());
    const std::size_t want = top() + reserve + std::min(worst_growth(eng, top(), batch), batch_room);
    const std::size_t useful = useful_nodes(e);
    eng.grow(std::min(want, std::max(useful, eng.capacity())));
    if (want > useful && eng.capacity() < want) ++(hopeless_.load() ? useful_cuts_ : unjudged_cuts_)[e];
    const bool at_cap = useful >= eng.max_capacity();  // spill only where memory, not the time left, is short
    if (at_cap && eng.capacity() < top() + reserve + worst_growth(eng, top(), 1)) spill_bottom(e);
    if (!spill_[e].empty()) refill(e, std::min(static_cast<std::size_t>(batch) * parents, eng.capacity() / 4));
    std::size_t b = 0;  // the most iterations that surely fit
    for (std::size_t t = top(); b < static_cast<std::size_t>(batch); ++b) {
      t += worst_growth(eng, t, 1);
      if (t + reserve > eng.capacity()) break;
    }
    if (b == 0) ++cut_batches_[e];  // pool_limit may cut this iteration's pool
    if (!spill_[e].empty()) b = std::min(b, std::max<std::size_t>(1, top() / parents));
    return static_cast<int>(std::clamp<std::size_t>(b, 1, static_cast<std::size_t>(batch)));
  }

  // Memory in proportion to progress (loop_tuning::useful_stack_margin): once the tree is hopeless
  // in the time left (judge_hope), the most nodes engine e's stack need hold for what it can still
  // pop before the limit, at least its first size; no cap before. Not on every search: the cap
  // cuts the pools, which lowers the pop rate it is measured by (VFR100_40 with LB1 and an upper
  // bound for 6 s branched 80 thousand nodes instead of 84 million), a price worth paying only
  // where the loop cannot close its tree anyway.
  std::size_t useful_nodes(std::size_t e) {
    const loop_state& s = engines_[e]->state();
    if (popped_from_[e] < 0) popped_from_[e] = ctl_.elapsed();
    const std::size_t floor = std::max(engines_[e]->first_capacity(), engines_[e]->reserve() + engines_[e]->max_push());
    if (!hopeless_.load()) return judged_.load() ? std::numeric_limits<std::size_t>::max() : unjudged_nodes(e, floor);
    return useful_stack_nodes(static_cast<double>(s.branched), ctl_.elapsed() - popped_from_[e], ctl_.seconds_left(),
                              policy_.loop.useful_stack_margin, floor, policy_.loop.useful_rate_window_s);
  }

  // Before judge_hope has judged the tree: under a time limit and with the keep rule on, a share
  // of engine e's memory cap (loop_tuning::unjudged_stack_share), at least `floor`.
  std::size_t unjudged_nodes(std::size_t e, std::size_t floor) const {
    const double left = ctl_.seconds_left();
    if (!(left < std::numeric_limits<double>::infinity()) || policy_.loop.useful_stack_margin <= 0)
      return std::numeric_limits<std::size_t>::max();
    const double share = std::clamp(policy_.loop.unjudged_stack_share, 0.0, 1.0);
    return std::max(floor, static_cast<std::size_t>(share * static_cast<double>(engines_[e]->max_capacity())));
  }

  // The most a stack of `top` nodes can grow in `iterations` iterations: each pops at most
  // min(stack, max_parents) parents, and pushes at most n children a parent and a pool's push.
  std::size_t worst_growth(const loop_engine<Job>& eng, std::size_t top, int iterations) const {
    const std::size_t cap = std::size_t{1} << 40, n = static_cast<std::size_t>(n_);
    std::size_t t = top;
    for (int i = 0; i < iterations && t < cap; ++i) t += std::min(eng.max_push(), std::min(t, eng.max_parents()) * n);
    return std::min(t, cap) - top;
  }

  // Engine e's stack at its cap: its bottom nodes (the shallowest, popped last) go to the host,
  // down to half the stack, within the spill budget: read in pieces of
  // loop_tuning::spill_chunk_bytes, between which a stop is honoured (17.8 GB read at once took
  // 3 s at 500x20, past the time limit), then the rest slides down once.
  void spill_bottom(std::size_t e) {
    loop_engine<Job>& eng = *engines_[e];
    const std::size_t top = eng.state().top, keep = eng.capacity() / 2;
    if (top <= keep) return;
    const std::size_t k = std::min(top - keep, spill_budget_ > spill_[e].bytes()
                                                   ? (spill_budget_ - spill_[e].bytes()) / spill_[e].node_bytes()
                                                   : std::size_t{0});
    const std::size_t chunk = std::max<std::size_t>(1, policy_.loop.spill_chunk_bytes / eng.node_bytes());
    std::size_t taken = 0;
    while (taken < k && !stop_flag_.load()) {
      const std::size_t c = std::min(chunk, k - taken);
      spill_[e].push(eng.read(taken, c));
      taken += c;
    }
    if (taken == 0) return;
    eng.drop_bottom(taken);
    ++spills_[e];
    note_spill(e);
  }

  // Spilled nodes back under engine e's stack until it holds `want` nodes (what the next batch
  // can pop), leaving room for a full iteration above them.
  void refill(std::size_t e, std::size_t want) {
    loop_engine<Job>& eng = *engines_[e];
    const std::size_t head = eng.reserve() + eng.max_push();
    const std::size_t chunk = std::max<std::size_t>(1, policy_.loop.spill_chunk_bytes / eng.node_bytes());
    while (!spill_[e].empty() && eng.state().top < want && !stop_flag_.load()) {
      const std::size_t top = eng.state().top;
      eng.grow(top + head + std::min(want - top, spill_[e].size()));
      if (eng.capacity() <= top + head) break;
      eng.push_under(spill_[e].take_top(std::min({want - top, eng.capacity() - top - head, chunk})));
    }
    note_spill(e);
  }

  // The spill's size for the progress counts, and its largest.
  void note_spill(std::size_t e) {
    std::lock_guard l(mu_);
    spilled_[e] = spill_[e].size();
    peak_spill_ = std::max(peak_spill_, spill_[e].bytes());
  }

  // After a batch of `ran` iterations that took dt seconds: the next batch's length (syncs every
  // few milliseconds), and the pool's child cap when one iteration alone exceeds
  // loop_tuning::iteration_max_s (cut in proportion; doubled back below a quarter of it).
  void adapt(loop_engine<Job>& eng, int& batch, int ran, double dt) {
    const loop_tuning& t = policy_.loop;
    if (dt < t.batch_grow_s && batch < t.max_batch) batch = std::min(t.max_batch, 2 * ran);
    if (dt > t.batch_shrink_s && batch > 1) batch = std::max(1, ran / 2);
    if (ran != 1 || eng.state().parents == 0) return;
    if (dt > t.iteration_max_s) {
      const double cut = std::max(0.125, 0.5 * t.iteration_max_s / dt);
      eng.set_child_cap(static_cast<std::uint32_t>(static_cast<double>(eng.child_cap()) * cut));
      ++cap_cuts_;
    } else if (dt < 0.25 * t.iteration_max_s && eng.child_cap() < eng.max_children()) {
      eng.set_child_cap(static_cast<std::uint32_t>(std::min<std::size_t>(2ull * eng.child_cap(), eng.max_children())));
    }
    min_child_cap_ = std::min<std::size_t>(min_child_cap_, eng.child_cap());
  }

  // Waits until engine e has work: its mail (taken into `got`) or its own stack. Pauses for a
  // checkpoint meanwhile. False: the thread ends (the search is finished or stopped); the last
  // engine to go idle with no mail anywhere finishes the search.
  bool wait_for_work(std::size_t e, node_batch<Job>& got) {
    std::unique_lock lock(mu_);
    for (;;) {
      if (pause_) {  // a checkpoint: stay between two iterations until it is written
        ++paused_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return !pause_; });
        --paused_;
      }
      if (finished_ || stop_flag_.load()) {
        ++exited_;
        cv_.notify_all();
        return false;
      }
      if (!mail_[e].empty()) {
        got = std::move(mail_[e]);
        mail_[e].clear();
        for (const int lb : got.lbs) recv_min_[e] = std::min(recv_min_[e], lb);
        engine_w_[e].receive(got.weight());
        if (idle_[e]) {
          idle_[e] = 0;
          --idle_count_;
        }
        return true;
      }
      if (engines_[e]->state().top > 0 || !spill_[e].empty()) return true;
      if (!idle_[e]) {
        idle_[e] = 1;
        ++idle_count_;
        bool any_mail = false;
        for (const auto& m : mail_) any_mail = any_mail || !m.empty();
        if (idle_count_ + absent_ == E_ && !any_mail) {
          finished_ = true;
          ++exited_;
          cv_.notify_all();
          return false;
        }
        cv_.notify_all();
      }
      const auto w0 = steady::now();
      cv_.wait(lock);
      if (idle_[e]) engine_idle_[e] += std::chrono::duration<double>(steady::now() - w0).count();
    }
  }

  // Engine e's progress statistics, collected between two runs and published under mu (the
  // received and sent counts restart with them).
  void collect_statistics(std::size_t e) {
    depth_profile prof(n_);
    double w = 0;
    int mn = engines_[e]->collect(prof, w);
    mn = std::min(mn, spill_[e].min_lb());
    w += spill_[e].weight();
    spill_[e].add_depths(prof.open);
    std::lock_guard sl(mu_);
    if (e == 0) ++stats0_;
    engine_profile_[e] = std::move(prof);
    engine_open_min_[e] = mn;
    engine_w_[e].collect(w);
    recv_min_[e] = INT_MAX;
  }

  // Under mu: engine e's state after a batch of dt seconds; its leaf, and the node limit.
  void publish(std::size_t e, const loop_state& s, double dt) {
    device_seconds_ += dt;
    engine_busy_[e] += dt;
    published_[e] = s;
    std::size_t open = 0;
    for (std::size_t o = 0; o < E_; ++o) open += published_[o].top + spilled_[o];
    peak_open_ = std::max(peak_open_, open);
    if (s.found && s.best < global_best_.load()) {
      take_leaf(*engines_[e]);
      global_best_.store(std::min(global_best_.load(), s.best));
    }
    // The node limit is checked at every sync (the calling thread's checks come every
    // policy.loop.poll_ms, long enough for a small tree to finish).
    if (opt_.node_limit) {
      std::uint64_t branched = 0;
      for (const loop_state& ps : published_) branched += ps.branched;
      if (branched >= opt_.node_limit) {
        node_limit_hit_ = true;
        stop_flag_.store(true);
        cv_.notify_all();
      }
    }
  }

  // Under mu: gives the bottom half of engine e's stack to an idle engine that has no mail yet.
  void donate(std::size_t e) {
    loop_engine<Job>& eng = *engines_[e];
    const loop_state& s = published_[e];
    // At least 2 nodes: half of one is none (take_bottom(0)).
    if (idle_count_ == 0 || s.top + spill_[e].size() < std::max<std::size_t>(2, policy_.loop.donate_min_nodes)) return;
    if (spill_[e].empty() && s.top < 2) return;
    for (std::size_t o = 0; o < E_; ++o) {
      if (o == e || !idle_[o] || !mail_[o].empty()) continue;
      // The lowest nodes: the spill's lowest batch, else the stack's bottom half.
      mail_[o] = spill_[e].empty() ? eng.take_bottom(s.top / 2) : spill_[e].take_bottom();
      spilled_[e] = spill_[e].size();
      engine_w_[e].send(mail_[o].weight());
      published_[e] = eng.state();
      ++donations_;
      donated_nodes_ += mail_[o].size();
      cv_.notify_all();
      break;
    }
  }

  // --- the calling thread ---

  // Under mu: the engines' published counters, and the open nodes (stacks and mail).
  std::pair<solve_stats, std::uint64_t> totals() const {
    solve_stats t;
    std::uint64_t open = 0;
    for (std::size_t e = 0; e < E_; ++e) {
      const loop_state& s = published_[e];
      t.branched += s.branched;
      t.bounds += s.bounds;
      t.pruned += s.pruned;
      t.leaves += s.leaves;
      t.explored += s.explored;
      open += s.top + mail_[e].size() + spilled_[e];
    }
    return {t, open};
  }

  // Every engine's stack and every undelivered mail, as a checkpoint (engines paused or done).
  search_state checkpoint_state(bool complete) {
    for (auto& eng : engines_)
      if (eng) take_leaf(*eng);
    const solve_stats piece = totals().first;
    search_state cs = make_search_state(data_, opt_, threshold_, best_, piece, ctl_.elapsed(), backend_name_);
    cs.complete = complete;
    auto add = [&](const node_batch<Job>& b) {
      if (b.empty()) return;
      cs.stack_sizes.push_back(b.size());
      cs.perms.insert(cs.perms.end(), b.perms.begin(), b.perms.end());
      for (std::size_t i = 0; i < b.size(); ++i)
        cs.nodes.push_back({limit1_of(b.limits[i]), limit2_of(b.limits[i]), b.lbs[i]});
    };
    for (std::size_t e = 0; e < E_; ++e) {
      node_batch<Job> all;  // the spill under the device's stack
      spill_[e].append_to(all);
      if (engines_[e]) all.append(engines_[e]->read(0, engines_[e]->state().top));
      add(all);
      add(mail_[e]);
    }
    return cs;
  }

  // The calling thread, every policy.loop.poll_ms until the search ends: limits, the CPU cores'
  // incumbents, progress, checkpoints. Returns the stop status (optimal: not stopped here).
  solve_status supervise() {
    solve_status stop = solve_status::optimal;
    std::unique_lock lock(mu_);
    while (!finished_ && !failure_ && !stop_flag_.load()) {
      cv_.wait_for(lock, std::chrono::milliseconds(policy_.loop.poll_ms));
      if (finished_ || failure_ || stop_flag_.load()) break;
      const auto tot = totals();
      const solve_stats& t = tot.first;
      lock.unlock();
      stop = ctl_.check(t.branched);
      lock.lock();
      if (stop != solve_status::optimal) {
        stop_flag_.store(true);
        cv_.notify_all();
        break;
      }
      take_feed();
      judge_hope(t);
      maybe_join();
      ctl_.maybe_report(progress(t, tot.second));
      if (ctl_.checkpoint_due() && opt_.on_checkpoint) checkpoint(lock);
    }
    return stop;
  }

  // Under mu: whether the tree is hopeless in the time left (loop_tuning::hopeless_share): after
  // hopeless_after_s of search, the share closed so far projected to the limit at its rate.
  void judge_hope(const solve_stats& t) {
    const double left = ctl_.seconds_left(), ran = ctl_.elapsed() - search_start_;
    if (!(left < std::numeric_limits<double>::infinity()) || ran < policy_.loop.hopeless_after_s) return;
    judged_.store(true);
    const double done = explored_before() + t.explored;
    const bool hopeless = done * (ran + left) / ran < policy_.loop.hopeless_share;
    if (hopeless && !hopeless_.load()) hopeless_at_ = ran;
    hopeless_.store(hopeless);
  }

  // Under mu, while engines are absent: the join rule (join_rule.hpp's join_watch) on engine 0's
  // published counters (its pools' fill) and its closed tree share (asked for every
  // rule.sample_s; the engine collects its statistics between two batches); when it says so, the
  // absent engines' threads build their engines and join.
  void maybe_join() {
    if (join_ || absent_ == 0) return;
    const double t = ctl_.elapsed() - search_start_;
    const loop_state& s = published_[0];
    join_watch_.counters(t, static_cast<double>(s.bounds) / static_cast<double>(engines_[0]->max_children()),
                         static_cast<double>(s.iterations));
    if (stats0_ != stats0_seen_) {  // engine 0 alone holds the tree's open weight
      stats0_seen_ = stats0_;
      join_watch_.share(t, std::clamp(1.0 - engine_w_[0].collected, 0.0, 1.0));
    }
    if (join_watch_.ask(t)) want_stats_[0].store(true);
    if (!join_watch_.decide(t)) return;
    join_ = true;
    join_at_ = t;
    join_left_ = join_watch_.forecast(t);
    join_fill_ = join_watch_.fill();
    cv_.notify_all();
  }

  // Under mu: the CPU cores' incumbents (--improver-threads): re-evaluated, then every engine
  // prunes at them from its next sync.
  void take_feed() {
    if (!opt_.feed || opt_.feed->best_value() >= std::min(global_best_.load(), best_.value())) return;
    const std::vector<int> sched = opt_.feed->best_schedule();
    std::vector<int> scratch(static_cast<std::size_t>(bv_.inst.m));
    const int cmax = makespan(bv_.inst, sched.data(), scratch.data());
    if (cmax < std::min(global_best_.load(), best_.value())) {
      best_.offer(cmax, sched.data(), n_);
      global_best_.store(std::min(global_best_.load(), cmax));
      ++feed_improvements_;
    }
  }

  // Under mu: the progress report. Every progress interval, the engines' last published
  // statistics (at most one batch old) and the nodes in transit: what an engine received since
  // its last statistics (smallest bound, weight) is counted beside them and what it sent is taken
  // off (off the sum: what it received may go on to another engine before its next statistics;
  // open_weight_ledger, node_spill.hpp), so that every open node is counted once and the
  // snapshot is a true lower bound and a conservative closed share (never more than the truth,
  // never less than the previous snapshot's); each engine is then asked for new ones. In
  // between, the last snapshot's estimates.
  progress_info progress(const solve_stats& t, std::uint64_t open) {
    progress_info info{0, t.branched, std::min(global_best_.load(), best_.value()), open,
                       explored_before() + t.explored};
    if (ctl_.elapsed() - last_stats_ >= opt_.progress_interval) {
      last_stats_ = ctl_.elapsed();
      depth_profile prof(n_);
      int gl = info.best;
      double open_w = 0;
      for (std::size_t e = 0; e < E_; ++e) {
        open_w += engine_w_[e].open() + mail_[e].weight();
        for (std::size_t d = 0; d <= static_cast<std::size_t>(n_); ++d) {
          prof.popped[d] += engine_profile_[e].popped[d];
          prof.kept[d] += engine_profile_[e].kept[d];
          prof.open[d] += engine_profile_[e].open[d];
        }
        gl = std::min({gl, engine_open_min_[e], recv_min_[e]});
        for (std::size_t i = 0; i < mail_[e].size(); ++i) {
          gl = std::min(gl, mail_[e].lbs[i]);
          ++prof.open[static_cast<std::size_t>(limit1_of(mail_[e].limits[i]) + 1 + n_ - limit2_of(mail_[e].limits[i]))];
        }
        want_stats_[e].store(true);
      }
      info.global_lb = gl;
      info.tree_done = std::clamp(1.0 - open_w, 0.0, 1.0);
      info.remaining = tree_weight_remaining(t.branched, info.tree_done);
      info.remaining_by_depth = estimate_remaining(prof);
      info.elapsed = ctl_.elapsed();
      info.forecast_seconds = forecast_seconds(trace_, info.elapsed, info.tree_done);
      trace_.push_back(info);
    } else if (!trace_.empty()) {
      info.global_lb = std::min(trace_.back().global_lb, info.best);
      info.remaining = trace_.back().remaining;
      info.tree_done = trace_.back().tree_done;
      info.forecast_seconds = trace_.back().forecast_seconds;
    }
    return info;
  }

  // Under mu (held by `lock`): every engine pauses at its next sync point (idle ones at once,
  // woken by the notify), the checkpoint is written, the engines go on.
  void checkpoint(std::unique_lock<std::mutex>& lock) {
    pause_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return paused_ + exited_ + absent_ >= E_ || finished_ || failure_; });
    if (!finished_ && !failure_) emit_checkpoint(opt_, [&] { return checkpoint_state(false); });
    pause_ = false;
    cv_.notify_all();
  }

  double explored_before() const { return opt_.resume ? opt_.resume->stats.explored : 0.0; }

  // The stacks' memory: engine 0's largest stack, its cap, and what went to the host or
  // changed the pools.
  std::string describe_memory() const {
    const loop_engine<Job>& eng = *engines_[0];
    const double mib = static_cast<double>(eng.node_bytes()) / (1 << 20);
    std::string m = std::to_string(peak_open_) + " open nodes at most; stack of " +
                    std::to_string(eng.peak_capacity()) + " nodes at most (" +
                    fixed(static_cast<double>(eng.peak_capacity()) * mib, 0) + " MiB; cap " +
                    std::to_string(eng.max_capacity()) + " nodes, " +
                    fixed(static_cast<double>(eng.max_capacity()) * mib, 0) + " MiB)" + (E_ > 1 ? " per engine" : "");
    std::uint64_t spills = 0, cuts = 0;
    for (std::size_t e = 0; e < E_; ++e) {
      spills += spills_[e];
      cuts += cut_batches_[e];
    }
    if (spills)
      m += "; " + std::to_string(spills) + " spills of the stacks' bottom to host memory (" +
           fixed(static_cast<double>(peak_spill_) / (1 << 20), 0) + " MiB at most)";
    if (cuts) m += "; " + std::to_string(cuts) + " batches ran short of room (pools cut to what fits)";
    if (yielded_s_ > 0)
      m += "; the tree hopeless in the time left from " + fixed(hopeless_at_, 1) + " s: the loop left the GPU to the " +
           "incumbent engine's beam passes for " + fixed(yielded_s_, 1) + " s";
    const std::uint64_t kept = std::accumulate(useful_cuts_.begin(), useful_cuts_.end(), std::uint64_t{0});
    if (kept)
      m += "; stack kept to what the time left can pop (" + std::to_string(kept) + " batches; memory in proportion)";
    const std::uint64_t early = std::accumulate(unjudged_cuts_.begin(), unjudged_cuts_.end(), std::uint64_t{0});
    if (early)
      m += "; stack kept to " + fixed(policy_.loop.unjudged_stack_share * 100, 1) +
           " % of its cap until the tree was judged (" + std::to_string(early) + " batches)";
    if (cap_cuts_)
      m += "; pools cut " + std::to_string(cap_cuts_) + " times to keep an iteration under " +
           fixed(policy_.loop.iteration_max_s, 2) + " s (down to " + std::to_string(min_child_cap_) + " children)";
    return m;
  }

  // --- the end ---

  // The threads have ended: the last checkpoint, the result and its notes.
  solve_result finish(solve_status stop) {
    std::unique_lock lock(mu_);
    const auto tot = totals();
    const solve_stats piece = tot.first;
    const std::uint64_t open = tot.second;
    if (open == 0) stop = solve_status::optimal;
    emit_checkpoint(opt_, [&] { return checkpoint_state(open == 0); });
    for (auto& eng : engines_)
      if (eng) take_leaf(*eng);
    // The open nodes' smallest bound, by the statistics kernel (copying a stack of tens of GB
    // to the host took seconds at 500x20).
    int open_min = INT_MAX;
    for (std::size_t e = 0; e < E_; ++e) {
      depth_profile scratch(n_);
      double w = 0;
      const int on_device = engines_[e] ? engines_[e]->collect(scratch, w) : INT_MAX;
      open_min = std::min({open_min, on_device, spill_[e].min_lb(), mail_[e].min_lb()});
    }
    const solve_stats total = cumulative_stats(opt_, piece, ctl_.elapsed());
    solve_result r = finish_result(stop, best_, threshold_, open_min, total, total.total_seconds);
    r.stats.setup_seconds = setup_seconds_;
    add_notes(r, piece);
    return r;
  }

  // The profile, the CPU cores' share, iterations, block-size tuning and, with several engines,
  // donations and each engine's busy/idle time.
  void add_notes(solve_result& r, const solve_stats& piece) {
    std::uint64_t iterations = 0;
    double phase[loop_engine<Job>::kPhases] = {};
    for (std::size_t e = 0; e < E_; ++e) {
      iterations += published_[e].iterations;
      if (engines_[e])
        for (int k = 0; k < loop_engine<Job>::kPhases; ++k) phase[k] += engines_[e]->phase_ms()[k] * 1e-3;
    }
    if (opt_.profile) {
      // Table I's bounding share: the bounding kernel's device time over the run's wall time.
      r.stats.bound_seconds = phase[2];
      const double wall = std::max(r.stats.total_seconds, 1e-12);
      r.notes.push_back(
          "profile device (events, kernels launched one by one instead of the graph" +
          std::string(E_ > 1 ? ", summed over the engines" : "") + "): pop " + fixed(phase[0], 3) + " s, sort " +
          fixed(phase[1], 3) + " s, bounding kernel " + fixed(phase[2], 3) +
          " s = " + fixed(100.0 * phase[2] / wall, 1) + " % of the run, decide " + fixed(phase[3], 3) + " s, push " +
          fixed(phase[4], 3) + " s; host loop and launches " +
          fixed(std::max(0.0, device_seconds_ - (phase[0] + phase[1] + phase[2] + phase[3] + phase[4])), 3) + " s");
    }
    r.backend = backend_name_;
    r.trace = std::move(trace_);
    if (opt_.feed)
      r.notes.push_back("incumbent improved " + std::to_string(feed_improvements_) +
                        " times by the CPU cores' iterated greedy (--improver-threads)");
    r.notes.push_back(std::to_string(iterations) + " iterations on the device" + (E_ > 1 ? "s" : "") + ", " +
                      fixed(iterations ? static_cast<double>(piece.bounds) / static_cast<double>(iterations) : 0.0, 0) +
                      " children per iteration; " + describe_memory());
    for (const std::string& note : tune_notes_) r.notes.push_back(note);
    if (engines_[0]->candidates().size() > 1 && tune_notes_.empty())
      r.notes.push_back(std::string(engines_[0]->tuned() ? "block size tuned before: "
                                                         : "block size not tuned (too few full pools): ") +
                        std::to_string(engines_[0]->candidates()[engines_[0]->selected()]) + " threads");
    if (kept_taken_ > 0)
      r.notes.push_back(std::to_string(kept_taken_.load()) + " of " + std::to_string(E_) +
                        " engines kept from an earlier solve (set-up " + fixed(setup_seconds_, 4) + " s)");
    if (E_ > 1) add_engine_notes(r);
  }

  // With several engines: when they joined, the donations, and one line per engine (what it
  // branched, how long it ran batches, how long it waited for work, its thread's life since it
  // joined).
  void add_engine_notes(solve_result& r) const {
    const join_rule& jr = policy_.loop.join;
    if (joined_ == 0)
      r.notes.push_back("engines 1-" + std::to_string(E_ - 1) + " did not join (engine 0's pools " +
                        fixed(100.0 * join_watch_.fill(), 0) + " % full at the last sample; they join after " +
                        fixed(jr.min_s, 2) + " s of search where engine 0's pools are at least " +
                        fixed(100.0 * jr.fill_min, 0) + " % full and the remaining-tree forecast leaves at least " +
                        fixed(jr.worth_s, 2) + " s, or after " + fixed(jr.sure_s, 2) + " s with such pools)");
    else
      r.notes.push_back(std::to_string(joined_) + " engines joined engine 0 at " + fixed(join_at_, 3) +
                        " s of search (pools " + (join_fill_ < 0 ? std::string("-") : fixed(100.0 * join_fill_, 0)) +
                        " % full, forecast " +
                        (join_left_ < 0 ? std::string("not yet known") : fixed(join_left_, 2) + " s left") +
                        "; built in " + fixed(join_build_s_, 3) + " s at most, beside engine 0's search)");
    r.notes.push_back(std::to_string(donations_) + " donations of work between engines (" +
                      std::to_string(donated_nodes_) + " nodes)");
    std::ostringstream b;
    b << "engines' time (busy in batches / idle waiting for work / thread life):";
    for (std::size_t e = 0; e < E_; ++e) {
      b << (e ? "; " : " ") << "engine " << e << " (device " << devices_[e] << ")";
      if (!engines_[e]) {
        b << " did not join";
        continue;
      }
      b << " branched " << published_[e].branched << ", busy " << fixed(engine_busy_[e], 3) << " s, idle "
        << fixed(engine_idle_[e], 3)
        << " s = " << fixed(engine_life_[e] > 0 ? 100.0 * engine_idle_[e] / engine_life_[e] : 0.0, 1) << " %, life "
        << fixed(engine_life_[e], 3) << " s";
    }
    r.notes.push_back(b.str());
  }

  // The run's inputs.
  const bound_data& data_;
  const solve_options& opt_;
  const gpu_policy& policy_;
  run_control ctl_;
  const bound_view bv_;
  const int n_;
  incumbent best_;
  const int threshold_;
  const std::vector<int> devices_;
  const std::size_t E_;
  const int start_best_;

  // Set up before the threads start.
  std::vector<std::unique_ptr<loop_engine<Job>>> engines_;
  // Per engine, touched by its thread (and by the others only while it is paused or done): the
  // nodes spilled to the host, how often, and the batches whose room was short.
  std::vector<node_spill<Job>> spill_;
  std::size_t spill_budget_ = 0;
  std::vector<std::uint64_t> spills_ = std::vector<std::uint64_t>(E_, 0),
                             cut_batches_ = std::vector<std::uint64_t>(E_, 0),
                             useful_cuts_ = std::vector<std::uint64_t>(E_, 0),
                             unjudged_cuts_ = std::vector<std::uint64_t>(E_, 0);
  std::vector<double> popped_from_ = std::vector<double>(E_, -1.0);  // ctl_.elapsed() at an engine's first batch
  std::atomic<bool> hopeless_{false}, judged_{false};                // judge_hope
  double hopeless_at_ = 0, yielded_s_ = 0;                           // under mu
  std::atomic<std::uint64_t> cap_cuts_{0};
  std::atomic<std::size_t> kept_taken_{0};  // engines taken from policy.engines
  std::atomic<std::size_t> min_child_cap_{SIZE_MAX};
  int initial_open_min_ = INT_MAX;  // what engine 0 starts with, for the progress statistics
  double initial_open_w_ = 0;       // until its first collection
  double setup_seconds_ = 0;
  double search_start_ = 0;  // ctl_.elapsed() when engine 0 was seeded
  std::string backend_name_;

  // Coordination, under mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<node_batch<Job>> mail_;
  std::vector<char> idle_;
  std::vector<loop_state> published_;
  std::vector<std::size_t> spilled_;  // spill_[e].size() as of engine e's last change
  std::size_t peak_spill_ = 0;        // bytes
  std::size_t peak_open_ = 0;         // open nodes on the stacks and spills, at the syncs
  std::size_t idle_count_ = 0, paused_ = 0, exited_ = 0;
  // The engines after the first (join_rule.hpp): absent until built and in the search; join_
  // once the rule fired (maybe_join); when, what the forecast said, the longest build.
  std::size_t absent_ = 0, joined_ = 0;
  bool join_ = false;
  double join_at_ = -1, join_left_ = -1, join_fill_ = -1, join_build_s_ = 0;
  std::uint64_t stats0_ = 0, stats0_seen_ = 0;  // engine 0's statistics collections
  join_watch join_watch_{policy_.loop.join};
  bool finished_ = false, pause_ = false, node_limit_hit_ = false;
  std::atomic<bool> stop_flag_{false};
  std::atomic<int> global_best_;
  std::exception_ptr failure_;
  std::uint64_t donations_ = 0, donated_nodes_ = 0;
  std::vector<std::string> tune_notes_;
  // Progress statistics (global lower bound, remaining-tree estimate): the calling thread asks
  // each engine for them about every progress interval (want_stats_); the engine's thread
  // collects them between two runs (collect_statistics). Between two collections an engine
  // takes mail and donates: recv_min_ and engine_w_ (progress()).
  std::unique_ptr<std::atomic<bool>[]> want_stats_;
  std::vector<depth_profile> engine_profile_;
  std::vector<int> engine_open_min_, recv_min_;
  std::vector<open_weight_ledger> engine_w_;  // node_spill.hpp
  std::vector<progress_info> trace_;
  double last_stats_ = -1.0;
  int feed_improvements_ = 0;
  double device_seconds_ = 0;
  // Per engine: seconds in run() (busy), seconds waiting for work while idle, and the thread's
  // whole life (issue 11's idle share: idle / life).
  std::vector<double> engine_busy_, engine_idle_, engine_life_;
};

template <class Job>
solve_result run(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const incumbent& start) {
  return coordinator<Job>(data, opt, policy, start).solve();
}

template <class Job>
void prepare(const bound_data& data, const solve_options& opt, const gpu_policy& policy) {
  coordinator<Job>(data, opt, policy, incumbent{}).prepare();
}

}  // namespace
}  // namespace pfsp::gpu::device_loop

namespace pfsp::gpu {

solve_result solve_resident(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start) {
  check_device_loop(policy, data.view().inst.n);
  return run_device_loop(data, opt, policy, start);
}

solve_result run_device_loop(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                             const incumbent& start) {
  if (data.view().inst.n <= 256) return device_loop::run<std::uint8_t>(data, opt, policy, start);
  return device_loop::run<std::uint16_t>(data, opt, policy, start);
}

std::shared_ptr<engine_cache> make_engine_cache() { return std::make_shared<engine_cache>(); }

void prepare_engines(const bound_data& data, const solve_options& opt, const gpu_policy& policy) {
  if (!policy.engines) return;
  if (data.view().inst.n <= 256)
    device_loop::prepare<std::uint8_t>(data, opt, policy);
  else
    device_loop::prepare<std::uint16_t>(data, opt, policy);
}

}  // namespace pfsp::gpu
