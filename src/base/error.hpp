// Host-side errors of pfsp and the divergence library. Host code throws; destructors never throw
// (RMM detail/error.hpp style); host+device code asserts instead (hd.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace pfsp {

// Any failure the user can act on: the message is printed as is.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input: a file, an instance name or an option value. Maps to exit code 2.
class input_error : public error {
 public:
  using error::error;
};

// Builds "file:line: message" for errors in input files (line 0 = whole file).
inline input_error file_error(const std::string& file, int line, const std::string& what) {
  if (line > 0) return input_error(file + ":" + std::to_string(line) + ": " + what);
  return input_error(file + ": " + what);
}

// A failed CUDA call, thrown by PFSP_CUDA_TRY (cuda_check.cuh) with the call, file and line.
// Declared here, without a CUDA header, so that code compiled by g++ can catch it.
class cuda_error : public error {
 public:
  using error::error;
};

}  // namespace pfsp

#define PFSP_EXPECTS(cond, msg)                                                       \
  do {                                                                                \
    if (!(cond)) throw ::pfsp::error(std::string("internal check failed: ") + (msg)); \
  } while (0)
