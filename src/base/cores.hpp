// The cores this process may run on: its CPU affinity mask (taskset, a batch system's cgroup
// cpuset as seen through sched_getaffinity), not the machine's count that
// std::thread::hardware_concurrency reports. Four pfsp processes pinned to 16 cores each on a
// 64-core host then size their thread pools for 16, not 64.
#pragma once

#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace pfsp {

inline int usable_cores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h);
}

}  // namespace pfsp
