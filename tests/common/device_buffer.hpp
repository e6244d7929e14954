// SPDX-License-Identifier: MIT
/// Device memory for the CUDA tests (test helpers): an allocation freed on scope exit, and copies
/// between it and host vectors.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace fp8gemm::test {

/// A device allocation freed on scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;
  ~DeviceBuffer() {
    if (ptr != nullptr) cudaFree(ptr);
  }
  /// At least one byte, so that an empty buffer still has a distinct non-null address.
  cudaError_t allocate(std::size_t bytes) { return cudaMalloc(&ptr, bytes == 0 ? 1 : bytes); }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr);
  }
};

/// Allocates `d` for h.size() elements and copies h into it.
template <class T>
cudaError_t upload(DeviceBuffer& d, std::vector<T> const& h) {
  cudaError_t const e = d.allocate(h.size() * sizeof(T));
  if (e != cudaSuccess || h.empty()) return e;
  return cudaMemcpy(d.ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
}

/// Copies the first h.size() elements of `d` into h.
template <class T>
cudaError_t download(std::vector<T>& h, DeviceBuffer const& d) {
  if (h.empty()) return cudaSuccess;
  return cudaMemcpy(h.data(), d.ptr, h.size() * sizeof(T), cudaMemcpyDeviceToHost);
}

}  // namespace fp8gemm::test
