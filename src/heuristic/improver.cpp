#include "heuristic/improver.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "heuristic/aspiration.hpp"
#include "heuristic/beam.hpp"
#include "heuristic/iterated_greedy.hpp"

namespace pfsp {

int engine_beam_threads(const instance& inst, int option, int threads) {
  if (option >= 0) return std::min(option, threads);
  return threads >= 2 && inst.n > 20 ? std::max(1, threads / 4) : 0;
}

concurrent_improver::concurrent_improver(const instance& inst, std::vector<int> start, int threads, std::uint32_t seed,
                                         walk_options walk, int beam_threads, beam_plan plan)
    : inst_(inst), beam_(std::clamp(beam_threads, 0, threads)), plan_(std::move(plan)), seed_base_(seed), walk_(walk) {
  if (!start.empty()) {
    const int v = evaluate_schedule(inst, start);
    best_schedule_ = start;
    best_.store(v);
  } else {
    const neh_result h = neh(inst);
    best_schedule_ = h.schedule;
    best_.store(h.makespan);
  }
  // A walker restarts from the engine's best after about a tenth of the start heuristic's rounds
  // without an improvement of its own (at least 10).
  stagnation_ = walk.restart_rounds == 0  ? UINT64_MAX
                : walk.restart_rounds > 0 ? static_cast<std::uint64_t>(walk.restart_rounds)
                                          : static_cast<std::uint64_t>(std::max(10, auto_ig_iterations(inst) / 10));
  if (walk.elite > 0) {
    elite_ = std::make_unique<elite_pool>(
        walk.elite, walk.elite_distance > 0 ? walk.elite_distance : elite_min_distance(inst.n, walk.destruct));
    elite_->offer(best_schedule_, best_.load());
  }
  for (int t = 0; t < threads - std::max(0, beam_ - 1); ++t) threads_.emplace_back([this, t] { work(t); });
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

// The newest seed, if it beats the walker's best: one walker takes it (the others go on).
bool concurrent_improver::take_seed(ig_walker& w) {
  std::lock_guard lock(mu_);
  if (seed_.empty() || seed_value_ >= w.best_value()) return false;
  w.restart(seed_, seed_value_);
  seed_.clear();
  seed_value_ = INT_MAX;
  return true;
}

void concurrent_improver::publish(const ig_walker& w) {
  if (w.best_value() >= best_.load()) return;
  const int check = evaluate_schedule(inst_, w.best());  // exactness: never trust a cached value
  std::lock_guard lock(mu_);
  if (check < best_.load()) {
    best_schedule_ = w.best();
    best_.store(check);
    improvements_.fetch_add(1);
  }
}

void concurrent_improver::publish_external(const std::vector<int>& schedule) {
  if (publish_schedule(schedule)) external_.fetch_add(1);
}

bool concurrent_improver::publish_schedule(const std::vector<int>& schedule) {
  const int check = evaluate_schedule(inst_, schedule);  // throws unless a permutation of the jobs
  std::lock_guard lock(mu_);
  if (elite_) elite_->offer(schedule, check);
  if (check >= best_.load()) return false;
  best_schedule_ = schedule;
  best_.store(check);
  improvements_.fetch_add(1);
  return true;
}

std::string concurrent_improver::summary() const {
  const int walkers = static_cast<int>(threads_.size()) - (beam_ > 0 ? 1 : 0);
  std::string s = std::to_string(walkers) + " iterated-greedy walker" + (walkers == 1 ? "" : "s") + ", " +
                  std::to_string(rounds()) + " rounds, " + std::to_string(improvements()) + " improvements";
  if (beam_ && plan_.bisect && plan_.pass)
    s += "; beam search on the " + plan_.pass_device +
         (" (targets bisected, lower bound " + std::to_string(lower_bound())) + "): width cap " +
         std::to_string(beam_width()) + ", " + std::to_string(beam_improvements()) + " of the improvements";
  else if (beam_)
    s += "; beam search on " + std::to_string(beam_) + " thread" + (beam_ == 1 ? "" : "s") +
         (plan_.bisect ? " (targets bisected, lower bound " + std::to_string(lower_bound()) + "): width cap "
                       : ": width ") +
         std::to_string(beam_width()) + ", " + std::to_string(beam_improvements()) + " of the improvements";
  if (walk_.elite > 0) {
    const elite_stats e = elite();
    s += "; elite pool of " + std::to_string(e.size) + " (mean distance " + std::to_string(e.mean_distance) + "), " +
         std::to_string(e.restarts) + " restarts from it";
  }
  return s;
}

// The beam search's passes at targets bisected between a lower bound and the engine's best; the
// width reported is the widths' cap.
void concurrent_improver::run_bisecting_beam() {
  aspiration_search search(inst_, aspiration_options{.threads = beam_, .lower = plan_.lower});
  lower_.store(search.stats().lower);
  aspiration_hooks hooks{
      .best =
          [this, &search] {
            beam_width_.store(search.stats().cap, std::memory_order_relaxed);
            return best_.load(std::memory_order_relaxed);
          },
      .on_better =
          [this](const std::vector<int>& schedule, int) {
            if (publish_schedule(schedule)) beam_improvements_.fetch_add(1);
          },
      .prove_below = plan_.prove_below,
      .on_lower = [this](int lower) { lower_.store(lower); },
      .outside_lower = [this] { return outside_lower_.load(); },
      .pass = plan_.pass,
      .width_ceiling = plan_.width_ceiling,
  };
  search.run(hooks, &stop_);
}

void concurrent_improver::raise_lower_bound(int value) {
  int now = outside_lower_.load();
  while (value > now && !outside_lower_.compare_exchange_weak(now, value)) {
  }
}

// The beam search's passes, their target the engine's best (read at every depth).
void concurrent_improver::run_beam() {
  if (plan_.bisect) return run_bisecting_beam();
  beam_search beam(inst_, beam_options{.threads = beam_});
  beam.run(
      best_.load(),
      [this](const std::vector<int>& schedule, int) {
        if (publish_schedule(schedule)) beam_improvements_.fetch_add(1);
      },
      &stop_,
      [this, &beam] {
        beam_width_.store(beam.stats().last_width, std::memory_order_relaxed);
        return best_.load(std::memory_order_relaxed);
      });
}

void concurrent_improver::work(int t) {
  if (beam_ > 0 && t == 0) return run_beam();
  ig_walker w(inst_, walk_, seed_base_ + 7919ULL * static_cast<std::uint64_t>(t));
  {
    std::lock_guard lock(mu_);
    w.restart(best_schedule_, best_.load());
  }
  if (w.descend(&stop_)) publish(w);
  walker_pool_side pool;
  pool.rng = seed_random(seed_base_ + 7919ULL * static_cast<std::uint64_t>(t) + 1);
  if (elite_) {
    pool.kernel.emplace(inst_);
    offer_elite(w, pool.offered);
  }
  while (!stop_.load(std::memory_order_relaxed)) {
    // The walker that holds the engine's best walks on; the others restart when stagnant.
    if (!take_seed(w) && w.rounds_since_best() >= stagnation_ && best_.load() < w.best_value())
      restart_stagnant(w, pool);
    if (!w.round(&stop_)) break;
    rounds_.fetch_add(1, std::memory_order_relaxed);
    publish(w);
    if (elite_) offer_elite(w, pool.offered);
    if (walk_.max_rounds > 0 && w.rounds() >= walk_.max_rounds) break;
  }
}

// From the engine's best, or, with the elite pool, from a member (or a relinking child of two).
void concurrent_improver::restart_stagnant(ig_walker& w, walker_pool_side& pool) {
  if (!elite_) {
    std::lock_guard lock(mu_);
    w.restart(best_schedule_, best_.load());
    return;
  }
  restart_elite(w, pool.rng, *pool.kernel);
  pool.offered = INT_MAX;  // a relinking child may enter the pool; a member offered again stays out
  offer_elite(w, pool.offered);
  publish(w);
}

// ---- The engine's walkers with the elite pool ----

// A walker's own improvements go to the pool (`offered`: the best it offered since its last restart).
void concurrent_improver::offer_elite(const ig_walker& w, int& offered) {
  if (w.best_value() >= offered) return;
  offered = w.best_value();
  std::lock_guard lock(mu_);
  elite_->offer(w.best(), w.best_value());
}

// Two members drawn under the lock (the second only with walk_options::relink), the restart outside it.
void concurrent_improver::restart_elite(ig_walker& w, std::uint64_t& rng, const insertion_kernel& kernel) {
  elite_member a, b;
  {
    std::lock_guard lock(mu_);
    const int i = elite_->pick(rng), j = walk_.relink ? elite_->pick(rng) : i;
    a = elite_->members()[static_cast<std::size_t>(i)];
    if (j != i) b = elite_->members()[static_cast<std::size_t>(j)];
  }
  elite_restarts_.fetch_add(1, std::memory_order_relaxed);
  restart_from_elite(w, a, b, kernel, elite_->min_distance(), &stop_);
}

concurrent_improver::elite_stats concurrent_improver::elite() const {
  std::lock_guard lock(mu_);
  if (!elite_) return {};
  return {.size = elite_->size(),
          .mean_distance = elite_->mean_distance(),
          .accepted = elite_->accepted(),
          .restarts = elite_restarts_.load()};
}

}  // namespace pfsp
