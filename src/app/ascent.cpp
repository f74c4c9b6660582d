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
  ascent(const ascent_search& search, const solve_options& base, const incumbent& start,
         const std::function<void(int)>& on_proven)
      : search_(search),
        base_(base),
        on_proven_(on_proven),
        best_(start),
        origin_(base.time_origin.value_or(clock_type::now())) {}

  solve_result run(double first_seconds) {
    const double first_until = elapsed() + first_seconds;
    solve_result first = step(std::nullopt, limit() > 0 ? std::min(limit(), first_until) : first_until);
    prove(first.lower_bound);
    ascent_start_ = elapsed();
    if (!stalled(first) || out_of_time()) return finish(std::move(first), first.status);
    notes_.push_back("ascent: the first search (" + seconds(first.stats.total_seconds) + ") proved " +
                     std::to_string(proven_) + "; then complete searches below L = " + std::to_string(proven_ + 1) +
                     " and up");
    solve_result last = std::move(first);
    int jump = 1;
    while (best_.value() > proven_) {
      const int L = std::min(proven_ + jump, best_.value());
      last = step(L, step_until(L - proven_));
      if (cut_short(last)) {
        back_off(L);
        jump = 1;
        continue;
      }
      if (last.status != solve_status::proven_bound) {
        if (last.status == solve_status::optimal) proven_ = last.makespan;
        return finish(std::move(last), last.status);
      }
      jump = next_jump(L, last, jump);
      prove(L);
    }
    return finish(std::move(last), solve_status::optimal);  // the best schedule is at the bound proven
  }

 private:
  // How far the next step goes above the bound just proven at L. A search below L + d proves every
  // bound up to L + d at once, so where the trees are small the steps skip ahead:
  //   - a tree under measurable_nodes tells nothing of the growth: the jump doubles;
  //   - the first tree above it: a unit step, which measures the growth g a unit where it matters
  //     (the trees grow faster near the optimum: ta101 on one H100, 249 nodes below 11120, 14.3 M
  //     below 11152, 1.34x a unit over those 32, about 2x a unit near 11158);
  //   - then the largest power of two whose predicted step, this step's seconds times g^d, fits a
  //     third of the time left (no limit: twice the ascent's time so far).
  // The jump at most doubles from one step to the next, and stays under max_jump_ (halved by each
  // step cut short). Sets predicted_seconds_, the next step's prediction (0: none).
  int next_jump(int L, const solve_result& r, int last_jump) {
    const double nodes = static_cast<double>(r.stats.branched);
    const bool measured = nodes >= measurable_nodes && prev_nodes_ >= measurable_nodes && L > prev_L_;
    const double growth = measured ? std::clamp(std::pow(nodes / prev_nodes_, 1.0 / (L - prev_L_)), 1.1, 8.0) : 0;
    const bool first_measurable = nodes >= measurable_nodes && !measured;
    prev_nodes_ = nodes;
    prev_L_ = L;
    predicted_seconds_ = 0;
    if (!measured) return std::min(first_measurable ? 1 : 2 * last_jump, max_jump_);
    const double step_seconds = std::max(r.stats.total_seconds, 0.01);
    const double room = limit() > 0 ? (limit() - elapsed()) / 3 : 2 * (elapsed() - ascent_start_);
    int jump = 1;
    while (jump < std::min(2 * last_jump, max_jump_) && step_seconds * std::pow(growth, 2 * jump) <= room) jump *= 2;
    predicted_seconds_ = step_seconds * std::pow(growth, jump);
    return jump;
  }

  // When a step of `jump` units stops: unit steps run to the time limit (no smaller step exists);
  // a longer jump gets four times its prediction, at least a second, and is cut short there.
  double step_until(int jump) const {
    if (jump <= 1) return limit();
    const double until = elapsed() + std::max(1.0, 4 * predicted_seconds_);
    return limit() > 0 ? std::min(limit(), until) : until;
  }

  // The step below L overshot (cut short): unit steps from here, and never a jump as far again.
  void back_off(int L) {
    max_jump_ = std::max(1, (L - proven_) / 2);
    notes_.push_back("ascent: the step below " + std::to_string(L) +
                     " cut short at its share of the time: unit steps, jumps of at most " + std::to_string(max_jump_));
  }

  // Whether a step stopped at its own share of the time, not at the ascent's limit or an interrupt.
  bool cut_short(const solve_result& r) const { return r.status == solve_status::time_limit && !out_of_time(); }

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

  // The bound proven so far rises to `L`; on_proven is told.
  void prove(int L) {
    proven_ = L;
    if (on_proven_) on_proven_(L);
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
  const std::function<void(int)>& on_proven_;
  incumbent best_;
  clock_type::time_point origin_;
  int proven_ = 0;
  static constexpr double measurable_nodes = 1e5;  // trees smaller than this measure no growth
  double ascent_start_ = 0;                        // seconds from the origin when the steps began
  double prev_nodes_ = 0;                          // the last proven step's nodes, 0 before it
  int prev_L_ = 0;                                 // and its L
  int max_jump_ = 1 << 30;                         // halved by each step cut short
  double predicted_seconds_ = 0;                   // the next step's predicted seconds (0: none)
  solve_stats stats_;
  double total_seconds_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace

solve_result run_ascent(const ascent_search& search, const solve_options& base, const incumbent& start,
                        double first_seconds, const std::function<void(int)>& on_proven) {
  return ascent(search, base, start, on_proven).run(first_seconds);
}

}  // namespace pfsp
