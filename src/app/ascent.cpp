#include "app/ascent.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace pfsp {
namespace {

using clock_type = std::chrono::steady_clock;

// The state of an ascent between its steps: the best schedule of any step, the bound proven so
// far, the statistics added up, one note per step.
class ascent {
 public:
  ascent(const ascent_search& search, const solve_options& base, const incumbent& start)
      : search_(search), base_(base), best_(start), origin_(base.time_origin.value_or(clock_type::now())) {}

  solve_result run(double first_seconds) {
    const double first_until = elapsed() + first_seconds;
    solve_result first = step(std::nullopt, limit() > 0 ? std::min(limit(), first_until) : first_until);
    proven_ = first.lower_bound;
    ascent_start_ = elapsed();
    if (!stalled(first) || out_of_time()) return finish(std::move(first), first.status);
    notes_.push_back("ascent: the first search (" + seconds(first.stats.total_seconds) + ") proved " +
                     std::to_string(proven_) + "; then complete searches below L = " + std::to_string(proven_ + 1) +
                     " and up");
    solve_result last = std::move(first);
    int jump = 1;
    while (best_.value() > proven_) {
      const int L = std::min(proven_ + jump, best_.value());
      last = step(L, limit());
      if (last.status != solve_status::proven_bound) {
        if (last.status == solve_status::optimal) proven_ = last.makespan;
        return finish(std::move(last), last.status);
      }
      jump = next_jump(L, last, jump);
      proven_ = L;
    }
    return finish(std::move(last), solve_status::optimal);  // the best schedule is at the bound proven
  }

 private:
  // How far the next step goes above the bound just proven at L. A search below L + d proves every
  // bound up to L + d at once, so where the trees are small the steps skip ahead: the tree grows by
  // a factor g a unit (measured between the last two proven steps; the trees below the open
  // instances' bounds grew 1.14-1.55x a unit, ta101's about 2x), and the jump is the largest power
  // of two whose predicted step, its seconds times g^d, fits a third of the time left (no limit:
  // twice the ascent's time so far, so that a step never costs much more than what came before).
  // The jump at most doubles from one step to the next: trees of a few nodes measure no growth
  // (ta101 on one H100: two steps of 41 and 48 nodes, then a jump of 64 to the incumbent, whose
  // tree was the plain search's; bench/results/2026-12-07-h100-ascent).
  int next_jump(int L, const solve_result& r, int last_jump) {
    const double nodes = static_cast<double>(r.stats.branched) + 1000.0;
    double growth = 2.0;  // until two proven steps measure it
    if (prev_nodes_ > 0 && L > prev_L_) growth = std::pow(nodes / prev_nodes_, 1.0 / (L - prev_L_));
    growth = std::clamp(growth, 1.1, 8.0);
    prev_nodes_ = nodes;
    prev_L_ = L;
    const double step_seconds = std::max(r.stats.total_seconds, 0.01);
    const double room = limit() > 0 ? (limit() - elapsed()) / 3 : 2 * (elapsed() - ascent_start_);
    int jump = 1;
    while (jump < 2 * last_jump && step_seconds * std::pow(growth, 2 * jump) <= room) jump *= 2;
    return jump;
  }

 private:
  // One search below `ub` (none: the caller's --ub) until `until` seconds from the origin (0:
  // none); its schedule offered to the ascent's best, its statistics added, its outcome noted.
  solve_result step(std::optional<int> ub, double until) {
    solve_options opt = base_;
    if (ub) opt.initial_ub = ub;
    opt.time_limit = until;
    solve_result r = search_(opt, best_);
    if (!r.schedule.empty()) best_.offer(r.makespan, r.schedule.data(), static_cast<int>(r.schedule.size()));
    stats_ += r.stats;
    total_seconds_ += r.stats.total_seconds;
    if (ub)
      notes_.push_back("ascent: below " + std::to_string(*ub) + ": " + std::string(to_string(r.status)) + ", " +
                       std::to_string(r.stats.branched) + " nodes, " + seconds(r.stats.total_seconds));
    return r;
  }

  // Whether a search stopped with its bound below its incumbent (a limit or an interrupt): only
  // the time limit continues into steps.
  static bool stalled(const solve_result& r) { return r.status == solve_status::time_limit; }

  bool out_of_time() const { return base_.time_limit > 0 && elapsed() >= base_.time_limit; }
  double limit() const { return base_.time_limit; }
  double elapsed() const { return std::chrono::duration<double>(clock_type::now() - origin_).count(); }
  static std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", s);
    return buf;
  }

  // The ascent's result: the last step's backend and notes, the best schedule of any step, the
  // bound proven (the status optimal when the schedule reaches it), the statistics of all steps.
  solve_result finish(solve_result r, solve_status status) {
    auto [value, schedule] = best_.snapshot();
    r.schedule = std::move(schedule);
    r.makespan = r.schedule.empty() ? 0 : value;
    r.lower_bound = std::max(r.lower_bound, proven_);
    r.status = !r.schedule.empty() && r.makespan == r.lower_bound ? solve_status::optimal : status;
    const double explored = r.stats.explored;  // the last step's share: each step's tree is another
    r.stats = stats_;
    r.stats.total_seconds = total_seconds_;
    r.stats.explored = explored;
    r.notes.insert(r.notes.end(), notes_.begin(), notes_.end());
    return r;
  }

  const ascent_search& search_;
  const solve_options& base_;
  incumbent best_;
  clock_type::time_point origin_;
  int proven_ = 0;
  double ascent_start_ = 0;  // seconds from the origin when the steps began
  double prev_nodes_ = 0;    // the last proven step's nodes (+ 1000), 0 before it
  int prev_L_ = 0;           // and its L
  solve_stats stats_;
  double total_seconds_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace

solve_result run_ascent(const ascent_search& search, const solve_options& base, const incumbent& start,
                        double first_seconds) {
  return ascent(search, base, start).run(first_seconds);
}

}  // namespace pfsp
