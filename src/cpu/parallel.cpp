#include "cpu/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "problem/error.hpp"
#include "search/expander.hpp"
#include "search/node_pool.hpp"

namespace pfsp {
namespace {

// State every worker publishes for progress reports and the final statistics.
struct alignas(64) worker_counters {
  std::atomic<std::uint64_t> branched{0};
  std::atomic<double> explored{0};
};

struct shared_state {
  explicit shared_state(const solve_options& opt, const incumbent& start, int nthreads)
      : ctl(opt), best(start), counters(nthreads) {}
  run_control ctl;
  incumbent best;
  std::atomic<int> stop{static_cast<int>(solve_status::optimal)};
  std::atomic<std::uint64_t> branched_total{0};  // kept only with a node limit
  std::vector<worker_counters> counters;

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

  // Worker 0 checks limits and reports progress for everyone.
  void supervise(std::uint64_t open) {
    std::uint64_t branched = 0;
    double explored = 0;
    for (auto& c : counters) {
      branched += c.branched.load(std::memory_order_relaxed);
      explored += c.explored.load(std::memory_order_relaxed);
    }
    const solve_status s = ctl.check(branched);
    if (s != solve_status::optimal && s != solve_status::node_limit) request_stop(s);
    ctl.maybe_report({0, branched, best.value(), open, explored});
  }
};

std::vector<job_t> identity(int n) {
  std::vector<job_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

struct worker_deque {
  explicit worker_deque(int n) : pool(n) {}
  std::mutex mu;
  dfs_pool pool;
  std::atomic<std::size_t> size{0};
};

solve_result work_stealing(const bound_data& data, const solve_options& opt, const incumbent& start) {
  const int n = data.view().inst.n;
  const int T = std::max(1, opt.threads);
  shared_state sh(opt, start, T);
  const int threshold = initial_threshold(opt, sh.best);
  std::vector<std::unique_ptr<worker_deque>> dq;
  for (int t = 0; t < T; ++t) dq.push_back(std::make_unique<worker_deque>(n));
  std::vector<solve_stats> stats(T);
  std::atomic<int> idle{0};

  // Root, bounded by worker 0's expander before the threads start.
  {
    expander ex(data, opt.bound, opt.branch, false);
    auto perm = identity(n);
    const int lb = ex.root_bound(perm.data(), -1, n, threshold);
    ++stats[0].bounds;
    if (lb < threshold) {
      dq[0]->pool.push_root(perm.data(), -1, n, lb);
      dq[0]->size = 1;
    } else {
      ++stats[0].pruned;
      stats[0].explored += 1.0;
    }
  }

  auto body = [&](int id) {
    expander ex(data, opt.bound, opt.branch, opt.profile);
    solve_stats& st = stats[id];
    worker_deque& mine = *dq[id];
    std::vector<job_t> perm(n), leaf_perm(n);
    std::mt19937 rng(12345u + static_cast<unsigned>(id));
    int ub = std::min(threshold, sh.best.value());
    auto push = [&](const job_t* parent, int a, int b, int l1, int l2, int lb) { mine.pool.push(parent, a, b, l1, l2, lb); };
    auto leaf = [&](const job_t* parent, int a, int b, int value) {
      std::copy(parent, parent + n, leaf_perm.begin());
      std::swap(leaf_perm[a], leaf_perm[b]);
      sh.best.offer(value, leaf_perm.data(), n);
      ub = std::min(ub, value);
    };
    while (!sh.stopped()) {
      bool have = false;
      {
        std::lock_guard lock(mine.mu);
        while (!mine.pool.empty() && sh.may_expand()) {
          const node_meta m = mine.pool.pop(perm.data());
          ub = std::min(ub, sh.best.value());
          if (m.lb >= ub) {
            ++st.pruned;
            st.explored += ex.weight(m.limit1 + 1 + n - m.limit2);
            continue;
          }
          ex.expand(perm.data(), m.limit1, m.limit2, ub, push, leaf, st);
          sh.count_expansion();
          have = true;
          break;
        }
        mine.size.store(mine.pool.size(), std::memory_order_relaxed);
      }
      if (have) {
        sh.counters[id].branched.store(st.branched, std::memory_order_relaxed);
        sh.counters[id].explored.store(st.explored, std::memory_order_relaxed);
        if (id == 0 && sh.ctl.due(st.branched)) {
          std::uint64_t open = 0;
          for (auto& d : dq) open += d->size.load(std::memory_order_relaxed);
          sh.supervise(open);
        }
        continue;
      }
      if (sh.stopped()) break;
      // Out of work: steal, or end when every thread is idle with an empty stack.
      idle.fetch_add(1);
      bool got = false;
      while (!got && !sh.stopped()) {
        if (idle.load() == T) break;
        const int first = static_cast<int>(rng() % static_cast<unsigned>(T));
        for (int s = 0; s < T && !got; ++s) {
          const int v = (first + s) % T;
          if (v == id || dq[v]->size.load(std::memory_order_relaxed) == 0) continue;
          idle.fetch_sub(1);  // not idle while holding stolen nodes
          dfs_pool loot(n);
          {
            std::lock_guard lock(dq[v]->mu);
            const std::size_t sz = dq[v]->pool.size();
            if (sz > 0) dq[v]->pool.steal_bottom(loot, (sz + 1) / 2);
            dq[v]->size.store(dq[v]->pool.size(), std::memory_order_relaxed);
          }
          if (!loot.empty()) {
            std::lock_guard lock(mine.mu);
            loot.steal_bottom(mine.pool, loot.size());
            mine.size.store(mine.pool.size(), std::memory_order_relaxed);
            got = true;
          } else {
            idle.fetch_add(1);
          }
        }
        if (!got) {
          if (id == 0) sh.supervise(0);
          std::this_thread::yield();
        }
      }
      if (!got) break;
    }
    sh.counters[id].branched.store(st.branched, std::memory_order_relaxed);
  };

  std::vector<std::thread> threads;
  for (int t = 1; t < T; ++t) threads.emplace_back(body, t);
  body(0);
  for (auto& th : threads) th.join();

  solve_stats total;
  for (const auto& s : stats) total += s;
  int open_min = INT_MAX;
  for (auto& d : dq) open_min = std::min(open_min, d->pool.min_lb());
  const auto stop = static_cast<solve_status>(sh.stop.load());
  solve_result r = finish_result(stop, sh.best, threshold, open_min, total, sh.ctl.elapsed());
  r.backend = "cpu-mt (work stealing, " + std::to_string(T) + " threads)";
  return r;
}

solve_result shared_queue(const bound_data& data, const solve_options& opt, const incumbent& start) {
  const int n = data.view().inst.n;
  const int T = std::max(1, opt.threads);
  shared_state sh(opt, start, T);
  const int threshold = initial_threshold(opt, sh.best);
  std::mutex mu;
  std::condition_variable cv;
  dfs_pool queue(n);
  int busy = 0;
  std::vector<solve_stats> stats(T);
  {
    expander ex(data, opt.bound, opt.branch, false);
    auto perm = identity(n);
    const int lb = ex.root_bound(perm.data(), -1, n, threshold);
    ++stats[0].bounds;
    if (lb < threshold) {
      queue.push_root(perm.data(), -1, n, lb);
    } else {
      ++stats[0].pruned;
      stats[0].explored += 1.0;
    }
  }
  auto body = [&](int id) {
    expander ex(data, opt.bound, opt.branch, opt.profile);
    solve_stats& st = stats[id];
    std::vector<job_t> perm(n), leaf_perm(n);
    dfs_pool children(n);
    int ub = threshold;
    auto push = [&](const job_t* parent, int a, int b, int l1, int l2, int lb) { children.push(parent, a, b, l1, l2, lb); };
    auto leaf = [&](const job_t* parent, int a, int b, int value) {
      std::copy(parent, parent + n, leaf_perm.begin());
      std::swap(leaf_perm[a], leaf_perm[b]);
      sh.best.offer(value, leaf_perm.data(), n);
      ub = std::min(ub, value);
    };
    std::unique_lock lock(mu);
    while (true) {
      cv.wait(lock, [&] { return !queue.empty() || busy == 0 || sh.stopped(); });
      if (sh.stopped() || queue.empty() || !sh.may_expand()) break;
      const node_meta m = queue.pop(perm.data());
      ++busy;
      lock.unlock();
      ub = std::min(ub, sh.best.value());
      if (m.lb >= ub) {
        ++st.pruned;
        st.explored += ex.weight(m.limit1 + 1 + n - m.limit2);
      } else {
        ex.expand(perm.data(), m.limit1, m.limit2, ub, push, leaf, st);
        sh.count_expansion();
      }
      sh.counters[id].branched.store(st.branched, std::memory_order_relaxed);
      sh.counters[id].explored.store(st.explored, std::memory_order_relaxed);
      if (id == 0 && sh.ctl.due(st.branched)) sh.supervise(0);
      lock.lock();
      children.steal_bottom(queue, children.size());
      --busy;
      cv.notify_all();
    }
    cv.notify_all();
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < T; ++t) threads.emplace_back(body, t);
  body(0);
  for (auto& th : threads) th.join();
  solve_stats total;
  for (const auto& s : stats) total += s;
  const auto stop = static_cast<solve_status>(sh.stop.load());
  solve_result r = finish_result(stop, sh.best, threshold, queue.empty() ? INT_MAX : queue.min_lb(), total, sh.ctl.elapsed());
  r.backend = "cpu-mt (shared queue, " + std::to_string(T) + " threads)";
  return r;
}

}  // namespace

solve_result solve_parallel(const bound_data& data, const solve_options& opt, const incumbent& start) {
  if (opt.select != selection::depth_first)
    throw input_error("--backend cpu-mt supports --selection depth-first only");
  return opt.shared_queue ? shared_queue(data, opt, start) : work_stealing(data, opt, start);
}

}  // namespace pfsp
