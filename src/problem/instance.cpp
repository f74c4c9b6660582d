#include "problem/instance.hpp"

#include <algorithm>
#include <climits>

#include "base/error.hpp"

namespace pfsp {

int time_limit(int n, int m) {
  const long long cells = static_cast<long long>(n) + m - 1;
  return static_cast<int>(std::min<long long>(max_time, INT_MAX / std::max(cells, 1LL)));
}

void check_sizes(long long n, long long m, const std::string& origin, int line) {
  if (n < 1 || n > max_jobs)
    throw file_error(origin, line,
                     "number of jobs must be in 1.." + std::to_string(max_jobs) + ", got " + std::to_string(n));
  if (m < 1 || m > max_machines)
    throw file_error(origin, line,
                     "number of machines must be in 1.." + std::to_string(max_machines) + ", got " + std::to_string(m));
  const long long entries = n * (m * (m - 1) / 2);  // <= 65535 * 499500: no overflow
  if (entries > max_lb2_entries)
    throw file_error(origin, line,
                     std::to_string(n) + " jobs x " + std::to_string(m) +
                         " machines is too large: LB2's tables need n m (m - 1) / 2 = " + std::to_string(entries) +
                         " entries, at most " + std::to_string(max_lb2_entries) + " are allowed");
}

void validate(const instance& inst, const std::string& origin) {
  check_sizes(inst.n, inst.m, origin, 0);
  if (inst.p.size() != static_cast<std::size_t>(inst.n) * inst.m)
    throw file_error(origin, 0,
                     "expected " + std::to_string(static_cast<long long>(inst.n) * inst.m) + " processing times, got " +
                         std::to_string(inst.p.size()));
  const int limit = time_limit(inst.n, inst.m);
  for (std::size_t i = 0; i < inst.p.size(); ++i)
    if (inst.p[i] <= 0 || inst.p[i] > limit)
      throw file_error(origin, 0,
                       "processing time of job " + std::to_string(i % inst.n + 1) + " on machine " +
                           std::to_string(i / inst.n + 1) + " must be an integer in 1.." + std::to_string(limit) +
                           ", got " + std::to_string(inst.p[i]));
}

std::vector<int> job_major_times(const instance& inst) {
  std::vector<int> p(static_cast<std::size_t>(inst.n) * inst.m);
  for (int j = 0; j < inst.n; ++j)
    for (int k = 0; k < inst.m; ++k) p[static_cast<std::size_t>(j) * inst.m + k] = inst.time(k, j);
  return p;
}

}  // namespace pfsp
