// gpu::warm_up (solver.hpp): the CUDA context is created once per process, on first use; doing
// it ahead of the solve, on another thread, hides it behind the host's heuristic.
#include <cuda_runtime.h>

#include "gpu/solver.hpp"

namespace pfsp::gpu {

void warm_up(int device) noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) {
    (void)cudaGetLastError();
    return;
  }
  if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace pfsp::gpu
