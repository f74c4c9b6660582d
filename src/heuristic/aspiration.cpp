#include "heuristic/aspiration.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#include "heuristic/neh.hpp"

namespace pfsp {

aspiration_search::aspiration_search(const instance& inst, aspiration_options opt)
    : inst_(inst), opt_(opt), beam_(inst, beam_options{.threads = std::max(1, opt.threads)}) {
  stats_.lower = std::max(0, opt_.lower);
  stats_.cap = std::max(1, opt_.first_cap);
}

namespace {
bool stopped(const std::atomic<bool>* stop) { return stop && stop->load(std::memory_order_relaxed); }
}  // namespace

// Bisection of (lower, best] with prove_below: the largest value proven within the budget.
void aspiration_search::raise_lower(const aspiration_hooks& hooks, int best, double seconds,
                                    const std::atomic<bool>* stop) {
  if (!hooks.prove_below) return;
  int lo = stats_.lower, hi = best;  // lo: proven; above best nothing can be (a schedule of best exists)
  while (lo < hi && !stopped(stop)) {
    const int value = static_cast<int>(lo + (static_cast<long long>(hi) - lo + 1) / 2);  // no overflow at INT_MAX
    ++stats_.probes;
    std::vector<int> found;
    if (hooks.prove_below(value, seconds, stop, &found)) {
      lo = value;
    } else {
      hi = value - 1;
      if (!found.empty()) hi = std::min(hi, offer(hooks, found));
    }
  }
  if (lo > stats_.lower && !stopped(stop)) {
    stats_.lower = lo;
    if (hooks.on_lower) hooks.on_lower(lo);
  }
}

// The lower bound proven outside (hooks.outside_lower), taken where it is higher; the lower bound now.
int aspiration_search::take_outside_lower(const aspiration_hooks& hooks) {
  const int outside = hooks.outside_lower ? hooks.outside_lower() : 0;
  if (outside > stats_.lower) {
    stats_.lower = outside;
    if (hooks.on_lower) hooks.on_lower(outside);
  }
  return stats_.lower;
}

// Passes of width 1, 2, ... up to the cap, each for a makespan of at most `value`: 1 when one found
// a schedule (given to on_better when it beats the best), else 0.
int aspiration_search::round(const aspiration_hooks& hooks, int value, const std::atomic<bool>* stop) {
  ++stats_.rounds;
  const std::function<int()> outside = [&] { return best(hooks); };
  for (int width = 1; width <= stats_.cap && !stopped(stop); width *= 2) {
    std::vector<int> schedule =
        hooks.pass ? hooks.pass(width, value + 1, stop, outside) : beam_.pass(width, value + 1, stop, outside);
    if (schedule.empty()) continue;
    const int makespan = evaluate_schedule(inst_, schedule);
    if (makespan < best(hooks)) {
      ++stats_.improvements;
      found_ = makespan;
      if (hooks.on_better) hooks.on_better(schedule, makespan);
    }
    return 1;
  }
  return 0;
}

// A schedule found by a probe: to on_better where it beats the best; its makespan.
int aspiration_search::offer(const aspiration_hooks& hooks, const std::vector<int>& schedule) {
  const int makespan = evaluate_schedule(inst_, schedule);
  if (makespan < best(hooks)) {
    ++stats_.improvements;
    ++stats_.probe_finds;
    found_ = makespan;
    if (hooks.on_better) hooks.on_better(schedule, makespan);
  }
  return makespan;
}

int aspiration_search::best(const aspiration_hooks& hooks) const {
  return std::min(found_, hooks.best ? hooks.best() : INT_MAX);
}

int aspiration_search::width_ceiling(const aspiration_hooks& hooks) const {
  return hooks.pass && hooks.width_ceiling ? std::max(1, hooks.width_ceiling()) : beam_.memory_width_cap();
}

// At the ceiling with nothing new to try: until the engine's best drops below `hi`, *stop rises
// or `seconds` pass.
void aspiration_search::wait_for_change(const aspiration_hooks& hooks, int hi, double seconds,
                                        const std::atomic<bool>* stop) const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!stopped(stop) && best(hooks) >= hi && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

bool aspiration_search::run(const aspiration_hooks& hooks, const std::atomic<bool>* stop) {
  auto best = [&] { return this->best(hooks); };
  double probe_seconds = opt_.first_probe_seconds;
  raise_lower(hooks, best(), probe_seconds, stop);
  int failed = stats_.lower - 1;  // every value up to this one failed at this cap (or is below the lower bound)
  while (!stopped(stop)) {
    failed = std::max(failed, take_outside_lower(hooks) - 1);
    const int hi = best();
    if (hi <= stats_.lower) return true;
    if (failed >= hi - 1) {  // every value from the lower bound to the best failed: widen, probe longer
      const bool was_at_ceiling = at_ceiling(hooks);
      stats_.cap = static_cast<int>(std::min(4LL * stats_.cap, static_cast<long long>(width_ceiling(hooks))));
      probe_seconds *= 2;
      const int lower = stats_.lower;
      const auto probes_start = std::chrono::steady_clock::now();
      raise_lower(hooks, hi, probe_seconds, stop);
      if (was_at_ceiling && stats_.lower == lower) {
        // Nothing new to pass: leave the probes their time and the rest idle (no prover: until the
        // best changes).
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - probes_start).count();
        wait_for_change(hooks, hi, hooks.prove_below ? probe_seconds - spent : 1e300, stop);
      }
      failed = stats_.lower - 1;
      continue;
    }
    const int value = static_cast<int>(failed + (static_cast<long long>(hi) - failed) / 2);  // in (failed, hi - 1]
    const bool ceiling = at_ceiling(hooks);
    if (ceiling && failed_at_ceiling_.contains(value)) {
      ++stats_.skipped;
      failed = value;
      continue;
    }
    if (!round(hooks, value, stop)) {
      failed = value;
      if (ceiling && !stopped(stop)) failed_at_ceiling_.insert(value);
    }
  }
  return false;
}

}  // namespace pfsp
