#include "search/feed_exchange.hpp"

#include <algorithm>
#include <string>

#include "base/error.hpp"
#include "problem/makespan.hpp"

namespace pfsp {
namespace {

// The feed's schedule as a permutation of 0..n-1, or an error naming what is wrong. O(n).
void check_permutation(const std::vector<int>& schedule, int n) {
  if (static_cast<int>(schedule.size()) != n)
    throw error("incumbent feed: a schedule of " + std::to_string(schedule.size()) + " jobs for an instance of " +
                std::to_string(n));
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (const int j : schedule) {
    if (j < 0 || j >= n || seen[static_cast<std::size_t>(j)])
      throw error("incumbent feed: the schedule is not a permutation of the jobs (job " + std::to_string(j) + ")");
    seen[static_cast<std::size_t>(j)] = 1;
  }
}

}  // namespace

bool feed_exchange::take(incumbent& best) {
  if (!feed_ || feed_->best_value() >= best.value()) return false;
  const std::vector<int> schedule = feed_->best_schedule();
  check_permutation(schedule, inst_.n);
  scratch_.resize(static_cast<std::size_t>(inst_.m));
  const int cmax = makespan(inst_, schedule.data(), scratch_.data());
  if (!best.offer(cmax, schedule.data(), inst_.n)) return false;
  ++taken_;
  return true;
}

}  // namespace pfsp
