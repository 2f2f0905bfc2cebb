#pragma once
// Device building blocks of the CUDA SENSE operator, CG-SENSE and compressed sensing (internal to gpu/recon).
// Elementwise arithmetic is rounded as on the host (no FMA contraction: __fmul_rn / __fadd_rn), so where the
// CPU and the device do the same operations the results agree to the bit; what differs is the FFT (cuFFT vs
// FFTW) and the order of the reductions, which accumulate in double like the CPU's.
#include <cuda_runtime.h>
#include <cufft.h>

#include <complex>
#include <cstddef>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/compressed_sensing.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"

namespace mrwb::gpu::sparse {

constexpr int kThreads = 256;
constexpr int kReduceBlocks = 128;  // partial sums per reduction (one per block)

inline unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y)); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(__fsub_rn(a.x, b.x), __fsub_rn(a.y, b.y)); }
__device__ __forceinline__ float2 cscale(float s, float2 a) { return make_float2(__fmul_rn(s, a.x), __fmul_rn(s, a.y)); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(__fsub_rn(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y)), __fadd_rn(__fmul_rn(a.x, b.y), __fmul_rn(a.y, b.x)));
}
__device__ __forceinline__ float2 conjf2(float2 a) { return make_float2(a.x, -a.y); }
__device__ __forceinline__ float normf2(float2 a) { return __fadd_rn(__fmul_rn(a.x, a.x), __fmul_rn(a.y, a.y)); }
__device__ __forceinline__ double re_dot(float2 a, float2 b) { return double(a.x) * b.x + double(a.y) * b.y; }

// Sum of `count` partials by one block of kThreads threads; every thread gets the total.
__device__ __forceinline__ double block_sum(const double* partials, int count) {
  __shared__ double s[kThreads];
  double a = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) a += partials[i];
  s[threadIdx.x] = a;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  const double total = s[0];
  __syncthreads();
  return total;
}

// partials[block] = sum over the block's grid-stride share of f(i), i < n (f may also write: fused updates).
template <typename F>
__global__ void reduce_kernel(std::size_t n, F f, double* partials) {
  __shared__ double s[kThreads];
  double acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    acc += f(i);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}
template <typename F>
void reduce(std::size_t n, F f, double* partials) {
  reduce_kernel<<<kReduceBlocks, kThreads>>>(n, f, partials);
}
// Waits for the device and sums the partials on the host.
double partials_to_host(const double* partials);
// Re<a, b> into partials.
void dot_re(const float2* a, const float2* b, std::size_t n, double* partials);
// v ·= s and v /= s elementwise (complex times / over a float, as std::complex<float> does).
void multiply(std::size_t n, float s, float2* v);
void divide(std::size_t n, float s, float2* v);

// The SENSE operator E = M F S (cartesian_sense_operator.hpp) on the device.
struct DeviceSense {
  DeviceSense(int nx, int ny, int coils, const std::complex<float>* maps, const std::vector<float>& mask);
  ~DeviceSense();
  DeviceSense(const DeviceSense&) = delete;
  DeviceSense& operator=(const DeviceSense&) = delete;

  int nx, ny, coils;
  std::size_t n;                 // nx·ny
  DeviceBuffer<float2> maps;     // S_c, [coil][y][x]
  DeviceBuffer<float2> sp;       // S_c ⊙ pre (the CPU's s·pre)
  DeviceBuffer<float2> pre;      // centring modulation before the DFT
  DeviceBuffer<float2> post;     // after it, times 1/sqrt(N)
  DeviceBuffer<float> mask;      // M [ky][kx]
  DeviceBuffer<float> wmask;     // M²/N of E^H E
  DeviceBuffer<float2> buf;      // coils x n scratch of the transforms
  cufftHandle plan = 0;          // 2-D C2C batched over the coils, in place
  // A mask constant along kx (every line mask): E^H E needs the DFT along y only, F_x^H F_x = nx I. Its
  // scratch is [y][coil][x], so one 1-D plan strided by coils·nx covers every coil and column.
  bool line_mask = false;
  DeviceBuffer<float> wline;     // M(ky)² / ny
  cufftHandle plan_y = 0;

  // k = E x (coils x n), x = E^H k, out = E^H E x (out may not alias x); device pointers, default stream.
  void forward(const float2* x, float2* k) const;
  void adjoint(const float2* k, float2* x) const;
  void normal(const float2* x, float2* out) const;
  // image (n values) ·= sqrt(sum_c |S_c|²), as weight_by_coil_rss.
  void weight_by_rss(float2* image) const;
};

// raw.kspace (one slice) to the device on the operator's unitary scale (unitary_kspace): k holds coils x n.
void upload_unitary_kspace(const RawData& raw, float2* k);
// x (n values) as the slice's image: size and field of view as core's cg_sense / compressed_sensing.
Image2D download_image(const RawData& raw, const float2* x);

// Keeps the host at most one iteration ahead of the device, so that progress and cancel follow the work.
class Pacer {
 public:
  Pacer();
  ~Pacer();
  Pacer(const Pacer&) = delete;
  Pacer& operator=(const Pacer&) = delete;
  // After queueing iteration `it`: records it and waits for iteration it − 1 (none for it = 0).
  void queued(int it);
  void drain();

 private:
  cudaEvent_t ev_[2] = {nullptr, nullptr};
};

// Conjugate-gradient state on the device (one solve): the kernels read alpha, beta and stop from here.
struct CgState {
  double rr = 0, bnorm = 1;
  float alpha = 0, beta = 0;
  int stop = 0;        // 1: ended (Re<d, A d> <= 0, r = 0, or the tolerance reached)
  int iterations = 0;  // completed
  double relative_residual = 0;
};
// r = rhs − q, d = r, rr = |r|² (stop when 0): the start of a warm-started CG, q = A x; iterations = 0.
void cg_start(std::size_t n, const float2* rhs, const float2* q, float2* r, float2* d, CgState* st, double* partials);
// bnorm = sqrt(sum of the partials): the norm the relative residual is taken against (1 after cg_start).
void cg_reference_norm(const double* partials, CgState* st);
// The CG steps after q = A d: finish Re<d, q> (partials) into alpha, or stop when <= 0.
void cg_alpha(const double* partials, CgState* st);
// x += alpha d, r −= alpha q, then rr' = |r|²: residuals[it] = sqrt(rr')/bnorm (when not null), beta = rr'/rr,
// stop when rr' = 0 or the relative residual < tolerance.
void cg_update(std::size_t n, float2* x, float2* r, const float2* d, const float2* q, CgState* st, double* partials,
               double* residuals, int it, double tolerance);
// d = r + beta d.
void cg_direction(std::size_t n, float2* d, const float2* r, const CgState* st);

// Orthonormal periodic 2-D DWT (wavelet.hpp) on the device: the same filters and pyramid, in place.
struct Filters {
  double h[8], g[8];
  int taps;
};
Filters daubechies_filters(int taps);
void dwt_forward(float2* data, float2* tmp, int nx, int ny, int levels, const Filters& f);
void dwt_inverse(float2* data, float2* tmp, int nx, int ny, int levels, const Filters& f);

// Isotropic TV (total_variation.hpp): q += rho D^H D d with partials of Re<d, q>; rhs = b + rho D^H (z − u)
// with partials of |rhs|²; the over-relaxed ADMM z and u updates (xh = alpha D x + (1 − alpha) z,
// z = shrink(xh + u, tau), u += xh − z, dz = z − z_old); TV(x) into partials.
void tv_normal_add(const float2* d, float rho, int nx, int ny, float2* q, double* partials);
void tv_rhs(const float2* b, const float2* z, const float2* u, float rho, int nx, int ny, float2* rhs,
            double* partials);
void tv_zu_update(const float2* x, float tau, float alpha, int nx, int ny, float2* z, float2* u, float2* dz);
void tv_norm(const float2* x, int nx, int ny, double* partials);
// The squared norms of ADMM's residual test (compressed_sensing.hpp), summed on the host (waits for the
// device): |D x|², |z|², |D x − z|², |D^H dz|², |D^H u|². partials: 5 x kReduceBlocks.
struct AdmmResiduals {
  double grad, z, primal, adjoint_dz, adjoint_u;
};
AdmmResiduals tv_admm_residuals(const float2* x, const float2* z, const float2* u, const float2* dz, int nx, int ny,
                                double* partials);

// The solvers of compressed_sensing.cpp on the device, from b = E^H d and dd = ||M d||²; x: n values out.
void fista_l1_wavelet(const DeviceSense& E, const float2* b, double dd, const CsParams& p, float2* x, CsReport& rep,
                      const ProgressFn& progress, const CancelToken& cancel);
void admm_tv(const DeviceSense& E, const float2* b, double dd, const CsParams& p, float2* x, CsReport& rep,
             const ProgressFn& progress, const CancelToken& cancel);
// 1/2||E x − d||² from E^H E x, E^H d and ||M d||², as the CPU's data_term.
double data_term(const DeviceSense& E, const float2* x, const float2* b, double dd);

}  // namespace mrwb::gpu::sparse
