// Host-side error of the GPU layer. Plain C++ (no CUDA header), so code compiled by g++ can
// catch it; thrown by PFSP_CUDA_TRY (cuda_check.cuh) with the failing call, file and line.
#pragma once

#include "problem/error.hpp"

namespace pfsp {

class cuda_error : public error {
 public:
  using error::error;
};

}  // namespace pfsp
