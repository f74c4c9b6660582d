// The process's start as pfsp sees it: the first call, made during static initialisation by the
// executables' main.cpp, so that the CLI can report its fixed cost from there (issue 21 item 5).
#pragma once

#include <chrono>

namespace pfsp {

inline std::chrono::steady_clock::time_point process_start() {
  static const auto t = std::chrono::steady_clock::now();
  return t;
}

inline double seconds_since_process_start() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start()).count();
}

}  // namespace pfsp
