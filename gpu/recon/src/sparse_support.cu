// Shared host-side pieces of the CUDA sparse reconstructions: cuFFT errors, partial sums, scaling, the raw
// slice to and from the device, and the iteration pacer.
#include <algorithm>
#include <cmath>
#include <string>

#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {
namespace {

__global__ void multiply_kernel(std::size_t n, float s, float2* v) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) v[i] = cscale(s, v[i]);
}
__global__ void divide_kernel(std::size_t n, float s, float2* v) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) v[i] = make_float2(__fdiv_rn(v[i].x, s), __fdiv_rn(v[i].y, s));
}

// k[c][rows[r]][x] = s · staged[c][r][x].
__global__ void scatter_rows(std::size_t total, int nx, int ny, int nrows, const int* rows, const float2* staged, float s,
                             float2* k) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const int x = static_cast<int>(i % nx);
  const std::size_t cr = i / nx;
  const int r = static_cast<int>(cr % nrows), c = static_cast<int>(cr / nrows);
  k[(static_cast<std::size_t>(c) * ny + rows[r]) * nx + x] = cscale(s, staged[i]);
}

struct DotRe {
  const float2 *a, *b;
  __device__ double operator()(std::size_t i) const { return re_dot(a[i], b[i]); }
};

}  // namespace

double partials_to_host(const double* partials) {
  double h[kReduceBlocks];
  cuda_check(cudaMemcpy(h, partials, sizeof h, cudaMemcpyDeviceToHost), "partials");
  double s = 0;
  for (double v : h) s += v;
  return s;
}

void dot_re(const float2* a, const float2* b, std::size_t n, double* partials) { reduce(n, DotRe{a, b}, partials); }
void multiply(std::size_t n, float s, float2* v) { multiply_kernel<<<blocks(n), kThreads>>>(n, s, v); }
void divide(std::size_t n, float s, float2* v) { divide_kernel<<<blocks(n), kThreads>>>(n, s, v); }

void upload_unitary_kspace(const RawData& raw, float2* k) {
  const std::size_t n = static_cast<std::size_t>(raw.nx) * raw.ny, total = n * raw.ncoils;
  const float s = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
  std::vector<int> rows;
  for (int y = 0; y < raw.ny; ++y)
    if (raw.flags(y) & kLineAcquired) rows.push_back(y);
  if (rows.size() == static_cast<std::size_t>(raw.ny) || rows.empty()) {
    cuda_check(cudaMemcpy(k, raw.kspace.data(), total * sizeof(float2), cudaMemcpyHostToDevice), "k-space upload");
    multiply(total, s, k);
    return;
  }
  // Unacquired lines are zero (raw_data.hpp): only the acquired ones cross the bus.
  const std::size_t row_len = raw.nx, nrows = rows.size();
  std::vector<std::complex<float>> staged(nrows * row_len * raw.ncoils);
  for (int c = 0; c < raw.ncoils; ++c)
    for (std::size_t r = 0; r < nrows; ++r)
      std::copy_n(raw.kspace.begin() + static_cast<std::ptrdiff_t>(c * n + rows[r] * row_len), row_len,
                  staged.begin() + static_cast<std::ptrdiff_t>((c * nrows + r) * row_len));
  DeviceBuffer<float2> d_staged(staged.size());
  DeviceBuffer<int> d_rows(nrows);
  d_staged.upload(reinterpret_cast<const float2*>(staged.data()));
  d_rows.upload(rows.data());
  cuda_check(cudaMemset(k, 0, total * sizeof(float2)), "memset");
  scatter_rows<<<blocks(staged.size()), kThreads>>>(staged.size(), raw.nx, raw.ny, static_cast<int>(nrows), d_rows.get(),
                                                    d_staged.get(), s, k);
  cuda_check(cudaGetLastError(), "k-space scatter");
}

Image2D download_image(const RawData& raw, const float2* x) {
  Image2D out;
  out.nx = raw.nx;
  out.ny = raw.ny;
  out.fov_x_m = raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m;
  out.fov_y_m = raw.recon_fov_y_m > 0 ? raw.recon_fov_y_m : raw.fov_y_m;
  out.data.resize(out.size());
  cuda_check(cudaMemcpy(out.data.data(), x, out.size() * sizeof(float2), cudaMemcpyDeviceToHost), "image download");
  return out;
}

Pacer::Pacer() {
  for (auto& e : ev_) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
}
Pacer::~Pacer() {
  for (auto& e : ev_)
    if (e) cudaEventDestroy(e);
}
void Pacer::queued(int it) {
  cuda_check(cudaEventRecord(ev_[it & 1]), "event record");
  if (it > 0) cuda_check(cudaEventSynchronize(ev_[(it - 1) & 1]), "iteration");
}
void Pacer::drain() { cuda_check(cudaDeviceSynchronize(), "iterations"); }

}  // namespace mrwb::gpu::sparse
