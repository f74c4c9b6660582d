// gpu::warm_up (solver.hpp): the CUDA context is created once per process and device, on first
// use; doing it ahead of the solve, on another thread, hides it behind the host's heuristic.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

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

void warm_up(const device_selection& devices, int device) noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  std::vector<int> ordinals{device};
  if (devices.all) {
    ordinals.resize(static_cast<std::size_t>(count));
    std::iota(ordinals.begin(), ordinals.end(), 0);
  } else if (!devices.ordinals.empty()) {
    ordinals = devices.ordinals;
    std::sort(ordinals.begin(), ordinals.end());
    ordinals.erase(std::unique(ordinals.begin(), ordinals.end()), ordinals.end());
  }
  if (ordinals.empty()) return;
  std::vector<std::thread> threads;
  try {
    for (std::size_t i = 1; i < ordinals.size(); ++i) threads.emplace_back([d = ordinals[i]] { warm_up(d); });
  } catch (...) {  // no thread: the solve creates that context itself
  }
  warm_up(ordinals[0]);
  for (auto& t : threads) t.join();
}

}  // namespace pfsp::gpu
