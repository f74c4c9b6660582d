// Shared by the runner translation units: event timing (pfsp::cuda_event, base layer) and
// persistent-grid sizing.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "base/cuda_check.cuh"
#include "base/device_buffer.cuh"
#include "divergence/gpu/runner.hpp"

namespace pfsp::divergence::gpu::detail {

inline timing summarize(std::vector<double> ms) {
  timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  t.repeats = static_cast<int>(ms.size());
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.median_ms = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  return t;
}

// `run()` enqueues one complete run on the default stream (counter resets included). Warm-ups
// first (module loading, caches), then the median of the repeats, each timed with events.
template <class Run>
timing time_runs(Run&& run, const timing_options& opt) {
  for (int i = 0; i < opt.warmups; ++i) run();
  PFSP_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<double> ms;
  cuda_event start, stop;
  for (int i = 0; i < std::max(1, opt.repeats); ++i) {
    start.record(nullptr);
    run();
    stop.record(nullptr);
    stop.synchronize();
    ms.push_back(stop.since(start));
  }
  PFSP_CUDA_CHECK_LAUNCH("the timed runs' kernels");
  return summarize(std::move(ms));
}

inline int multiprocessors() {
  int dev = 0, sms = 0;
  PFSP_CUDA_TRY(cudaGetDevice(&dev));
  PFSP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// A persistent grid: every SM filled once (or blocks_per_sm blocks per SM when set).
template <class Kernel>
unsigned persistent_blocks(Kernel kernel, int threads, std::size_t smem, std::uint32_t blocks_per_sm) {
  int per_sm = static_cast<int>(blocks_per_sm);
  if (per_sm == 0) PFSP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return static_cast<unsigned>(std::max(1, per_sm) * multiprocessors());
}

inline unsigned blocks_for(std::uint64_t n, int threads) {
  return static_cast<unsigned>((n + static_cast<std::uint64_t>(threads) - 1) / static_cast<std::uint64_t>(threads));
}

}  // namespace pfsp::divergence::gpu::detail
