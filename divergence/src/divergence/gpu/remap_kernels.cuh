// Kernels of the remapping experiments (Zhang et al.): the plain kernels, their reference-
// redirection forms (thread t works on element D[t]), and the data moves of layout
// transformation (gather the input so warps get like data, scatter the output back).
// Included by one translation unit (runner_remap.cu); the non-template kernels are static.
#pragma once

#include <cstdint>

#include "divergence/workloads/black_scholes.hpp"
#include "divergence/workloads/gafort.hpp"

namespace pfsp::divergence::gpu {

inline constexpr int remap_block_threads = 256;

// out[t] = in[source[t]]
template <class T>
__global__ void gather_kernel(const T* __restrict__ in, const std::uint32_t* __restrict__ source, T* __restrict__ out,
                              std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = in[source[t]];
}

// Row-major rows x n matrix, every row gathered with the same D[] (GAFORT's genes).
static __global__ void gather_rows_kernel(const float* __restrict__ in, const std::uint32_t* __restrict__ source,
                                          float* __restrict__ out, std::uint32_t n, std::uint32_t rows) {
  const std::uint64_t total = static_cast<std::uint64_t>(n) * rows;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t row = i / n, t = i % n;
    out[i] = in[row * n + source[t]];
  }
}

// out[source[t]] = in[t]
template <class T>
__global__ void scatter_kernel(const T* __restrict__ in, const std::uint32_t* __restrict__ source, T* __restrict__ out,
                               std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[source[t]] = in[t];
}

static __global__ void gafort_kernel(gafort_view v) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n) v.out[i] = gafort_child(v, i);
}

static __global__ void gafort_redirected_kernel(gafort_view v, const std::uint32_t* __restrict__ source) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= v.n) return;
  const std::uint32_t i = source[t];  // Zhang 3.1: __newtid = D[tid]
  v.out[i] = gafort_child(v, i);
}

static __global__ void black_scholes_kernel(black_scholes_view v) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n) black_scholes_option(v, i);
}

static __global__ void black_scholes_redirected_kernel(black_scholes_view v, const std::uint32_t* __restrict__ source) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < v.n) black_scholes_option(v, source[t]);
}

}  // namespace pfsp::divergence::gpu
