// The real `pfsp solve NAME --time-limit T --json ...` (PFSP_BINARY) must end with exit code 3
// (or 0, proven before the limit) within T + max(1 s, 5 % of T) of pfsp's own wall time (the JSON's wall_seconds, which
// counts from pfsp solve's start: the start heuristic, and on the GPU the CUDA context, included) and within that plus
// `outside_margin` seen from outside (the process start and exit, this test's polling, the CUDA driver's own start and
// teardown, waits for a core on a loaded machine). Shared by test_time_limits.cpp (CPU backends) and
// gpu/test_gpu_time_limits.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.hpp"

namespace pfsp::test {

// A number of a flat JSON object by its key (-1 when absent).
inline double json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::stod(json.substr(at + key.size() + 3));
}

inline void expect_solve_ends_in_time(const std::string& name, double limit, double outside_margin,
                                      const std::vector<std::string>& extra) {
  const double required = limit + std::max(1.0, 0.05 * limit);
  temp_dir dir;
  const std::string json = dir.file("result.json");
  std::ostringstream t;
  t << limit;
  std::vector<std::string> args{"solve", name, "--time-limit", t.str(), "--no-progress", "-q", "--json", json};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_pfsp(args, -1, 30 * limit + 60);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // 3: the limit stopped it; 0: proven before it (500x20 instances with the GPU beam, in seconds).
  ASSERT_TRUE(r.exit_code == 3 || r.exit_code == 0) << r.describe();
  const std::string text = slurp(json);
  const double own = json_number(text, "wall_seconds");
  ASSERT_GE(own, 0) << "no wall_seconds in " << text;
  EXPECT_LE(own, required) << "pfsp's own wall time (start heuristic " << json_number(text, "heuristic_seconds")
                           << " s, search " << json_number(text, "time_seconds") << " s)\n"
                           << r.describe();
  EXPECT_LE(wall, required + outside_margin) << r.describe();
}

}  // namespace pfsp::test
