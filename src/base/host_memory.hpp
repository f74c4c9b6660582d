// The memory this process may still take: the least of the host's available memory
// (/proc/meminfo's MemAvailable, else the physical memory), the room left under its address-space
// limit (ulimit -v: RLIMIT_AS less the process's current size) and the room left in its cgroup
// (a batch system's limit: cgroup v2 memory.max less memory.current, or v1's limit_in_bytes less
// usage_in_bytes). A Slurm job with --mem on a large host sees the host's MemAvailable, but its
// cgroup kills it at --mem; a shell under ulimit -v sees the host, but its allocations fail at
// the limit. Memory budgets (the host spill of the GPU loop, the sequential solver's pool) are
// shares of this, never of the host alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace pfsp {

// The room under a limit: limit less use, none when there is no limit.
inline std::optional<std::size_t> room_under(std::optional<std::size_t> limit, std::size_t used) {
  if (!limit) return std::nullopt;
  return *limit > used ? *limit - used : 0;
}

// The least of the host's available bytes and the rooms that apply.
inline std::size_t least_room(std::size_t host_available, std::optional<std::size_t> address_space_room,
                              std::optional<std::size_t> cgroup_room) {
  std::size_t v = host_available;
  if (address_space_room) v = std::min(v, *address_space_room);
  if (cgroup_room) v = std::min(v, *cgroup_room);
  return v;
}

// A cgroup limit file's value: bytes, or none for "max" (v2) or a v1 "no limit" (near 2^63).
inline std::optional<std::size_t> parse_cgroup_limit(const std::string& text) {
  if (text.empty() || text.rfind("max", 0) == 0) return std::nullopt;
  try {
    const unsigned long long v = std::stoull(text);
    if (v >= (1ull << 62)) return std::nullopt;
    return static_cast<std::size_t>(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

namespace host_memory_detail {

inline std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

inline std::size_t host_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib << 10;
    in.ignore(1 << 10, '\n');
  }
#if defined(__linux__)
  return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
#else
  return std::numeric_limits<std::size_t>::max();
#endif
}

inline std::optional<std::size_t> address_space_room() {
#if defined(__linux__)
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return room_under(static_cast<std::size_t>(r.rlim_cur), pages * static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE)));
#else
  return std::nullopt;
#endif
}

// This process's cgroup: v2's unified path ("0::/path" in /proc/self/cgroup), then v1's memory
// controller ("N:memory:/path"), then v1's root as mounted in most containers. The first whose
// limit file reads decides.
inline std::optional<std::size_t> cgroup_room() {
  std::ifstream in("/proc/self/cgroup");
  std::string line, v2 = "/", v1 = "/";
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) v2 = line.substr(3);
    const auto at = line.find(":memory:");
    if (at != std::string::npos) v1 = line.substr(at + 8);
  }
  const std::pair<std::string, std::string> files[] = {
      {"/sys/fs/cgroup" + v2 + "/memory.max", "/sys/fs/cgroup" + v2 + "/memory.current"},
      {"/sys/fs/cgroup/memory" + v1 + "/memory.limit_in_bytes",
       "/sys/fs/cgroup/memory" + v1 + "/memory.usage_in_bytes"},
      {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}};
  for (const auto& [limit_file, usage_file] : files) {
    const std::string limit = first_line(limit_file);
    if (limit.empty()) continue;
    return room_under(parse_cgroup_limit(limit), parse_cgroup_limit(first_line(usage_file)).value_or(0));
  }
  return std::nullopt;
}

}  // namespace host_memory_detail

// The bytes this process may still allocate (see the top of the file). Reads /proc and /sys on
// each call: call it when a budget is set, not per node.
inline std::size_t process_memory_room() {
  return least_room(host_memory_detail::host_available(), host_memory_detail::address_space_room(),
                    host_memory_detail::cgroup_room());
}

}  // namespace pfsp
