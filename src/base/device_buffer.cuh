// Owners and views of GPU-side memory (RMM device_buffer / cuco *_ref style), for pfsp's gpu/
// and the divergence library's kernels alike. An owner is RAII and lives on the host; a view owns
// nothing, is trivially copyable, and is what a kernel gets. CUDA code only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "base/cuda_check.cuh"
#include "base/error.hpp"

namespace pfsp {

// Non-owning view of `size` elements in device memory.
template <class T>
struct device_span {
  T* data = nullptr;
  std::size_t size = 0;
};

// Owner of device memory (cudaMalloc). Move-only; contents uninitialised unless built from a
// host vector.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : size_(count) {
    if (count > 0) PFSP_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  // A copy of `host`, landed on return: on the legacy default stream, then waited for, because
  // kernels on non-blocking streams (the device loop's, the walkers') do not wait for that stream,
  // and a copy from pageable memory returns before its DMA lands.
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) {
    upload(host);
    PFSP_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
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

  // Checked, vector-shaped copies (the divergence library's runners): `count` elements from
  // `host` to [offset, offset + count), asynchronous on `stream`; download() is synchronous.
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    upload(host.data(), host.size(), 0, stream);
  }
  void upload(const T* host, std::size_t count, std::size_t offset = 0, cudaStream_t stream = nullptr) {
    PFSP_EXPECTS(offset + count <= size_, "device_buffer::upload out of range");
    if (count > 0)
      PFSP_CUDA_TRY(cudaMemcpyAsync(data_ + offset, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  std::vector<T> download() const {
    std::vector<T> host(size_);
    if (size_ > 0) PFSP_CUDA_TRY(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // Every byte set to `byte` (0xff poisons outputs before a check, 0 resets counters).
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    if (size_ > 0) PFSP_CUDA_TRY(cudaMemsetAsync(data_, byte, size_ * sizeof(T), stream));
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
  // A stream belongs to the device current when it is created: the first constructor uses the
  // current one, the second makes `device` current first (and leaves it current).
  cuda_stream() { PFSP_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  explicit cuda_stream(int device) {
    PFSP_CUDA_TRY(cudaSetDevice(device));
    PFSP_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
  }
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

}  // namespace pfsp
