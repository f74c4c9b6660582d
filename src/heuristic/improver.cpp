#include "heuristic/improver.hpp"

#include <algorithm>

#include "heuristic/iterated_greedy.hpp"

namespace pfsp {

concurrent_improver::concurrent_improver(const instance& inst, std::vector<int> start, int threads,
                                         std::uint32_t seed)
    : inst_(inst), seed_base_(seed) {
  if (!start.empty()) {
    const int v = evaluate_schedule(inst, start);
    best_schedule_ = start;
    best_.store(v);
    seed_ = std::move(start);
    seed_value_ = v;
  } else {
    const neh_result h = neh(inst);
    best_schedule_ = h.schedule;
    best_.store(h.makespan);
  }
  for (int t = 0; t < std::max(1, threads); ++t) threads_.emplace_back([this, t] { work(t); });
}

concurrent_improver::~concurrent_improver() { stop(); }

void concurrent_improver::stop() {
  stop_.store(true);
  for (auto& th : threads_)
    if (th.joinable()) th.join();
}

void concurrent_improver::offer_seed(const std::vector<int>& schedule, int makespan) {
  std::lock_guard lock(mu_);
  if (makespan >= seed_value_ && !seed_.empty()) return;
  seed_ = schedule;
  seed_value_ = makespan;
}

std::vector<int> concurrent_improver::best_schedule() const {
  std::lock_guard lock(mu_);
  return best_schedule_;
}

void concurrent_improver::work(int t) {
  // Short runs (about a tenth of the start heuristic's rounds, at least 5), each from the best
  // schedule known or a newer seed, each with a new random stream: a restart strategy that picks
  // up what the B&B finds within one run.
  ig_options opt;
  opt.iterations = std::max(5, auto_ig_iterations(inst_) / 10);
  std::uint32_t run = 0;
  while (!stop_.load()) {
    neh_result from;
    {
      std::lock_guard lock(mu_);
      if (!seed_.empty() && seed_value_ <= best_.load()) {
        from = {seed_, seed_value_};
        seed_.clear();  // one thread restarts from a seed; the others from the best
      } else {
        from = {best_schedule_, best_.load()};
      }
    }
    opt.seed = seed_base_ + 7919u * static_cast<std::uint32_t>(t) + 104729u * run++;
    const neh_result r = iterated_greedy_from(inst_, from, opt, &stop_);
    rounds_.fetch_add(static_cast<std::uint64_t>(opt.iterations));
    if (r.makespan < best_.load()) {
      const int check = evaluate_schedule(inst_, r.schedule);  // exactness: never trust a cached value
      std::lock_guard lock(mu_);
      if (check < best_.load()) {
        best_schedule_ = r.schedule;
        best_.store(check);
        improvements_.fetch_add(1);
      }
    }
  }
}

}  // namespace pfsp
