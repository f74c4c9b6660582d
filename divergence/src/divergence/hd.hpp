// Warp arithmetic of the divergence library, written once for host and device: lane masks,
// ballot offsets, one-rounding multiply-add. No CUDA header, so g++ builds every file outside
// gpu/. The portability macro and the assert are the base layer's (base/hd.hpp); the library
// knows nothing of flow-shop types and needs nothing of pfsp but that layer.
#pragma once

#include <cstdint>

#include "base/hd.hpp"  // PFSP_HD, PFSP_HD_ASSERT: the base layer's, shared with pfsp

#if !defined(__CUDA_ARCH__)
#include <bit>
#include <cmath>
#endif

namespace pfsp::divergence {

using lane_mask = std::uint32_t;  // one bit per lane of a warp, as __ballot_sync returns it

inline constexpr int warp_size = 32;
inline constexpr lane_mask full_mask = 0xffffffffu;

PFSP_HD int popc(lane_mask m) {
#if defined(__CUDA_ARCH__)
  return __popc(m);
#else
  return std::popcount(m);
#endif
}

// Lowest set lane, -1 for an empty mask.
PFSP_HD int lowest_lane(lane_mask m) {
#if defined(__CUDA_ARCH__)
  return __ffs(m) - 1;
#else
  return m == 0 ? -1 : std::countr_zero(m);
#endif
}

// Lanes strictly below `lane` (the %lanemask_lt register).
PFSP_HD lane_mask lanes_below(int lane) { return lane == 0 ? 0u : (full_mask >> (warp_size - lane)); }

// Position of `lane` among the lanes of `m` in lane order: the ballot+popc offset that gives each
// voting lane its own slot without atomics (Frey et al. 4.1, Listing 1's loadOffset).
PFSP_HD int rank_in(lane_mask m, int lane) { return popc(m & lanes_below(lane)); }

PFSP_HD bool has_lane(lane_mask m, int lane) { return ((m >> lane) & 1u) != 0; }

// a * b + c rounded once, on host and device alike: workloads spell every multiply-add with it so
// that no contraction choice is left to either compiler and all paths give bit-identical floats.
PFSP_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace pfsp::divergence
