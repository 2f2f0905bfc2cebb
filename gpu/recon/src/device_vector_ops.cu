// The vector operations of core's conjugate gradient (iter/conjugate_gradient.hpp) on the device, as the host's
// (iter/host_vector_ops.hpp): Re<a, b> summed in double, alpha and beta rounded to float before they scale.
#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {
namespace {

__global__ void total_kernel(const double* partials, double* total) {
  const double s = block_sum(partials, kReduceBlocks);
  if (threadIdx.x == 0) *total = s;
}

__global__ void axpy_kernel(std::size_t n, float a, const float2* x, float2* y) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = cadd(y[i], cscale(a, x[i]));
}

__global__ void xpay_kernel(std::size_t n, const float2* x, float b, float2* y) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = cadd(x[i], cscale(b, y[i]));
}

}  // namespace

double DeviceVectorOps::dot(const vector& a, const vector& b) const {
  dot_re(a.get(), b.get(), n_, partials_.get());
  total_kernel<<<1, kThreads>>>(partials_.get(), total_.get());
  double s = 0;
  cuda_check(cudaMemcpy(&s, total_.get(), sizeof s, cudaMemcpyDeviceToHost), "cg dot");
  return s;
}

void DeviceVectorOps::copy(const vector& src, vector& dst) const {
  cuda_check(cudaMemcpyAsync(dst.get(), src.get(), n_ * sizeof(float2), cudaMemcpyDeviceToDevice), "cg copy");
}

void DeviceVectorOps::axpy(double alpha, const vector& x, vector& y) const {
  axpy_kernel<<<blocks(n_), kThreads>>>(n_, static_cast<float>(alpha), x.get(), y.get());
}

void DeviceVectorOps::xpay(const vector& x, double beta, vector& y) const {
  xpay_kernel<<<blocks(n_), kThreads>>>(n_, x.get(), static_cast<float>(beta), y.get());
}

}  // namespace mrwb::gpu::sparse
