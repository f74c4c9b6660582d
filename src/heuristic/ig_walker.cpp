#include "heuristic/ig_walker.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

namespace pfsp {
namespace {

bool stopped(const std::atomic<bool>* stop) { return stop && stop->load(std::memory_order_relaxed); }

}  // namespace

ig_walker::ig_walker(const instance& inst, const walk_options& opt, std::uint64_t seed)
    : kernel_(inst), opt_(opt), rng_(seed_random(seed)) {
  long long total = 0;
  for (int v : inst.p) total += v;
  // The paper's temperature: T times the mean processing time, divided by 10.
  temperature_ = std::max(1e-9, opt.temperature * static_cast<double>(total) / (10.0 * inst.n * inst.m));
  cur_.reserve(static_cast<std::size_t>(inst.n));
}

void ig_walker::restart(const std::vector<int>& schedule, int value) {
  cur_ = schedule;
  cur_value_ = value;
  if (best_.empty() || value < best_value_) {
    best_ = schedule;
    best_value_ = value;
    best_round_ = rounds_;
  }
}

void ig_walker::reset(const std::vector<int>& schedule, int value) {
  cur_ = schedule;
  cur_value_ = value;
  best_ = schedule;
  best_value_ = value;
  best_round_ = rounds_;
}

bool ig_walker::descend(const std::atomic<bool>* stop) {
  work_ = cur_;
  int value = cur_value_;
  if (!local_search(work_, value, stop)) return false;
  accept(work_, value);
  return true;
}

// Insertion local search: every job, in a random order, is taken out and put back at its best
// position; a pass that strictly improves the makespan is followed by another. With random ties,
// a job also moves to an equally good position (a sideways move), never to a worse one.
bool ig_walker::local_search(std::vector<int>& seq, int& value, const std::atomic<bool>* stop) {
  const int len = static_cast<int>(seq.size());
  if (len < 2) return true;
  order_ = seq;
  bool improved = true;
  while (improved) {
    improved = false;
    for (int i = len - 1; i > 0; --i)
      std::swap(order_[static_cast<std::size_t>(i)], order_[static_cast<std::size_t>(random_below(rng_, i + 1))]);
    bool loaded = false;  // the kernel remembers seq's heads and tails
    for (const int job : order_) {
      if (stopped(stop)) return false;
      const auto it = std::find(seq.begin(), seq.end(), job);
      const auto from = static_cast<int>(it - seq.begin());
      if (!loaded) {
        kernel_.load(seq.data(), len);
        kernel_.remember_full();
        loaded = true;
      }
      kernel_.load_removed(seq.data(), len, from);
      const auto [pos, v] = insert_position(job);
      if (pos != from && (v < value || (v == value && opt_.random_ties))) {
        seq.erase(it);
        seq.insert(seq.begin() + pos, job);
        if (v < value) improved = true;
        value = v;
        loaded = false;
      }
    }
  }
  return true;
}

std::pair<int, int> ig_walker::insert_position(int job) {
  std::uint64_t* rng = opt_.random_ties ? &rng_ : nullptr;
  return opt_.idle_ties ? kernel_.best_insertion_idle(job, rng) : kernel_.best_insertion(job, rng);
}

bool ig_walker::round(const std::atomic<bool>* stop) {
  work_ = cur_;
  const int n = static_cast<int>(work_.size());
  const int d = std::min(opt_.destruct, n - 1);
  if (d < 1) return true;
  removed_.clear();
  for (int r = 0; r < d; ++r) {
    const auto idx = static_cast<std::size_t>(random_below(rng_, static_cast<int>(work_.size())));
    removed_.push_back(work_[idx]);
    work_.erase(work_.begin() + static_cast<std::ptrdiff_t>(idx));
  }
  if (opt_.partial_ls) {
    int partial = kernel_.makespan(work_.data(), static_cast<int>(work_.size()));
    if (!local_search(work_, partial, stop)) return false;
  }
  int value = 0;
  for (const int job : removed_) {
    if (stopped(stop)) return false;
    kernel_.load(work_.data(), static_cast<int>(work_.size()));
    const auto [pos, v] = insert_position(job);
    work_.insert(work_.begin() + pos, job);
    value = v;
  }
  if (!local_search(work_, value, stop)) return false;
  ++rounds_;
  accept(work_, value);
  return true;
}

void ig_walker::accept(std::vector<int>& candidate, int value) {
  if (value < cur_value_ || random_unit(rng_) < std::exp(-(value - cur_value_) / temperature_)) {
    cur_.swap(candidate);
    cur_value_ = value;
  }
  // best_value_ <= cur_value_ always, so a new best was accepted above and is cur_.
  if (value < best_value_) {
    best_ = cur_;
    best_value_ = value;
    best_round_ = rounds_;
  }
}

}  // namespace pfsp
