// Owners and views of GPU-side memory (RMM device_buffer / cuco *_ref style). An owner is RAII
// and lives on the host; a view owns nothing, is trivially copyable, and is what a kernel gets.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace pfsp::gpu {

// Non-owning view of `size` elements in device memory.
template <class T>
struct device_span {
  T* data = nullptr;
  std::size_t size = 0;
};

// Owner of device memory (cudaMalloc). Move-only; contents uninitialised.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : size_(count) {
    if (count > 0) PFSP_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  device_span<T> view() const { return {data_, size_}; }

  void copy_from_host(const T* src, std::size_t count, cudaStream_t stream) {
    if (count > 0) PFSP_CUDA_TRY(cudaMemcpyAsync(data_, src, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void copy_to_host(T* dst, std::size_t count, cudaStream_t stream) const {
    if (count > 0) PFSP_CUDA_TRY(cudaMemcpyAsync(dst, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }

 private:
  void release() noexcept {
    if (data_) PFSP_CUDA_TRY_NOTHROW(cudaFree(data_));
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Owner of page-locked host memory (cudaMallocHost): what asynchronous copies need to overlap.
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count) : size_(count) {
    if (count > 0) PFSP_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~pinned_buffer() { release(); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) const { return data_[i]; }

 private:
  void release() noexcept {
    if (data_) PFSP_CUDA_TRY_NOTHROW(cudaFreeHost(data_));
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

class cuda_stream {
 public:
  cuda_stream() { PFSP_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  ~cuda_stream() {
    if (s_) PFSP_CUDA_TRY_NOTHROW(cudaStreamDestroy(s_));
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class cuda_event {
 public:
  cuda_event() { PFSP_CUDA_TRY(cudaEventCreate(&e_)); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  ~cuda_event() {
    if (e_) PFSP_CUDA_TRY_NOTHROW(cudaEventDestroy(e_));
  }
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { PFSP_CUDA_TRY(cudaEventRecord(e_, s)); }
  void synchronize() const { PFSP_CUDA_TRY(cudaEventSynchronize(e_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float since(const cuda_event& start) const {
    float ms = 0;
    PFSP_CUDA_TRY(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace pfsp::gpu
