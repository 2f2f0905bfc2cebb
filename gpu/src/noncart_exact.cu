// Host entry points of the exact F^H d and Q on the device (twins of core's exact_fhd / exact_q).
#include <stdexcept>

#include "cuda_check.hpp"
#include "noncart_device.hpp"

namespace mrwb::gpu {
namespace nc {
namespace {

__global__ void make_mu_kernel(const float2* d, std::size_t M, float scale, float2* mu) {
  const std::size_t m = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (m >= M) return;
  mu[m] = d ? make_float2(scale * d[m].x, scale * d[m].y) : make_float2(scale, 0.f);
}

__global__ void mirror_q_kernel(int dims, int n, std::size_t half, std::size_t total, float2* q) {
  const std::size_t v = half + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (v >= total) return;
  const int n2 = 2 * n;
  const int ix = static_cast<int>(v % n2), iy = static_cast<int>((v / n2) % n2);
  const int iz = dims == 3 ? static_cast<int>(v / (static_cast<std::size_t>(n2) * n2)) : 0;
  const int mx = (n2 - ix) % n2, my = (n2 - iy) % n2, mz = (n2 - iz) % n2;
  const std::size_t mv = dims == 3 ? (static_cast<std::size_t>(mz) * n2 + my) * n2 + mx
                                   : static_cast<std::size_t>(my) * n2 + mx;
  const float2 s = q[mv];
  q[v] = make_float2(s.x, -s.y);
}

}  // namespace

void make_mu(const float2* d, std::size_t M, float scale, float2* mu, cudaStream_t st) {
  make_mu_kernel<<<static_cast<unsigned>((M + 255) / 256), 256, 0, st>>>(d, M, scale, mu);
  cuda_check(cudaGetLastError(), "make_mu");
}

void mirror_q(int dims, int n, float2* q, cudaStream_t st) {
  const noncart::Grid g2{dims, 2 * n};
  const std::size_t total = g2.voxels(), half = total / (2 * n) * (n + 1);
  mirror_q_kernel<<<static_cast<unsigned>((total - half + 255) / 256), 256, 0, st>>>(dims, n, half, total, q);
  cuda_check(cudaGetLastError(), "mirror_q");
}

void exact_sum(int dims, int n_out, float spacing, int origin, std::size_t voxels, const float* k, const float2* mu,
               std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st) {
  if (c.variant == "rotate" && n_out % kRotateRun == 0)
    exact_sum_rotate(dims, n_out, spacing, origin, voxels, k, mu, M, c, out, st);
  else if (c.variant == "sfu" || c.variant == "rotate")
    exact_sum_sfu(dims, n_out, spacing, origin, voxels, k, mu, M,
                  c.variant == "sfu" ? c : FhdConfig{"sfu", c.threads_per_block, std::min(c.tile, 3200), c.unroll},
                  out, st);
  else
    throw std::invalid_argument("fhd variant " + c.variant + " (allowed: sfu, rotate)");
}

}  // namespace nc

DeviceFacts device_facts() {
  DeviceFacts f;
  int khz = 0;
  cuda_check(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  cuda_check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock rate");
  f.clock_hz = khz * 1e3;
  return f;
}

int max_tile(const std::string& variant) { return variant == "rotate" ? 2280 : 3200; }

namespace {
std::vector<noncart::cdouble> download(const DeviceBuffer<float2>& b, std::size_t n) {
  std::vector<float2> h(n);
  cuda_check(cudaMemcpy(h.data(), b.get(), n * sizeof(float2), cudaMemcpyDeviceToHost), "download");
  std::vector<noncart::cdouble> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = {h[i].x, h[i].y};
  return out;
}
}  // namespace

std::vector<noncart::cdouble> fhd_on_device(const noncart::Grid& g, const float* k, const noncart::cfloat* d,
                                            std::size_t M, const FhdConfig& c, double* seconds) {
  DeviceBuffer<float> dk(M * g.dims);
  dk.upload(k);
  DeviceBuffer<float2> dd(M), mu(M), out(g.voxels());
  dd.upload(reinterpret_cast<const float2*>(d));
  cuda_check(cudaMemset(out.get(), 0, g.voxels() * sizeof(float2)), "memset");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  nc::make_mu(dd.get(), M, static_cast<float>(g.phi()), mu.get(), nullptr);
  nc::exact_sum(g.dims, g.n, 1.0f / g.n, g.n / 2, g.voxels(), dk.get(), mu.get(), M, c, out.get(), nullptr);
  cudaEventRecord(e1);
  cuda_check(cudaEventSynchronize(e1), "fhd");
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (seconds) *seconds = ms * 1e-3;
  return download(out, g.voxels());
}

std::vector<noncart::cdouble> q_on_device(const noncart::Grid& g, const float* k, std::size_t M, const FhdConfig& c,
                                          double* seconds) {
  const noncart::Grid g2 = g.doubled();
  const std::size_t total = g2.voxels(), half = total / (2 * g.n) * (g.n + 1);
  DeviceBuffer<float> dk(M * g.dims);
  dk.upload(k);
  DeviceBuffer<float2> mu(M), out(total);
  cuda_check(cudaMemset(out.get(), 0, total * sizeof(float2)), "memset");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  nc::make_mu(nullptr, M, static_cast<float>(g.phi() * g.phi()), mu.get(), nullptr);
  nc::exact_sum(g.dims, g2.n, 1.0f / g.n, g.n, half, dk.get(), mu.get(), M, c, out.get(), nullptr);
  nc::mirror_q(g.dims, g.n, out.get(), nullptr);
  cudaEventRecord(e1);
  cuda_check(cudaEventSynchronize(e1), "q");
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (seconds) *seconds = ms * 1e-3;
  return download(out, total);
}

}  // namespace mrwb::gpu
