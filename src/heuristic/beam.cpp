#include "heuristic/beam.hpp"

#include <algorithm>
#include <climits>
#include <queue>
#include <thread>

#include "heuristic/neh.hpp"

namespace pfsp {

// The nodes of one depth, structure of arrays: machine values at [node * m + k], job flags at
// [node * n + j].
struct beam_search::level {
  int count = 0;
  std::vector<int> front, back, left, idle_front, idle_back;
  std::vector<std::uint8_t> used;
  std::vector<std::uint8_t> made_forward;  // the direction the node's own job was placed in

  void resize(int nodes, int n, int m) {
    count = nodes;
    const auto cells = static_cast<std::size_t>(nodes) * static_cast<std::size_t>(m);
    for (auto* v : {&front, &back, &left, &idle_front, &idle_back}) v->assign(cells, 0);
    used.assign(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(n), 0);
    made_forward.assign(static_cast<std::size_t>(nodes), 0);
  }
};

bool beam_search::candidate::operator<(const candidate& o) const {
  if (guide != o.guide) return guide < o.guide;
  if (parent != o.parent) return parent < o.parent;
  return job < o.job;
}

namespace {

std::size_t at(int node, int width, int k) {
  return static_cast<std::size_t>(node) * static_cast<std::size_t>(width) + static_cast<std::size_t>(k);
}

double idle_ratio(int idle, int busy) { return busy == 0 ? 1.0 : static_cast<double>(idle) / busy; }

std::int64_t pack_link(int parent, int job, bool forward) {
  return (static_cast<std::int64_t>(parent) << 17) | (static_cast<std::int64_t>(job) << 1) | (forward ? 1 : 0);
}

}  // namespace

beam_search::beam_search(const instance& inst, beam_options opt)
    : inst_(inst),
      opt_(opt),
      n_(inst.n),
      m_(inst.m),
      pj_(job_major_times(inst)),
      workers_(static_cast<std::size_t>(std::max(1, opt.threads))) {
  for (auto& w : workers_) {
    for (auto* v : {&w.bounds, &w.other, &w.t, &w.chain}) v->resize(static_cast<std::size_t>(n_));
    w.side_ratio.resize(static_cast<std::size_t>(m_));
  }
}

void beam_search::init_root(level& root) const {
  root.resize(1, n_, m_);
  for (int j = 0; j < n_; ++j)
    for (int k = 0; k < m_; ++k) root.left[at(0, m_, k)] += pj_[at(j, m_, k)];
}

namespace {

// The chained one-machine bound (LB1, bound/lb1.hpp) of every job's child at once, O(m) each
// (used jobs get a value too, never read): the machines in the outer loop and the jobs in the inner one, over
// machine-major times, so that the compiler vectorises across jobs; cloned for AVX2 where the CPU has it.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void all_children_bounds(int n, int m, const int* pk, const int* start, const int* end, const int* left,
                         bool forward, int* t, int* chain, int* out) {
  std::fill_n(t, n, 0);
  std::fill_n(chain, n, 0);
  std::fill_n(out, n, 0);
  for (int s = 0; s < m; ++s) {
    const int k = forward ? s : m - 1 - s;
    const int* p = pk + static_cast<std::ptrdiff_t>(k) * n;
    const int from = start[k], to = end[k], rest = left[k];
    for (int j = 0; j < n; ++j) {
      const int tj = std::max(t[j], from) + p[j];
      t[j] = tj;
      const int cj = std::max(chain[j], tj + rest - p[j]);
      chain[j] = cj;
      out[j] = std::max(out[j], cj + to);
    }
  }
}

}  // namespace

// The bounds of every child of `node` in one direction into out[j].
void beam_search::children_bounds(const level& lv, int node, bool forward, worker& w, std::vector<int>& out) const {
  const int* f = &lv.front[at(node, m_, 0)];
  const int* b = &lv.back[at(node, m_, 0)];
  all_children_bounds(n_, m_, inst_.p.data(), forward ? f : b, forward ? b : f, &lv.left[at(node, m_, 0)], forward,
                      w.t.data(), w.chain.data(), out.data());
}

// The guide of a child (header): its idle ratios on both sides, weighted against its bound by depth.
// The other side's ratio per machine (idle / busy of the suffix going forward, of the prefix going
// backward) is the node's, the same for every child: side_ratio[k], from side_ratios.
double beam_search::child_guide(const level& lv, int node, int job, bool forward, int bound, int depth,
                                const double* side_ratio) const {
  const int* f = &lv.front[at(node, m_, 0)];
  const int* b = &lv.back[at(node, m_, 0)];
  const int* idf = &lv.idle_front[at(node, m_, 0)];
  const int* idb = &lv.idle_back[at(node, m_, 0)];
  const int* p = &pj_[at(job, m_, 0)];
  double weighted = 0;
  int t = 0;
  if (forward) {
    for (int k = 0; k < m_; ++k) {
      const int start = std::max(t, f[k]);
      const int idle = idf[k] + (k > 0 || f[k] > 0 ? start - f[k] : 0);
      t = start + p[k];
      weighted += idle_ratio(idle, t) + side_ratio[k];
    }
  } else {
    for (int k = m_ - 1; k >= 0; --k) {
      const int start = std::max(t, b[k]);
      const int idle = idb[k] + (k < m_ - 1 || b[k] > 0 ? start - b[k] : 0);
      t = start + p[k];
      weighted += idle_ratio(idle, t) + side_ratio[k];
    }
  }
  const double a = static_cast<double>(depth) / n_;
  return a * bound + (1.0 - a) * weighted * bound;
}

void beam_search::side_ratios(const level& lv, int node, bool forward, double* out) const {
  const int* side = forward ? &lv.back[at(node, m_, 0)] : &lv.front[at(node, m_, 0)];
  const int* idle = forward ? &lv.idle_back[at(node, m_, 0)] : &lv.idle_front[at(node, m_, 0)];
  for (int k = 0; k < m_; ++k) out[k] = idle_ratio(idle[k], side[k]);
}

// Forward or backward (header): fewer children under the target, then the larger sum of bounds,
// then the opposite of the node's own direction. Leaves each free job's bound in the chosen
// direction in w.bounds[j].
bool beam_search::choose_forward(const level& lv, int node, int depth, int target, worker& w) const {
  const std::uint8_t* used = &lv.used[at(node, n_, 0)];
  if (!opt_.bidirectional || depth <= 1) {
    const bool fwd = !opt_.bidirectional || depth == 0;
    children_bounds(lv, node, fwd, w, w.bounds);
    return fwd;
  }
  children_bounds(lv, node, true, w, w.bounds);
  children_bounds(lv, node, false, w, w.other);
  int alive_f = 0, alive_b = 0;
  long long sum_f = 0, sum_b = 0;
  for (int j = 0; j < n_; ++j) {
    if (used[j]) continue;
    const int bf = w.bounds[static_cast<std::size_t>(j)], bb = w.other[static_cast<std::size_t>(j)];
    if (bf < target) ++alive_f, sum_f += bf;
    if (bb < target) ++alive_b, sum_b += bb;
  }
  bool fwd = lv.made_forward[static_cast<std::size_t>(node)] == 0;
  if (alive_f != alive_b)
    fwd = alive_f < alive_b;
  else if (sum_f != sum_b)
    fwd = sum_f > sum_b;
  if (!fwd) w.bounds.swap(w.other);
  return fwd;
}

void beam_search::make_child(const level& lv, int node, int job, bool forward, level& out, int slot) const {
  for (auto [src, dst] :
       {std::pair{&lv.front, &out.front}, std::pair{&lv.back, &out.back}, std::pair{&lv.left, &out.left},
        std::pair{&lv.idle_front, &out.idle_front}, std::pair{&lv.idle_back, &out.idle_back}})
    std::copy_n(src->begin() + static_cast<std::ptrdiff_t>(at(node, m_, 0)), m_,
                dst->begin() + static_cast<std::ptrdiff_t>(at(slot, m_, 0)));
  std::copy_n(lv.used.begin() + static_cast<std::ptrdiff_t>(at(node, n_, 0)), n_,
              out.used.begin() + static_cast<std::ptrdiff_t>(at(slot, n_, 0)));
  out.used[at(slot, n_, job)] = 1;
  out.made_forward[static_cast<std::size_t>(slot)] = forward ? 1 : 0;
  int* f = &out.front[at(slot, m_, 0)];
  int* b = &out.back[at(slot, m_, 0)];
  int* l = &out.left[at(slot, m_, 0)];
  int* idle = forward ? &out.idle_front[at(slot, m_, 0)] : &out.idle_back[at(slot, m_, 0)];
  const int* p = &pj_[at(job, m_, 0)];
  int t = 0;
  for (int s = 0; s < m_; ++s) {
    const int k = forward ? s : m_ - 1 - s;
    int& side = forward ? f[k] : b[k];
    const int start = std::max(t, side);
    if (s > 0 || side > 0) idle[k] += start - side;
    t = start + p[k];
    side = t;
    l[k] -= p[k];
  }
}

// The schedule of a leaf: forward jobs from the root down, then backward jobs from the leaf up.
std::vector<int> beam_search::rebuild(const std::vector<std::vector<std::int64_t>>& links, int leaf) const {
  std::vector<int> prefix, suffix;
  int node = leaf;
  for (int depth = n_; depth > 0; --depth) {
    const std::int64_t link = links[static_cast<std::size_t>(depth)][static_cast<std::size_t>(node)];
    const int job = static_cast<int>((link >> 1) & 0xFFFF);
    ((link & 1) ? prefix : suffix).push_back(job);
    node = static_cast<int>(link >> 17);
  }
  std::reverse(prefix.begin(), prefix.end());
  prefix.insert(prefix.end(), suffix.begin(), suffix.end());
  return prefix;
}

namespace {

// Runs body(t, begin, end) over [0, count) split into `threads` contiguous ranges, one thread each.
template <class Body>
void on_ranges(int count, int threads, const Body& body) {
  if (threads <= 1) return body(0, 0, count);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      body(t, static_cast<int>(1LL * count * t / threads), static_cast<int>(1LL * count * (t + 1) / threads));
    });
  body(0, 0, static_cast<int>(1LL * count / threads));
  for (auto& th : pool) th.join();
}

}  // namespace

// The children of one depth: each worker expands its range of parents into its own `width` best;
// the merge keeps the `width` best of all in candidate order (the same for any thread count).
// False if stopped.
bool beam_search::expand(const level& cur, int depth, int width, int target, const std::atomic<bool>* stop,
                         std::vector<std::uint8_t>& forward, std::vector<candidate>& chosen) {
  const int threads = std::clamp(cur.count / 8, 1, static_cast<int>(workers_.size()));
  std::atomic<bool> stopped{false};
  on_ranges(cur.count, threads, [&](int t, int begin, int end) {
    worker& w = workers_[static_cast<std::size_t>(t)];
    for (int node = begin; node < end; ++node) {
      if (stop && stop->load(std::memory_order_relaxed)) return stopped.store(true);
      const bool fwd = choose_forward(cur, node, depth, target, w);
      forward[static_cast<std::size_t>(node)] = fwd ? 1 : 0;
      side_ratios(cur, node, fwd, w.side_ratio.data());
      const std::uint8_t* used = &cur.used[at(node, n_, 0)];
      for (int j = 0; j < n_; ++j) {
        if (used[j]) continue;
        const int bound = w.bounds[static_cast<std::size_t>(j)];
        ++w.children;
        if (bound >= target) continue;
        const candidate c{child_guide(cur, node, j, fwd, bound, depth + 1, w.side_ratio.data()), node, j};
        if (static_cast<int>(w.kept.size()) < width) {
          w.kept.push(c);
        } else if (c < w.kept.top()) {
          w.kept.pop();
          w.kept.push(c);
        }
      }
    }
  });
  chosen.clear();
  for (auto& w : workers_) {
    stats_.children += w.children;
    w.children = 0;
    for (; !w.kept.empty(); w.kept.pop()) chosen.push_back(w.kept.top());
  }
  if (stopped.load()) return false;
  if (static_cast<int>(chosen.size()) > width) {
    std::nth_element(chosen.begin(), chosen.begin() + width, chosen.end());
    chosen.resize(static_cast<std::size_t>(width));
  }
  std::sort(chosen.begin(), chosen.end());
  return true;
}

std::vector<int> beam_search::pass(int width, int target, const std::atomic<bool>* stop,
                                   const std::function<int()>& outside) {
  level cur, next;
  init_root(cur);
  std::vector<std::vector<std::int64_t>> links(static_cast<std::size_t>(n_) + 1);
  std::vector<std::uint8_t> forward;
  std::vector<candidate> chosen;
  for (int depth = 0; depth < n_; ++depth) {
    if (outside) target = std::min(target, outside());
    forward.assign(static_cast<std::size_t>(cur.count), 0);
    if (!expand(cur, depth, width, target, stop, forward, chosen) || chosen.empty()) return {};
    next.resize(static_cast<int>(chosen.size()), n_, m_);
    auto& link = links[static_cast<std::size_t>(depth) + 1];
    link.resize(chosen.size());
    const int threads = std::clamp(next.count / 64, 1, static_cast<int>(workers_.size()));
    on_ranges(next.count, threads, [&](int, int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const candidate& c = chosen[static_cast<std::size_t>(i)];
        const bool fwd = forward[static_cast<std::size_t>(c.parent)] != 0;
        make_child(cur, c.parent, c.job, fwd, next, i);
        link[static_cast<std::size_t>(i)] = pack_link(c.parent, c.job, fwd);
      }
    });
    std::swap(cur, next);
  }
  // Leaves: the bound is the makespan. The best one (the first of equals).
  int best = 0, best_value = INT_MAX;
  for (int node = 0; node < cur.count; ++node) {
    int value = 0;
    for (int k = 0; k < m_; ++k) value = std::max(value, cur.front[at(node, m_, k)] + cur.back[at(node, m_, k)]);
    if (value < best_value) best_value = value, best = node;
  }
  return rebuild(links, best);
}

int beam_search::memory_width_cap() const {
  const long long node_bytes = 20LL * m_ + n_;
  return static_cast<int>(std::clamp((256LL << 20) / node_bytes, 1LL, static_cast<long long>(INT_MAX)));
}

void beam_search::run(int target, const std::function<void(const std::vector<int>&, int)>& on_better,
                      const std::atomic<bool>* stop, const std::function<int()>& outside) {
  const long long memory_cap = memory_width_cap();
  long long width = std::max(1, opt_.first_width);
  while (!(stop && stop->load())) {
    const int w = static_cast<int>(std::min({width, static_cast<long long>(opt_.max_width), memory_cap}));
    if (outside) target = std::min(target, outside());
    std::vector<int> schedule = pass(w, target, stop, outside);
    if (stop && stop->load()) break;
    ++stats_.passes;
    stats_.last_width = w;
    if (!schedule.empty()) {
      const int value = evaluate_schedule(inst_, schedule);
      if (value < target) {
        ++stats_.improvements;
        on_better(schedule, value);
      }
      target = std::min(target, value);
    }
    width *= 2;
  }
}

}  // namespace pfsp
