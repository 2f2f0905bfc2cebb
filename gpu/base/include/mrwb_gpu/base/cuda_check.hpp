#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <stdexcept>
#include <string>

namespace mrwb::gpu {

inline void cuda_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

// "cuFFT <what>: <word> <code>". The non-Cartesian recon says "error" where the rest says "status"; the word
// is a parameter so that every message reads as it always has.
inline void cufft_check(cufftResult r, const char* what, const char* word = "status") {
  if (r != CUFFT_SUCCESS) throw std::runtime_error(std::string("cuFFT ") + what + ": " + word + " " + std::to_string(r));
}

// "cuBLAS <what>: status <code>", "cuSOLVER <what>: status <code>".
inline void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cuBLAS ") + what + ": status " + std::to_string(s));
}
inline void cusolver_check(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) throw std::runtime_error(std::string("cuSOLVER ") + what + ": status " + std::to_string(s));
}

// Device buffer owned by RAII.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_) cuda_check(cudaMalloc(&p_, n_ * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  void upload(const T* host) { cuda_check(cudaMemcpy(p_, host, n_ * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  void download(T* host) const { cuda_check(cudaMemcpy(host, p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download"); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace mrwb::gpu
