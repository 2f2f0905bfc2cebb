// Host entry points of the exact F^H d and Q on the device (twins of core's exact_fhd / exact_q).
#include <algorithm>
#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/recon/noncart_exact.hpp"

#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/base/device_parts.hpp"
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

// The kernels read k-space tiles from the device's one __constant__ bank (Stone et al. 2008), so two host
// threads on one device (parts sharing a GPU, two reconstructions at once) must not interleave their tiles'
// copies: a call holds its device's bank until its last kernel has run. Devices past 63 share a lock.
std::mutex& constant_bank(int device) {
  static std::mutex banks[64];
  return banks[static_cast<unsigned>(device) % 64];
}

}  // namespace

void make_mu(const float2* d, std::size_t M, float scale, float2* mu, cudaStream_t st) {
  make_mu_kernel<<<static_cast<unsigned>((M + 255) / 256), 256, 0, st>>>(d, M, scale, mu);
  cuda_check(cudaGetLastError(), "make_mu");
}

void mirror_q(int dims, int n, float2* q, cudaStream_t st) {
  const noncart::Grid g2{dims, 2 * n};
  const std::size_t total = g2.voxels(), half = noncart::q_half_voxels(noncart::Grid{dims, n});
  mirror_q_kernel<<<static_cast<unsigned>((total - half + 255) / 256), 256, 0, st>>>(dims, n, half, total, q);
  cuda_check(cudaGetLastError(), "mirror_q");
}

void exact_sum(int dims, int n_out, float spacing, int origin, std::size_t first, std::size_t voxels, const float* k,
               const float2* mu, std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st) {
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  const std::lock_guard<std::mutex> bank(constant_bank(device));
  if (c.variant == "rotate" && n_out % kRotateRun == 0)
    exact_sum_rotate(dims, n_out, spacing, origin, first, voxels, k, mu, M, c, out, st);
  else if (c.variant == "sfu" || c.variant == "rotate")
    exact_sum_sfu(dims, n_out, spacing, origin, first, voxels, k, mu, M,
                  c.variant == "sfu" ? c : FhdConfig{"sfu", c.threads_per_block, std::min(c.tile, 3200), c.unroll},
                  out, st);
  else
    throw std::invalid_argument("fhd variant " + c.variant + " (allowed: sfu, rotate)");
  cuda_check(cudaStreamSynchronize(st), "exact sum");  // the bank is free once the kernels are done with it
}

}  // namespace nc

int max_tile(const std::string& variant) { return variant == "rotate" ? 2280 : 3200; }

VoxelTiling plan_voxel_tiles(std::size_t voxels, int row, std::size_t M, int dims, bool with_data, std::size_t free_bytes,
                             std::size_t requested_tile) {
  // k, mu, the constant-memory staging (<= 28 B per sample, rotate) and, for F^H d, the data.
  const std::size_t sample_bytes = M * (dims * sizeof(float) + sizeof(float2) + 28 + (with_data ? sizeof(float2) : 0));
  const std::size_t row_bytes = static_cast<std::size_t>(row) * sizeof(float2);
  // Use at most half of the free memory: cuFFT/cuBLAS handles and other work keep the rest.
  const std::size_t budget = free_bytes / 2 > sample_bytes ? free_bytes / 2 - sample_bytes : 0;
  if (budget < row_bytes)
    throw InputError("exact F^H d / Q on the GPU: " + std::to_string(M) + " samples and one row of " + std::to_string(row) +
                     " voxels need " + std::to_string(2 * (sample_bytes + row_bytes)) + " bytes of GPU memory (half kept free), " +
                     std::to_string(free_bytes) + " free (allowed: fewer samples, smaller --matrix, or --backend cpu)");
  std::size_t tile = requested_tile ? requested_tile : std::min(voxels, kAutoTileVoxels);
  tile = std::min({tile, voxels, budget / sizeof(float2)});
  tile = std::max<std::size_t>(row, tile / row * row);
  return {tile, (voxels + tile - 1) / tile, sample_bytes + tile * sizeof(float2)};
}

namespace {

// Runs exact_sum over voxels [begin, end) of an n_out grid tile by tile into result[begin, end) (host,
// cdouble), returning the kernels' event time [s]. The host buffers are made while the first tile's kernel
// runs, and `result` is written only once `result_ready` is (its allocation overlaps the kernels too).
double tiled_exact_sum(int dims, int n_out, float spacing, int origin, std::size_t begin, std::size_t end,
                       const float* dk, const float2* mu, std::size_t M, const FhdConfig& c, const VoxelTiling& plan,
                       std::shared_future<void> result_ready, noncart::cdouble* const& result) {
  DeviceBuffer<float2> out(plan.tile_voxels);
  std::vector<float2> h;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  double total_ms = 0;
  for (std::size_t first = begin; first < end; first += plan.tile_voxels) {
    const std::size_t count = std::min(plan.tile_voxels, end - first);
    cuda_check(cudaMemset(out.get(), 0, count * sizeof(float2)), "memset");
    cudaEventRecord(e0);
    nc::exact_sum(dims, n_out, spacing, origin, first, count, dk, mu, M, c, out.get(), nullptr);
    cudaEventRecord(e1);
    if (h.empty()) h.resize(plan.tile_voxels);
    result_ready.get();  // this thread's copy; rethrows the allocation's bad_alloc
    cuda_check(cudaEventSynchronize(e1), "exact sum tile");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    total_ms += ms;
    cuda_check(cudaMemcpy(h.data(), out.get(), count * sizeof(float2), cudaMemcpyDeviceToHost), "download tile");
    for (std::size_t i = 0; i < count; ++i) result[first + i] = {h[i].x, h[i].y};
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return total_ms * 1e-3;
}

std::size_t free_device_bytes() {
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  return free_b;
}

}  // namespace

std::vector<noncart::cdouble> nc::split_exact_sum(int dims, int n_out, float spacing, int origin, std::size_t voxels,
                                              int row, const float* k, const noncart::cfloat* d, float scale,
                                              std::size_t M, const FhdConfig& c, double* seconds) {
  const int parts = resolve_gpu_parts(c.devices, "--gpus");
  const std::size_t rows = voxels / row;
  // The result (voxels complex doubles, 268 MB at 256^3) is zero-filled by its own thread while the kernels run.
  std::vector<noncart::cdouble> result;
  noncart::cdouble* result_data = nullptr;
  const std::shared_future<void> result_ready = std::async(std::launch::async, [&] {
                                                  result.resize(voxels);
                                                  result_data = result.data();
                                                }).share();
  std::vector<double> kernel_s(static_cast<std::size_t>(parts), 0.0);
  const auto t0 = std::chrono::steady_clock::now();
  run_device_parts(parts, [&](int p, int) {
    const std::size_t begin = range_begin(rows, parts, p) * row, end = range_begin(rows, parts, p + 1) * row;
    if (begin == end) return;
    const VoxelTiling plan = plan_voxel_tiles(end - begin, row, M, dims, d != nullptr, free_device_bytes(), c.voxel_tile);
    DeviceBuffer<float> dk(M * dims);
    dk.upload(k);
    DeviceBuffer<float2> dd(d ? M : 1), mu(M);
    if (d) dd.upload(reinterpret_cast<const float2*>(d));
    nc::make_mu(d ? dd.get() : nullptr, M, scale, mu.get(), nullptr);
    kernel_s[static_cast<std::size_t>(p)] =
        tiled_exact_sum(dims, n_out, spacing, origin, begin, end, dk.get(), mu.get(), M, c, plan, result_ready,
                        result_data);
  });
  result_ready.get();  // rethrows the allocation's bad_alloc, if any
  if (seconds)
    *seconds = parts == 1 ? kernel_s[0]
                          : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

std::vector<noncart::cdouble> fhd_on_device(const noncart::Grid& g, const float* k, const noncart::cfloat* d,
                                            std::size_t M, const FhdConfig& c, double* seconds) {
  return nc::split_exact_sum(g.dims, g.n, 1.0f / g.n, g.n / 2, g.voxels(), g.n, k, d, static_cast<float>(g.phi()), M, c,
                         seconds);
}

std::vector<noncart::cdouble> q_on_device(const noncart::Grid& g, const float* k, std::size_t M, const FhdConfig& c,
                                          double* seconds) {
  const noncart::Grid g2 = g.doubled();
  auto q = nc::split_exact_sum(g.dims, g2.n, 1.0f / g.n, g.n, noncart::q_half_voxels(g), g2.n, k, nullptr,
                           static_cast<float>(g.phi() * g.phi()), M, c, seconds);
  noncart::complete_q_hermitian(g, q);  // on the host: the whole 2n grid need not fit on the device
  return q;
}

}  // namespace mrwb::gpu
