#pragma once
// Private state of mrwb::gpu::GrappaCuda shared by grappa_calibration.cu and grappa_synthesis.cu.
#include <cublas_v2.h>
#include <cuComplex.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <memory>
#include <string>

#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/recon/grappa_cuda.hpp"

namespace mrwb::gpu {

// Elapsed device time between two events recorded on the default stream.
class EventTimer {
 public:
  EventTimer() {
    cuda_check(cudaEventCreate(&a_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&b_), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start() { cuda_check(cudaEventRecord(a_), "cudaEventRecord"); }
  double stop_ms() {
    cuda_check(cudaEventRecord(b_), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(b_), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, a_, b_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

struct GrappaCuda::Impl {
  GrappaGeometry g;
  GrappaParams params;
  int nslices = 1, nsys = 1;  // systems = slices x segments
  cublasHandle_t blas{};
  cusolverDnHandle_t solver{};
  GrappaCudaTiming timing;
  // calibration
  std::unique_ptr<DeviceBuffer<cuComplex>> acs;          // [slice][coil][acs line][x]
  std::unique_ptr<DeviceBuffer<cuDoubleComplex>> M;      // [system] nr x neq, column-major, [B; A]
  std::unique_ptr<DeviceBuffer<cuDoubleComplex>> C;      // [system] nr x na: [U; V], then [W; L]
  std::unique_ptr<DeviceBuffer<double>> pcol, sorted, psi, lambda;
  std::unique_ptr<DeviceBuffer<int>> info;
  std::unique_ptr<DeviceBuffer<cuDoubleComplex*>> ptr_L, ptr_U;
  std::unique_ptr<DeviceBuffer<cuDoubleComplex>> work;   // potrf workspace (one system)
  int lwork = 0;
  // synthesis and combination (one slice at a time)
  int k_nx = 0, k_ny = 0, out_nx = 0;
  std::unique_ptr<DeviceBuffer<cuComplex>> k, buf, low, Wf, Asyn, Y, img;
  std::unique_ptr<DeviceBuffer<unsigned char>> flags;
  cufftHandle fft = 0;
  int fft_nx = 0, fft_ny = 0;

  void ensure_fft(int nx, int ny);
};

}  // namespace mrwb::gpu
