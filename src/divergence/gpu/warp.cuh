// Warp-level primitives used by the kernels, over the full warp (every kernel here keeps all 32
// lanes of a warp in its loops, so full-mask votes are always legal).
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence::gpu {

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x % warp_size); }
__device__ __forceinline__ int warp_in_block() { return static_cast<int>(threadIdx.x / warp_size); }
__device__ __forceinline__ lane_mask ballot(bool p) { return __ballot_sync(full_mask, p); }
__device__ __forceinline__ std::uint32_t broadcast(std::uint32_t v, int from) {
  return __shfl_sync(full_mask, v, from);
}

}  // namespace pfsp::divergence::gpu
