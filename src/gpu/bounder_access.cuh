// CUDA-side access to a bounder's device tables and bounding kernels, for code that launches
// the kernels itself (the device-resident loop, resident.cu): one place builds the tables, picks
// the kernel instantiation and raises its shared-memory limit.
#pragma once

#include <cstddef>

#include "gpu/bound_kernels.cuh"
#include "gpu/bounder.hpp"

namespace pfsp::gpu {

struct bounder_device_side {
  tables_view tables;
  kernel_pair kernels;
  std::size_t smem_bytes = 0;  // dynamic shared memory per block of the bounding kernels
};

struct bounder_access {
  static bounder_device_side device_side(const bounder& b);
};

}  // namespace pfsp::gpu
