#include "search/control.hpp"

#include <algorithm>
#include <climits>

namespace pfsp {

solve_result finish_result(solve_status stop, const incumbent& inc, int threshold, int open_min_lb,
                           const solve_stats& stats, double seconds) {
  solve_result r;
  // One snapshot: another thread (the incumbent improver) may offer while this runs.
  auto [value, schedule] = inc.snapshot();
  r.schedule = std::move(schedule);
  r.makespan = r.schedule.empty() ? 0 : value;
  const int ub = std::min(threshold, value);
  // A limit or interrupt noticed just as the last open node was closed: the search is complete.
  if (open_min_lb == INT_MAX) stop = solve_status::optimal;
  if (stop == solve_status::optimal) {
    r.lower_bound = ub;
    r.status = (!r.schedule.empty() && r.makespan == ub) ? solve_status::optimal : solve_status::proven_bound;
  } else {
    r.status = stop;
    r.lower_bound = std::min(ub, open_min_lb);
  }
  r.stats = stats;
  r.stats.total_seconds = seconds;
  return r;
}

}  // namespace pfsp
