// Portability macro for functions compiled for both host and device (Kokkos-style), shared by
// pfsp's layers and the divergence library. Includes no CUDA header, so g++ builds it alone.
#pragma once

// PFSP_UNROLL before a loop over machines: fully unrolled in device code when the machine count
// is a compile-time constant there (the device loop's kernels for m = 5, 10, 20), so per-machine
// arrays stay in registers; nothing on the host.
#if defined(__CUDA_ARCH__)
#define PFSP_UNROLL _Pragma("unroll")
#else
#define PFSP_UNROLL
#endif

#if defined(__CUDACC__)
#define PFSP_HD __host__ __device__ __forceinline__
#define PFSP_HD_NOINLINE __host__ __device__
#else
#define PFSP_HD inline
#define PFSP_HD_NOINLINE
#endif

// Host+device assertion: aborts on the host, traps on the device; compiled out with NDEBUG.
#if defined(NDEBUG)
#define PFSP_HD_ASSERT(cond) ((void)0)
#elif defined(__CUDA_ARCH__)
#define PFSP_HD_ASSERT(cond) \
  do {                       \
    if (!(cond)) __trap();   \
  } while (0)
#else
#include <cstdio>
#include <cstdlib>
#define PFSP_HD_ASSERT(cond)                                                            \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)
#endif
