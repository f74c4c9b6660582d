#include "cpu/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "base/error.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"
#include "search/feed_exchange.hpp"
#include "search/node_pool.hpp"

namespace pfsp {
namespace {

// State every worker publishes for progress reports and the final statistics.
struct alignas(64) worker_counters {
  std::atomic<std::uint64_t> branched{0};
  std::atomic<double> explored{0};
};

struct shared_state {
  shared_state(const solve_options& opt, const incumbent& start, int nthreads, instance_view inst)
      : ctl(opt),
        best(start),
        feed(opt.feed, inst),
        counters(nthreads),
        explored_before(opt.resume ? opt.resume->stats.explored : 0.0) {
    feed.take(best);  // before the workers start: the engine beside may already hold a better schedule
  }
  run_control ctl;
  incumbent best;
  feed_exchange feed;  // polled by worker 0 only (supervise)
  std::atomic<int> stop{static_cast<int>(solve_status::optimal)};
  std::atomic<std::uint64_t> branched_total{0};  // kept only with a node limit
  std::vector<worker_counters> counters;
  double explored_before;      // of the runs before a resume
  std::exception_ptr failure;  // thrown by on_checkpoint or the feed during the search, rethrown after the join

  bool stopped() const { return stop.load(std::memory_order_relaxed) != static_cast<int>(solve_status::optimal); }

  void request_stop(solve_status s) {
    int expected = static_cast<int>(solve_status::optimal);
    stop.compare_exchange_strong(expected, static_cast<int>(s));
  }

  // With a node limit, a worker asks before each expansion (overshoot at most threads - 1).
  bool may_expand() {
    if (!ctl.options().node_limit) return true;
    if (branched_total.load(std::memory_order_relaxed) >= ctl.options().node_limit) {
      request_stop(solve_status::node_limit);
      return false;
    }
    return true;
  }
  void count_expansion() {
    if (ctl.options().node_limit) branched_total.fetch_add(1, std::memory_order_relaxed);
  }

  // Asked between a node's children (expander::expand's `abandon`): another worker stopped the
  // search, or the clock or Ctrl-C says to stop (then this worker stops everyone).
  bool abandon() {
    if (stopped()) return true;
    const solve_status s = ctl.overdue();
    if (s == solve_status::optimal) return false;
    request_stop(s);
    return true;
  }

  // Worker 0 checks limits and reports progress for everyone. Returns whether a periodic
  // checkpoint is due.
  bool supervise(std::uint64_t open, std::uint64_t own) {
    std::uint64_t branched = 0;
    double explored = 0;
    for (auto& c : counters) {
      branched += c.branched.load(std::memory_order_relaxed);
      explored += c.explored.load(std::memory_order_relaxed);
    }
    const solve_status s = ctl.check(own, branched);
    if (s != solve_status::optimal && s != solve_status::node_limit) request_stop(s);
    take_feed();
    ctl.maybe_report({0, branched, best.value(), open, explored_before + explored});
    return !stopped() && ctl.checkpoint_due();
  }

  // A periodic checkpoint: the callback runs on worker 0 while the others go on; a failure is
  // kept and rethrown after the threads have joined.
  void write_checkpoint(search_state&& state) {
    if (failure) return;
    try {
      ctl.options().on_checkpoint(state);
    } catch (...) {
      fail(std::current_exception());
    }
  }

  // A better schedule from the engine beside the search becomes the incumbent; the workers prune
  // at it from their next pop (they read best.value() before each). Worker 0 only.
  void take_feed() {
    if (failure) return;
    try {
      feed.take(best);
    } catch (...) {
      fail(std::current_exception());
    }
  }

  // An improving leaf (any worker): the incumbent, and a seed for the feed.
  template <class Job>
  void offer_leaf(int value, const Job* perm, int n) {
    if (best.offer(value, perm, n)) feed.offer(perm, n, value);
  }

  void fail(std::exception_ptr e) {
    failure = std::move(e);
    request_stop(solve_status::error);
  }
};

std::vector<job_t> identity(int n) {
  std::vector<job_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// Stops every worker at a point where it holds no node outside its own stack (not expanding, no
// stolen nodes in transit), so that the stacks together are exactly the open nodes: what a
// periodic checkpoint of work stealing copies (docs/decisions/003-checkpoints.md).
// Worker 0 coordinates; the others call `wait` at their safe points when `requested` is set.
// The root, bounded by a sequential expander before the threads start, into `pool` unless its
// bound reaches the threshold (counted in `st` either way). Returns whether it was pushed.
bool seed_root(const bound_data& data, const solve_options& opt, int threshold, dfs_pool& pool, solve_stats& st) {
  const int n = data.view().inst.n;
  expander ex(data, opt.bound, opt.branch, false, opt.dominance);
  auto perm = identity(n);
  const int lb = ex.root_bound(perm.data(), -1, n, threshold);
  ++st.bounds;
  if (lb < threshold) {
    pool.push_root(perm.data(), -1, n, lb);
    return true;
  }
  ++st.pruned;
  st.explored += 1.0;
  return false;
}

// work(1..T-1) on their own threads and work(0) on this one, until all return.
template <class Work>
void on_threads(int T, Work work) {
  std::vector<std::thread> threads;
  for (int t = 1; t < T; ++t) threads.emplace_back(work, t);
  work(0);
  for (auto& th : threads) th.join();
}

class pause_gate {
 public:
  explicit pause_gate(int workers) : others_(workers - 1) {}

  bool requested() const { return requested_.load(std::memory_order_relaxed); }

  // A worker other than 0, holding no node in transit: parks until the coordinator is done.
  void wait() {
    std::unique_lock lock(mu_);
    if (!requested_.load(std::memory_order_relaxed)) return;  // already released
    const std::uint64_t gen = generation_;
    ++parked_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return generation_ != gen; });
    --parked_;
  }
  // A worker other than 0 leaves the search for good.
  void leave() {
    std::lock_guard lock(mu_);
    ++left_;
    cv_.notify_all();
  }
  // Worker 0: parks the others, runs `snapshot` while they are parked, releases them.
  template <class Snapshot>
  void pause_all(Snapshot&& snapshot) {
    std::unique_lock lock(mu_);
    requested_.store(true, std::memory_order_relaxed);
    cv_.wait(lock, [&] { return parked_ + left_ == others_; });
    struct resume_all {  // also when the snapshot throws: no worker stays parked
      pause_gate& g;
      ~resume_all() {
        g.requested_.store(false, std::memory_order_relaxed);
        ++g.generation_;
        g.cv_.notify_all();
      }
    } resume{*this};
    snapshot();
  }

 private:
  std::atomic<bool> requested_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  int others_;
  int parked_ = 0;
  int left_ = 0;
  std::uint64_t generation_ = 0;
};

struct worker_deque {
  explicit worker_deque(int n) : pool(n) {}
  std::mutex mu;
  dfs_pool pool;
  std::atomic<std::size_t> size{0};
};

// One worker's own state: its expander, statistics, stack, scratch permutations, victim
// generator and view of the upper bound.
struct stealing_worker {
  stealing_worker(const bound_data& data, const solve_options& opt, int worker, solve_stats& stats, worker_deque& own,
                  int n, int start_ub, const std::shared_ptr<memo_table>& memo)
      : id(worker),
        ex(data, opt.bound, opt.branch, opt.profile, opt.dominance),
        st(stats),
        mine(own),
        perm(n),
        leaf_perm(n),
        rng(12345u + static_cast<unsigned>(worker)),
        ub(start_ub) {
    if (memo) ex.enable_memo(memo);
  }
  int id;
  expander ex;
  solve_stats& st;
  worker_deque& mine;
  std::vector<job_t> perm, leaf_perm;
  std::mt19937 rng;
  int ub;
};

// What the two cpu-mt runs share: their inputs, the shared state, the threshold and the per-thread
// counters; run() seeds, runs work(t) on T threads and finishes; summarize() gathers the result.
class mt_run {
 public:
  virtual ~mt_run() = default;

  solve_result run() {
    seed();
    on_threads(T_, [this](int t) {
      try {
        work(t);
      } catch (...) {
        worker_failed(std::current_exception());
      }
      leave(t);
    });
    if (thrown_) std::rethrow_exception(thrown_);
    if (sh_.failure) std::rethrow_exception(sh_.failure);
    return finish();
  }

 protected:
  mt_run(const bound_data& data, const solve_options& opt, const incumbent& start, const std::string& kind)
      : data_(data),
        opt_(opt),
        n_(data.view().inst.n),
        T_(std::max(1, opt.threads)),
        sh_(opt, start, T_, data.view().inst),
        threshold_(opt.resume ? opt.resume->threshold : initial_threshold(opt, sh_.best)),
        backend_("cpu-mt (" + kind + ", " + std::to_string(T_) + " threads)"),
        stats_(T_),
        memo_(opt.memo_bytes > 0
                  ? std::make_shared<memo_table>(n_, data.view().inst.m, opt.memo_bytes * static_cast<std::size_t>(T_))
                  : nullptr) {}

  virtual void seed() = 0;
  virtual void work(int t) = 0;
  virtual solve_result finish() = 0;
  // Worker t is done, returned or thrown: what the others wait on from it is released, so they
  // see the stop or the end and return.
  virtual void leave(int t) = 0;

  // A worker's exception (std::bad_alloc most likely) stops the others; the first is rethrown
  // after the join.
  void worker_failed(std::exception_ptr e) {
    {
      std::lock_guard lock(thrown_mu_);
      if (!thrown_) thrown_ = std::move(e);
    }
    sh_.request_stop(solve_status::error);
  }

  // The result of a run that ended with `stop`, its open nodes' least bound open_min.
  solve_result summarize(solve_status stop, int open_min) const {
    solve_stats piece;
    for (const auto& s : stats_) piece += s;
    const solve_stats total = cumulative_stats(opt_, piece, sh_.ctl.elapsed());
    solve_result r = finish_result(stop, sh_.best, threshold_, open_min, total, total.total_seconds);
    r.backend = backend_;
    if (sh_.feed.active()) r.notes.push_back(feed_note(sh_.feed));
    return r;
  }

  const bound_data& data_;
  const solve_options& opt_;
  const int n_;
  const int T_;
  shared_state sh_;
  const int threshold_;
  const std::string backend_;
  std::vector<solve_stats> stats_;
  std::shared_ptr<memo_table> memo_;  // memo dominance, one table for all workers; null: off
  std::mutex thrown_mu_;
  std::exception_ptr thrown_;  // the first exception a worker threw
};

// One work-stealing solve, in named steps: seed the stacks (the root, or a checkpoint's stacks),
// run the workers (expand from the own stack; when it is empty, steal the bottom half of a
// victim's; worker 0 supervises and checkpoints), then gather the result.
class work_stealing_run final : public mt_run {
 public:
  work_stealing_run(const bound_data& data, const solve_options& opt, const incumbent& start)
      : mt_run(data, opt, start, "work stealing"), gate_(T_) {
    for (int t = 0; t < T_; ++t) dq_.push_back(std::make_unique<worker_deque>(n_));
  }

 private:
  // The resumed stacks dealt to the threads in turn (the thread count may differ), or the root,
  // bounded by worker 0's expander before the threads start.
  void seed() override {
    if (opt_.resume) {
      PFSP_EXPECTS(opt_.resume->n == n_, "checkpoint for another instance size");
      check_lb2_pairs(*opt_.resume, data_, "the checkpoint");
      std::vector<dfs_pool*> pools;
      for (auto& d : dq_) pools.push_back(&d->pool);
      restore_stacks(*opt_.resume, pools);
      for (auto& d : dq_) d->size = d->pool.size();
      return;
    }
    if (seed_root(data_, opt_, threshold_, dq_[0]->pool, stats_[0])) dq_[0]->size = 1;
  }

  // Only while every node is in a stack: the others parked, or the threads joined.
  search_state state(bool complete) {
    solve_stats piece;
    for (const auto& st : stats_) piece += st;
    search_state s = make_search_state(data_, opt_, threshold_, sh_.best, piece, sh_.ctl.elapsed(), backend_);
    s.complete = complete;
    for (auto& d : dq_) {
      std::lock_guard lock(d->mu);
      s.add_stack(d->pool);
    }
    return s;
  }

  // Worker 0, holding no node outside its stack.
  void periodic_checkpoint() {
    search_state s;
    gate_.pause_all([&] { s = state(false); });
    s.complete = s.open() == 0;  // no node in any stack nor in transit: nothing is left
    sh_.write_checkpoint(std::move(s));
  }

  void work(int id) override {
    stealing_worker w(data_, opt_, id, stats_[id], *dq_[id], n_, std::min(threshold_, sh_.best.value()), memo_);
    while (!sh_.stopped()) {
      if (id != 0 && gate_.requested()) gate_.wait();  // safe point: all my nodes are in my stack
      if (expand_own(w)) {
        publish(w);
        continue;
      }
      if (sh_.stopped()) break;
      if (!steal(w)) break;
    }
    sh_.counters[id].branched.store(w.st.branched, std::memory_order_relaxed);
  }

  void leave(int id) override {
    if (id != 0) gate_.leave();
  }

  // Pops the own stack until a node is expanded (true) or the stack is empty or the node limit
  // reached (false); nodes whose bound reaches the upper bound are pruned on the way.
  bool expand_own(stealing_worker& w) {
    auto push = [&w](const job_t* parent, int a, int b, int l1, int l2, int lb) {
      w.mine.pool.push(parent, a, b, l1, l2, lb);
    };
    auto leaf = [&w, this](const job_t* parent, int a, int b, int value) {
      std::copy(parent, parent + n_, w.leaf_perm.begin());
      std::swap(w.leaf_perm[a], w.leaf_perm[b]);
      sh_.offer_leaf(value, w.leaf_perm.data(), n_);
      w.ub = std::min(w.ub, value);
    };
    bool have = false;
    std::lock_guard lock(w.mine.mu);
    while (!w.mine.pool.empty() && sh_.may_expand()) {
      const node_meta m = w.mine.pool.pop(w.perm.data());
      w.ub = std::min(w.ub, sh_.best.value());
      if (m.lb >= w.ub) {
        ++w.st.pruned;
        w.st.explored += w.ex.weight(m.limit1 + 1 + n_ - m.limit2);
        continue;
      }
      if (opt_.order == child_order::incumbent) w.ex.follow(sh_.best);
      if (!w.ex.expand(w.perm.data(), m.limit1, m.limit2, w.ub, push, leaf, w.st, [this] { return sh_.abandon(); })) {
        w.mine.pool.push_root(w.perm.data(), m.limit1, m.limit2, m.lb);  // given up: back, as it was
        break;
      }
      sh_.count_expansion();
      have = true;
      break;
    }
    w.mine.size.store(w.mine.pool.size(), std::memory_order_relaxed);
    return have;
  }

  // After an expansion: the worker's counters for the reports; worker 0 checks the limits,
  // reports progress and writes a periodic checkpoint when one is due.
  void publish(stealing_worker& w) {
    sh_.counters[w.id].branched.store(w.st.branched, std::memory_order_relaxed);
    sh_.counters[w.id].explored.store(w.st.explored, std::memory_order_relaxed);
    if (w.id == 0 && sh_.ctl.due(w.st.branched)) {
      std::uint64_t open = 0;
      for (auto& d : dq_) open += d->size.load(std::memory_order_relaxed);
      if (sh_.supervise(open, w.st.branched)) periodic_checkpoint();
    }
  }

  // Out of work: steals the bottom half of a random victim's stack (true), or returns false when
  // every thread is idle with an empty stack or the search stops.
  bool steal(stealing_worker& w) {
    const int id = w.id;
    idle_.fetch_add(1);
    bool got = false;
    while (!got && !sh_.stopped()) {
      if (idle_.load() == T_) break;
      if (id != 0 && gate_.requested()) gate_.wait();  // safe point: no stolen node in transit
      const int first = static_cast<int>(w.rng() % static_cast<unsigned>(T_));
      for (int s = 0; s < T_ && !got; ++s) {
        const int v = (first + s) % T_;
        if (v == id || dq_[v]->size.load(std::memory_order_relaxed) == 0) continue;
        idle_.fetch_sub(1);  // not idle while holding stolen nodes
        dfs_pool loot(n_);
        {
          std::lock_guard lock(dq_[v]->mu);
          const std::size_t sz = dq_[v]->pool.size();
          if (sz > 0) dq_[v]->pool.steal_bottom(loot, (sz + 1) / 2);
          dq_[v]->size.store(dq_[v]->pool.size(), std::memory_order_relaxed);
        }
        if (!loot.empty()) {
          std::lock_guard lock(w.mine.mu);
          loot.steal_bottom(w.mine.pool, loot.size());
          w.mine.size.store(w.mine.pool.size(), std::memory_order_relaxed);
          got = true;
        } else {
          idle_.fetch_add(1);
        }
      }
      if (!got) {
        if (id == 0 && sh_.supervise(0, w.st.branched)) periodic_checkpoint();
        std::this_thread::yield();
      }
    }
    return got;
  }

  solve_result finish() override {
    auto stop = static_cast<solve_status>(sh_.stop.load());
    // A limit noticed as the last node closed: every stack is empty, so the search is complete.
    if (std::all_of(dq_.begin(), dq_.end(), [](const auto& d) { return d->pool.empty(); }))
      stop = solve_status::optimal;
    emit_checkpoint(opt_, [&] { return state(stop == solve_status::optimal); });
    int open_min = INT_MAX;
    for (auto& d : dq_) open_min = std::min(open_min, d->pool.min_lb());
    return summarize(stop, open_min);
  }

  std::vector<std::unique_ptr<worker_deque>> dq_;
  std::atomic<int> idle_{0};
  pause_gate gate_;
};

solve_result work_stealing(const bound_data& data, const solve_options& opt, const incumbent& start) {
  return work_stealing_run(data, opt, start).run();
}

// One shared depth-first queue under a mutex (--shared-queue): a worker pops a node, expands it
// outside the lock and pushes its children back; a checkpoint pauses the pops until no worker
// holds a node.
class shared_queue_run final : public mt_run {
 public:
  shared_queue_run(const bound_data& data, const solve_options& opt, const incumbent& start)
      : mt_run(data, opt, start, "shared queue"), queue_(n_) {}

 private:
  // The resumed stacks into the queue, or the root, bounded before the threads start.
  void seed() override {
    if (opt_.resume) {
      PFSP_EXPECTS(opt_.resume->n == n_, "checkpoint for another instance size");
      check_lb2_pairs(*opt_.resume, data_, "the checkpoint");
      restore_stacks(*opt_.resume, {&queue_});
      return;
    }
    seed_root(data_, opt_, threshold_, queue_, stats_[0]);
  }

  // With mu_ held and busy_ == 0 (or after the join): the queue is every open node.
  search_state state(bool complete) const {
    solve_stats piece;
    for (const auto& st : stats_) piece += st;
    search_state s = make_search_state(data_, opt_, threshold_, sh_.best, piece, sh_.ctl.elapsed(), backend_);
    s.complete = complete;
    s.add_stack(queue_);
    return s;
  }

  // A worker: pop under the lock, expand outside it, push the children back.
  void work(int id) override {
    expander ex(data_, opt_.bound, opt_.branch, opt_.profile, opt_.dominance);
    if (memo_) ex.enable_memo(memo_);
    solve_stats& st = stats_[id];
    std::vector<job_t> perm(n_), leaf_perm(n_);
    dfs_pool children(n_);
    int ub = std::min(threshold_, sh_.best.value());
    auto push = [&](const job_t* parent, int a, int b, int l1, int l2, int lb) {
      children.push(parent, a, b, l1, l2, lb);
    };
    auto leaf = [&](const job_t* parent, int a, int b, int value) {
      std::copy(parent, parent + n_, leaf_perm.begin());
      std::swap(leaf_perm[a], leaf_perm[b]);
      sh_.offer_leaf(value, leaf_perm.data(), n_);
      ub = std::min(ub, value);
    };
    std::unique_lock lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return sh_.stopped() || (!pause_ && (!queue_.empty() || busy_ == 0)); });
      if (sh_.stopped() || queue_.empty() || !sh_.may_expand()) break;
      const node_meta m = queue_.pop(perm.data());
      ++busy_;
      holding_[static_cast<std::size_t>(id)] = 1;
      lock.unlock();
      ub = std::min(ub, sh_.best.value());
      if (opt_.order == child_order::incumbent) ex.follow(sh_.best);
      if (m.lb >= ub) {
        ++st.pruned;
        st.explored += ex.weight(m.limit1 + 1 + n_ - m.limit2);
      } else if (ex.expand(perm.data(), m.limit1, m.limit2, ub, push, leaf, st, [this] { return sh_.abandon(); })) {
        sh_.count_expansion();
      } else {
        children.push_root(perm.data(), m.limit1, m.limit2, m.lb);  // given up: back to the queue, as it was
      }
      sh_.counters[id].branched.store(st.branched, std::memory_order_relaxed);
      sh_.counters[id].explored.store(st.explored, std::memory_order_relaxed);
      const bool checkpoint = id == 0 && sh_.ctl.due(st.branched) && sh_.supervise(0, st.branched);
      lock.lock();
      children.steal_bottom(queue_, children.size());
      --busy_;
      holding_[static_cast<std::size_t>(id)] = 0;
      cv_.notify_all();
      if (checkpoint) write_checkpoint(lock);
    }
  }  // leave() wakes the others

  // Worker 0 holds nothing now; the others finish their node and wait (pause_). Called and
  // returns with `lock` held.
  void write_checkpoint(std::unique_lock<std::mutex>& lock) {
    pause_ = true;
    cv_.wait(lock, [&] { return busy_ == 0; });
    search_state s = state(queue_.empty());  // busy_ == 0: nothing outside the queue
    pause_ = false;
    cv_.notify_all();
    lock.unlock();
    sh_.write_checkpoint(std::move(s));
    lock.lock();
  }

  solve_result finish() override {
    auto stop = static_cast<solve_status>(sh_.stop.load());
    if (queue_.empty()) stop = solve_status::optimal;  // a limit noticed as the last node closed
    emit_checkpoint(opt_, [&] { return state(stop == solve_status::optimal); });
    return summarize(stop, queue_.empty() ? INT_MAX : queue_.min_lb());
  }

  void leave(int id) override {
    std::lock_guard lock(mu_);
    if (holding_[static_cast<std::size_t>(id)]) --busy_;
    holding_[static_cast<std::size_t>(id)] = 0;
    cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  dfs_pool queue_;
  int busy_ = 0;  // workers holding a popped node or its children outside the queue
  std::vector<char> holding_ = std::vector<char>(static_cast<std::size_t>(T_), 0);  // per worker: counted in busy_
  bool pause_ = false;  // a checkpoint waits for busy_ == 0: no node may be popped meanwhile
};

solve_result shared_queue(const bound_data& data, const solve_options& opt, const incumbent& start) {
  return shared_queue_run(data, opt, start).run();
}

}  // namespace

solve_result solve_parallel(const bound_data& data, const solve_options& opt, const incumbent& start) {
  if (opt.select != selection::depth_first) throw input_error("--backend cpu-mt supports --selection depth-first only");
  return opt.shared_queue ? shared_queue(data, opt, start) : work_stealing(data, opt, start);
}

}  // namespace pfsp
