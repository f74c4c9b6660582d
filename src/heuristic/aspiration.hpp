// Aspiration beam search: the beam search (heuristic/beam.hpp) run at targets chosen by bisection
// between a lower bound and the best makespan known, instead of at the best makespan.
//
// Why: a beam pass prunes every child whose one-machine bound is not below its target. At the
// engine's best (1 % above the optimum on 500x20) that prunes little and the guide alone steers the
// beam; at a target near the optimum it prunes nearly every wrong choice, and a narrow beam finds a
// schedule under the target where iterated greedy stalls (ta111, from NEH, one thread: the optimum
// 26040 in 11 s; iterated greedy on 8 threads ends 30 s at 26121). Passes at a target below the
// optimum die out within a few depths, so a failed guess costs little. Measured in
// docs/decisions/012-incumbent-engine.md.
//
// A round picks a value v halfway between the highest value that failed at this width cap (or
// the lower bound) and the best found, and runs passes of width 1, 2, 4, ... up to the cap, each
// looking for a makespan of at most v. A schedule found lowers the best; when every value between
// the lower bound and the best failed, the cap quadruples and the bisection starts over.
//
// At the width ceiling a pass is a function of its width and target alone (the CPU's and the
// GPU's alike), so a value that failed there fails again: it is not run again (stats.skipped).
// Once every value the bisection picks has failed at the ceiling, only the prover's probes (each
// bisection twice as long) and the engine's improvements can change the targets; until then the
// passes leave the device (the GPU's search shares it) and the thread to the probes, and where
// the probes end early the thread waits out their budget (without a prover: for a better best).
//
// The lower bound: the caller's (aspiration_options::lower; app gives the search's own root bound),
// raised by the caller's `prove_below` (optional: app binds it to the sequential branch-and-bound
// run with the value as its upper bound, for a time budget) and by bounds proven outside
// (aspiration_hooks::outside_lower: the ascent's steps). When the best reaches the lower bound, the best is optimal
// and run() returns.
#pragma once

#include <atomic>
#include <climits>
#include <functional>
#include <set>
#include <vector>

#include "heuristic/beam.hpp"
#include "problem/instance.hpp"

namespace pfsp {

// A probe of the lower bound: true when it proved, within `seconds` and before *stop rose, that no
// schedule has a makespan below `value`; where it found one instead, that schedule into *found (not
// null), so that a probe at the best value, a search for one schedule below it, is not lost.
using probe_fn = std::function<bool(int value, double seconds, const std::atomic<bool>* stop, std::vector<int>* found)>;

struct aspiration_options {
  int first_cap = 256;                // the widths' cap in the first bisection (quadrupled after each)
  double first_probe_seconds = 0.25;  // prove_below's budget per value in the first bisection (doubled after each)
  int threads = 1;                    // threads of a beam pass
  int lower = 0;                      // a lower bound known before the search (0: none)
};

struct aspiration_hooks {
  // The best makespan known outside (the engine's best; read before each pass and at each depth).
  std::function<int()> best = {};
  // Receives each schedule better than best() when found, with its makespan (re-evaluated).
  std::function<void(const std::vector<int>&, int)> on_better = {};
  // Optional: the probe that raises the lower bound (probe_fn); a schedule it finds goes to
  // on_better like the passes' (ta090: with the lower bound at the best minus one, the probe at the
  // best is the search for one schedule at the bound).
  probe_fn prove_below = {};
  // Optional: receives the lower bound each time it rises.
  std::function<void(int lower)> on_lower = {};
  // Optional: a lower bound proven outside (app: the steps of --ascent), read before each round;
  // where it is higher it becomes the lower bound, and no target is chosen below it.
  std::function<int()> outside_lower = {};
  // Optional: runs the passes instead of the CPU's beam_search (the GPU's, gpu/device_beam.hpp),
  // and, with it, the widest pass it runs (asked each time the cap grows; the cap stops there).
  // Without them, the CPU beam and its memory cap.
  beam_pass_fn pass = {};
  std::function<int()> width_ceiling = {};
};

struct aspiration_stats {
  int rounds = 0;        // bisection values tried
  int improvements = 0;  // schedules given to on_better
  int cap = 0;           // the widths' cap now
  int lower = 0;         // the lower bound now
  int probes = 0;        // calls of prove_below
  int skipped = 0;       // values not run again: they had failed at the width ceiling
  int probe_finds = 0;   // schedules better than the best that a probe found (given to on_better)
};

class aspiration_search {
 public:
  explicit aspiration_search(const instance& inst, aspiration_options opt = {});

  // Until *stop rises or the best reaches the lower bound (then true: the best is optimal).
  bool run(const aspiration_hooks& hooks, const std::atomic<bool>* stop);

  const aspiration_stats& stats() const { return stats_; }

 private:
  void raise_lower(const aspiration_hooks& hooks, int best, double seconds, const std::atomic<bool>* stop);
  int take_outside_lower(const aspiration_hooks& hooks);
  int round(const aspiration_hooks& hooks, int value, const std::atomic<bool>* stop);
  int best(const aspiration_hooks& hooks) const;  // the least of hooks.best() and what this search found
  int offer(const aspiration_hooks& hooks, const std::vector<int>& schedule);
  int width_ceiling(const aspiration_hooks& hooks) const;
  bool at_ceiling(const aspiration_hooks& hooks) const { return stats_.cap >= width_ceiling(hooks); }
  void wait_for_change(const aspiration_hooks& hooks, int hi, double seconds, const std::atomic<bool>* stop) const;

  const instance& inst_;
  aspiration_options opt_;
  beam_search beam_;
  aspiration_stats stats_;
  int found_ = INT_MAX;
  std::set<int> failed_at_ceiling_;  // values whose passes up to the width ceiling found nothing
};

}  // namespace pfsp
