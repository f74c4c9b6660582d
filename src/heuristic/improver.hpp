// The incumbent engine: iterated greedy on CPU cores while a branch-and-bound runs beside it (every
// backend: the GPU loops, cpu, cpu-mt, pfsp-mpi). T walker threads (heuristic/ig_walker.hpp), each
// an IG trajectory with its own random stream; a walker that has not improved its own best for a
// while restarts from the engine's best (or from the newest seed the B&B offered, taken by one
// walker). Improvements are re-evaluated from scratch and published lock-free (best_value) with
// their schedule. Usage: the solver calls offer_seed() with each improving leaf and polls
// best_value() at its syncs; a better value is re-evaluated and becomes the incumbent, lowering
// the pruning threshold. stop() returns within one insertion evaluation (about 30 us at 500x20).
// With walk_options::elite = E > 0 the engine also keeps an elite pool (heuristic/elite_pool.hpp):
// every walker offers its own improvements, and a stagnant walker restarts from a member chosen by
// tournament (or a path-relinking child of two), whether or not it holds the engine's best.
#pragma once

#include <atomic>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "heuristic/aspiration.hpp"
#include "heuristic/beam.hpp"
#include "heuristic/elite_pool.hpp"
#include "heuristic/ig_walker.hpp"
#include "problem/instance.hpp"
#include "search/incumbent_feed.hpp"

namespace pfsp {

// How many of the engine's `threads` run the beam search: option K >= 0 (at most threads), or -1
// (auto): a quarter of them (at least one) where the engine has two threads or more and n > 20,
// else none. With targets at the engine's best it paid only at 100x20 (8 threads, 20 s,
// bench/results/2026-11-27-h100x4-big60-beam: 0.68 % against 0.86 % without; 200x20 no gain); with
// bisected targets (beam_plan) it finds the optimum of most 200x20 and 500x20 instances
// (docs/decisions/012-incumbent-engine.md).
int engine_beam_threads(const instance& inst, int option, int threads);

// What the engine's beam threads aim at: the engine's best (Libralesso et al.'s iterative beam,
// each pass for a schedule better than the best), or, bisect, targets chosen by bisection between
// a lower bound and the best (heuristic/aspiration.hpp). `lower`: a lower bound known before (app:
// the search's root bound; 0: none). prove_below (optional, bisect only) raises it: true when it
// proved, within `seconds` and before *stop rose, that no schedule is below `value`.
// pass (optional, bisect only): runs the passes instead of the CPU's beam (app: the GPU's, on the
// gpu backend), on the engine's first beam thread alone; pass_device names it in the summary;
// width_ceiling: the widest pass it runs (aspiration_hooks::width_ceiling).
struct beam_plan {
  bool bisect = true;
  int lower = 0;
  probe_fn prove_below = {};
  beam_pass_fn pass = {};
  std::string pass_device = {};
  std::function<int()> width_ceiling = {};
};

class concurrent_improver final : public incumbent_feed {
 public:
  // start: the first seed (e.g. the start heuristic's schedule); threads >= 0 (0: no CPU walkers,
  // only publish_external improves it); beam_threads (at most threads): they run the beam search's
  // passes instead of walkers.
  concurrent_improver(const instance& inst, std::vector<int> start, int threads, std::uint32_t seed = 1,
                      walk_options walk = {}, int beam_threads = 0, beam_plan plan = {});
  ~concurrent_improver() override;
  concurrent_improver(const concurrent_improver&) = delete;
  concurrent_improver& operator=(const concurrent_improver&) = delete;

  void offer_seed(const std::vector<int>& schedule, int makespan) override;
  int best_value() const override { return best_.load(std::memory_order_relaxed); }
  std::vector<int> best_schedule() const override;
  void stop();  // joins the threads (within one insertion evaluation)
  // A schedule found by another source of the engine (the GPU walkers, gpu/walkers.hpp): becomes
  // the engine's best if it is better, after re-evaluation. Thread-safe.
  void publish_external(const std::vector<int>& schedule);
  std::uint64_t rounds() const { return rounds_.load(); }
  int improvements() const { return improvements_.load(); }
  int external_improvements() const { return external_.load(); }
  int beam_improvements() const { return beam_improvements_.load(); }
  int beam_width() const { return beam_width_.load(); }  // the width of the beam's pass running or last run
  // The bisecting beam's lower bound (beam_plan::lower, raised by prove_below; 0 without the
  // bisecting beam): no schedule is below it.
  int lower_bound() const { return lower_.load(); }
  // A lower bound proven outside the engine (app: the ascent's steps): the bisecting beam's targets
  // stay at or above it from its next round. Thread-safe; a lower value than before is ignored.
  void raise_lower_bound(int value);
  struct elite_stats {
    int size = 0;                // members now (0 without a pool)
    double mean_distance = 0;    // their mean pairwise insertion distance
    std::uint64_t accepted = 0;  // offers that entered the pool
    std::uint64_t restarts = 0;  // walker restarts from the pool
  };
  elite_stats elite() const;
  // "W iterated-greedy walkers, R rounds, I improvements" and, with the beam, its width and improvements.
  std::string summary() const;

 private:
  void work(int t);
  void run_beam();
  void run_bisecting_beam();
  bool publish_schedule(const std::vector<int>& schedule);
  bool take_seed(ig_walker& w);
  void publish(const ig_walker& w);
  // A walker's side of the elite pool: its draws' stream, a kernel for relinking (with the pool
  // only), the best it offered since its last restart.
  struct walker_pool_side {
    std::uint64_t rng = 0;
    std::optional<insertion_kernel> kernel;
    int offered = INT_MAX;
  };
  void restart_stagnant(ig_walker& w, walker_pool_side& pool);
  void offer_elite(const ig_walker& w, int& offered);
  void restart_elite(ig_walker& w, std::uint64_t& rng, const insertion_kernel& kernel);
  const instance& inst_;
  int beam_ = 0;  // threads of the beam search (thread 0 runs it and its passes spawn the others)
  std::atomic<int> best_{INT_MAX};
  std::vector<int> best_schedule_;
  std::vector<int> seed_;  // the newest seed, taken once by the next thread that restarts
  int seed_value_ = INT_MAX;
  mutable std::mutex mu_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> rounds_{0};
  std::atomic<int> improvements_{0};
  std::atomic<int> external_{0};
  std::atomic<int> beam_improvements_{0};
  std::atomic<int> beam_width_{0};
  std::atomic<int> lower_{0};
  std::atomic<int> outside_lower_{0};  // raise_lower_bound's highest value
  beam_plan plan_;
  std::uint32_t seed_base_;
  walk_options walk_;
  std::uint64_t stagnation_ = 10;      // rounds without a walker's own improvement before it restarts
  std::unique_ptr<elite_pool> elite_;  // walk_.elite > 0 only; guarded by mu_
  std::atomic<std::uint64_t> elite_restarts_{0};
  std::vector<std::thread> threads_;
};

}  // namespace pfsp
