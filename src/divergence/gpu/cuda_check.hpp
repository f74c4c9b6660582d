// CUDA error checks for host code of the divergence library: host code throws, never aborts.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "divergence/error.hpp"

namespace pfsp::divergence::gpu {

class cuda_error : public error {
 public:
  using error::error;
};

}  // namespace pfsp::divergence::gpu

#define PFSP_DIV_CUDA_TRY(call)                                                                                 \
  do {                                                                                                          \
    const cudaError_t pfsp_div_err_ = (call);                                                                   \
    if (pfsp_div_err_ != cudaSuccess)                                                                           \
      throw ::pfsp::divergence::gpu::cuda_error(std::string(#call) + ": " + cudaGetErrorString(pfsp_div_err_) + \
                                                " (" __FILE__ ":" + std::to_string(__LINE__) + ")");            \
  } while (0)

// After every launch: configuration errors now, faults at the next synchronisation.
#define PFSP_DIV_CUDA_CHECK_LAUNCH() PFSP_DIV_CUDA_TRY(cudaGetLastError())
