#include "app/ascent.hpp"

#include <algorithm>
#include <chrono>
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
    if (!stalled(first) || out_of_time()) return finish(std::move(first), first.status);
    notes_.push_back("ascent: the first search (" + seconds(first.stats.total_seconds) + ") proved " +
                     std::to_string(proven_) + "; then complete searches below L = " + std::to_string(proven_ + 1) +
                     ", " + std::to_string(proven_ + 2) + ", ...");
    solve_result last = std::move(first);
    for (int L = proven_ + 1; best_.value() > proven_; ++L) {
      last = step(L, limit());
      if (last.status == solve_status::proven_bound) {
        proven_ = L;
        continue;
      }
      if (last.status == solve_status::optimal) proven_ = last.makespan;
      return finish(std::move(last), last.status);
    }
    return finish(std::move(last), solve_status::optimal);  // the best schedule is at the bound proven
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
