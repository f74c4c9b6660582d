// Checking CUDA calls: host code throws pfsp::cuda_error naming the call, file and line;
// destructors report and never throw (RMM detail/error.hpp). CUDA code only.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "base/error.hpp"

namespace pfsp::detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw cuda_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(e) +
                   " (" + cudaGetErrorString(e) + ")");
}

inline void report_cuda(cudaError_t e, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "%s:%d: %s failed: %s (ignored in a destructor)\n", file, line, call, cudaGetErrorName(e));
}

}  // namespace pfsp::detail

#define PFSP_CUDA_TRY(call)                                                                                         \
  do {                                                                                                              \
    const cudaError_t pfsp_cuda_status_ = (call);                                                                   \
    if (pfsp_cuda_status_ != cudaSuccess) ::pfsp::detail::throw_cuda(pfsp_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: launch-configuration errors surface here, not at the next call.
#define PFSP_CUDA_CHECK_LAUNCH(what) PFSP_CUDA_TRY((static_cast<void>(what), cudaGetLastError()))

#define PFSP_CUDA_TRY_NOTHROW(call)                                                                                  \
  do {                                                                                                               \
    const cudaError_t pfsp_cuda_status_ = (call);                                                                    \
    if (pfsp_cuda_status_ != cudaSuccess) ::pfsp::detail::report_cuda(pfsp_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)
