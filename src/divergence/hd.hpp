// Host+device portability for the divergence library (Kokkos-style), with no CUDA header so
// that g++ builds every file outside gpu/. Self-contained on purpose: the library knows nothing
// of flow-shop types and can be lifted out of pfsp as is.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PFSP_DIV_HD __host__ __device__ __forceinline__
#else
#define PFSP_DIV_HD inline
#endif

#if !defined(__CUDA_ARCH__)
#include <bit>
#include <cmath>
#endif

// Host+device assertion: aborts on the host, traps on the device, compiled out with NDEBUG.
#if defined(NDEBUG)
#define PFSP_DIV_ASSERT(cond) ((void)0)
#elif defined(__CUDA_ARCH__)
#define PFSP_DIV_ASSERT(cond) \
  do {                        \
    if (!(cond)) __trap();    \
  } while (0)
#else
#include <cstdio>
#include <cstdlib>
#define PFSP_DIV_ASSERT(cond)                                                           \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)
#endif

namespace pfsp::divergence {

using lane_mask = std::uint32_t;  // one bit per lane of a warp, as __ballot_sync returns it

inline constexpr int warp_size = 32;
inline constexpr lane_mask full_mask = 0xffffffffu;

PFSP_DIV_HD int popc(lane_mask m) {
#if defined(__CUDA_ARCH__)
  return __popc(m);
#else
  return std::popcount(m);
#endif
}

// Lowest set lane, -1 for an empty mask.
PFSP_DIV_HD int lowest_lane(lane_mask m) {
#if defined(__CUDA_ARCH__)
  return __ffs(m) - 1;
#else
  return m == 0 ? -1 : std::countr_zero(m);
#endif
}

// Lanes strictly below `lane` (the %lanemask_lt register).
PFSP_DIV_HD lane_mask lanes_below(int lane) { return lane == 0 ? 0u : (full_mask >> (warp_size - lane)); }

// Position of `lane` among the lanes of `m` in lane order: the ballot+popc offset that gives each
// voting lane its own slot without atomics (Frey et al. 4.1, Listing 1's loadOffset).
PFSP_DIV_HD int rank_in(lane_mask m, int lane) { return popc(m & lanes_below(lane)); }

PFSP_DIV_HD bool has_lane(lane_mask m, int lane) { return ((m >> lane) & 1u) != 0; }

// a * b + c rounded once, on host and device alike: workloads spell every multiply-add with it so
// that no contraction choice is left to either compiler and all paths give bit-identical floats.
PFSP_DIV_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace pfsp::divergence
