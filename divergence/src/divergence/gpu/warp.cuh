// Warp-level primitives used by the kernels, over the full warp (every kernel here keeps all 32
// lanes of a warp in its loops, so full-mask votes are always legal).
#pragma once

#include <cstddef>
#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence::gpu {

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x % warp_size); }
__device__ __forceinline__ int warp_in_block() { return static_cast<int>(threadIdx.x / warp_size); }
__device__ __forceinline__ lane_mask ballot(bool p) { return __ballot_sync(full_mask, p); }
__device__ __forceinline__ std::uint32_t broadcast(std::uint32_t v, int from) {
  return __shfl_sync(full_mask, v, from);
}

// Optional block-level setup of a workload (a termination or branch workload may provide both):
//   __host__ __device__ std::size_t block_shared_bytes() const;  // dynamic shared memory it needs
//   __device__ W bind_block(unsigned char* smem) const;  // called once by every thread of the block
//                                                    // before any task; may __syncthreads()
// e.g. to stage read-only tables in shared memory. The kernels place their own dynamic shared
// memory after `block_shared_bytes()` rounded up to 16 bytes. Workloads without them: 0 bytes,
// the workload unchanged.
template <class W>
__host__ __device__ std::size_t block_shared_bytes(const W& w) {
  if constexpr (requires { w.block_shared_bytes(); }) {
    return (w.block_shared_bytes() + 15) / 16 * 16;
  } else {
    return 0;
  }
}
template <class W>
__device__ __forceinline__ W bind_block(const W& w, unsigned char* smem) {
  if constexpr (requires { w.bind_block(smem); }) {
    return w.bind_block(smem);
  } else {
    (void)smem;
    return w;
  }
}

}  // namespace pfsp::divergence::gpu
