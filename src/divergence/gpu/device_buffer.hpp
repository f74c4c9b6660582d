// Owner and view of device memory (RMM device_uvector / span style): device_buffer is RAII and
// lives on the host; what kernels receive are raw pointers taken from it, packed in the
// workloads' trivially copyable view structs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "divergence/gpu/cuda_check.hpp"

namespace pfsp::divergence::gpu {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : n_(n) {
    if (n_) PFSP_DIV_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&p_), n_ * sizeof(T)));
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  ~device_buffer() {
    if (p_) cudaFree(p_);  // never throws
  }
  device_buffer(device_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }

  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    upload(host.data(), host.size(), 0, stream);
  }
  void upload(const T* host, std::size_t count, std::size_t offset = 0, cudaStream_t stream = nullptr) {
    PFSP_DIV_EXPECTS(offset + count <= n_, "device_buffer::upload out of range");
    if (count) PFSP_DIV_CUDA_TRY(cudaMemcpyAsync(p_ + offset, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_) PFSP_DIV_CUDA_TRY(cudaMemcpy(host.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // Every byte set to `byte` (0xff poisons outputs before a check, 0 resets counters).
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    if (n_) PFSP_DIV_CUDA_TRY(cudaMemsetAsync(p_, byte, n_ * sizeof(T), stream));
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace pfsp::divergence::gpu
