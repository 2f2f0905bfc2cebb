// Conjugate-gradient steps with the scalars on the device (CgState): the updates read alpha and beta where
// one-block kernels left them, so an iteration queues without waiting for the host. The scalars are the
// CPU's: double sums, alpha = float(rr / dq), beta = float(rr' / rr).
#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {
namespace {

struct StartResidual {
  const float2 *rhs, *q;
  float2 *r, *d;
  __device__ double operator()(std::size_t i) const {
    r[i] = csub(rhs[i], q[i]);
    d[i] = r[i];
    return double(r[i].x) * r[i].x + double(r[i].y) * r[i].y;
  }
};

__global__ void start_kernel(const double* partials, CgState* st) {
  const double rr = block_sum(partials, kReduceBlocks);
  if (threadIdx.x != 0) return;
  st->rr = rr;
  st->bnorm = 1;
  st->stop = rr > 0 ? 0 : 1;
  st->iterations = 0;
}

__global__ void reference_norm_kernel(const double* partials, CgState* st) {
  const double bb = block_sum(partials, kReduceBlocks);
  if (threadIdx.x == 0) st->bnorm = sqrt(bb);
}

__global__ void alpha_kernel(const double* partials, CgState* st) {
  const double dq = block_sum(partials, kReduceBlocks);
  if (threadIdx.x != 0 || st->stop) return;
  if (!(dq > 0)) {
    st->stop = 1;
    return;
  }
  st->alpha = static_cast<float>(st->rr / dq);
}

struct UpdateXR {
  float2 *x, *r;
  const float2 *d, *q;
  const CgState* st;
  __device__ double operator()(std::size_t i) const {
    if (st->stop) return 0;
    const float a = st->alpha;
    x[i] = cadd(x[i], cscale(a, d[i]));
    r[i] = csub(r[i], cscale(a, q[i]));
    return double(r[i].x) * r[i].x + double(r[i].y) * r[i].y;
  }
};

__global__ void beta_kernel(const double* partials, CgState* st, double* residuals, int it, double tolerance) {
  const double rr_new = block_sum(partials, kReduceBlocks);
  if (threadIdx.x != 0 || st->stop) return;
  st->iterations = it + 1;
  st->relative_residual = sqrt(rr_new) / st->bnorm;
  if (residuals) residuals[it] = st->relative_residual;
  st->beta = static_cast<float>(rr_new / st->rr);
  st->rr = rr_new;
  if (st->relative_residual < tolerance || rr_new == 0) st->stop = 1;
}

__global__ void direction_kernel(std::size_t n, float2* d, const float2* r, const CgState* st) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n || st->stop) return;
  d[i] = cadd(r[i], cscale(st->beta, d[i]));
}

}  // namespace

void cg_start(std::size_t n, const float2* rhs, const float2* q, float2* r, float2* d, CgState* st, double* partials) {
  reduce(n, StartResidual{rhs, q, r, d}, partials);
  start_kernel<<<1, kThreads>>>(partials, st);
}

void cg_reference_norm(const double* partials, CgState* st) { reference_norm_kernel<<<1, kThreads>>>(partials, st); }

void cg_alpha(const double* partials, CgState* st) { alpha_kernel<<<1, kThreads>>>(partials, st); }

void cg_update(std::size_t n, float2* x, float2* r, const float2* d, const float2* q, CgState* st, double* partials,
               double* residuals, int it, double tolerance) {
  reduce(n, UpdateXR{x, r, d, q, st}, partials);
  beta_kernel<<<1, kThreads>>>(partials, st, residuals, it, tolerance);
}

void cg_direction(std::size_t n, float2* d, const float2* r, const CgState* st) {
  direction_kernel<<<blocks(n), kThreads>>>(n, d, r, st);
}

}  // namespace mrwb::gpu::sparse
