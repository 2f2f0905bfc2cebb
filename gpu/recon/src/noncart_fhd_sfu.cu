// Exact F^H d / Q, the paper's kernel (Stone et al. 2008, cmpFhD): one thread per voxel, voxel data in
// registers, k-space tiles of AoS structs in __constant__ memory (one launch per tile, accumulating into
// zeroed outputs), __sincosf on the special-function units, loop unrolled by a template parameter.
#include <stdexcept>

#include "mrwb_gpu/base/cuda_check.hpp"
#include "noncart_device.hpp"

namespace mrwb::gpu::nc {
namespace {

struct SfuSample {
  float kx, ky, kz;  // 2 pi k (radians per FOV)
  float rmu, imu;
};
constexpr int kSfuTile = 3200;  // 3200 * 20 B = 64000 B of the 64 KiB constant bank
__constant__ SfuSample c_sfu[kSfuTile];

__global__ void make_sfu_samples(const float* k, const float2* mu, std::size_t M, int dims, SfuSample* out) {
  const std::size_t m = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (m >= M) return;
  const double tp = 6.283185307179586;
  out[m] = {static_cast<float>(tp * k[m * dims]), static_cast<float>(tp * k[m * dims + 1]),
            dims == 3 ? static_cast<float>(tp * k[m * dims + 2]) : 0.f, mu[m].x, mu[m].y};
}

template <int DIMS>
__device__ __forceinline__ void pair(const SfuSample& s, float x, float y, float z, float& re, float& im) {
  float arg = s.kx * x + s.ky * y;
  if (DIMS == 3) arg += s.kz * z;
  float sn, cs;
  __sincosf(arg, &sn, &cs);
  re += s.rmu * cs - s.imu * sn;
  im += s.imu * cs + s.rmu * sn;
}

template <int UNROLL, int DIMS>
__global__ void fhd_sfu_kernel(int n_out, float spacing, int origin, unsigned long long first,
                               unsigned long long voxels, int count, float2* __restrict__ out) {
  const unsigned long long local = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (local >= voxels) return;
  const unsigned long long v = first + local;  // voxel index on the whole grid (tiles start at `first`)
  const int ix = static_cast<int>(v % n_out);
  const int iy = static_cast<int>((v / n_out) % n_out);
  const int iz = DIMS == 3 ? static_cast<int>(v / (static_cast<unsigned long long>(n_out) * n_out)) : 0;
  const float x = (ix - origin) * spacing, y = (iy - origin) * spacing, z = (iz - origin) * spacing;
  float re = 0.f, im = 0.f;
  int m = 0;
  for (; m + UNROLL <= count; m += UNROLL) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) pair<DIMS>(c_sfu[m + u], x, y, z, re, im);
  }
  for (; m < count; ++m) pair<DIMS>(c_sfu[m], x, y, z, re, im);
  float2 o = out[local];
  o.x += re;
  o.y += im;
  out[local] = o;
}

template <int DIMS>
void launch(int unroll, dim3 grid, dim3 block, cudaStream_t st, int n_out, float spacing, int origin,
            unsigned long long first, unsigned long long voxels, int count, float2* out) {
  switch (unroll) {
    case 1: fhd_sfu_kernel<1, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first, voxels, count, out); break;
    case 2: fhd_sfu_kernel<2, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first, voxels, count, out); break;
    case 4: fhd_sfu_kernel<4, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first, voxels, count, out); break;
    case 8: fhd_sfu_kernel<8, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first, voxels, count, out); break;
    case 16: fhd_sfu_kernel<16, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first, voxels, count, out); break;
    default: throw std::invalid_argument("fhd: unroll must be 1, 2, 4, 8 or 16");
  }
}

}  // namespace

void exact_sum_sfu(int dims, int n_out, float spacing, int origin, std::size_t first, std::size_t voxels, const float* k,
                   const float2* mu, std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st) {
  if (c.tile < 1 || c.tile > kSfuTile) throw std::invalid_argument("fhd: tile must be 1 .. 3200 (sfu)");
  if (c.threads_per_block < 32 || c.threads_per_block > 1024) throw std::invalid_argument("fhd: threads per block 32 .. 1024");
  DeviceBuffer<SfuSample> samples(M);
  make_sfu_samples<<<static_cast<unsigned>((M + 255) / 256), 256, 0, st>>>(k, mu, M, dims, samples.get());
  cuda_check(cudaGetLastError(), "make_sfu_samples");
  const dim3 block(c.threads_per_block);
  const dim3 grid(static_cast<unsigned>((voxels + c.threads_per_block - 1) / c.threads_per_block));
  for (std::size_t m0 = 0; m0 < M; m0 += c.tile) {
    const int count = static_cast<int>(std::min<std::size_t>(c.tile, M - m0));
    cuda_check(cudaMemcpyToSymbolAsync(c_sfu, samples.get() + m0, count * sizeof(SfuSample), 0,
                                       cudaMemcpyDeviceToDevice, st),
               "tile to constant memory");
    if (dims == 3) launch<3>(c.unroll, grid, block, st, n_out, spacing, origin, first, voxels, count, out);
    else launch<2>(c.unroll, grid, block, st, n_out, spacing, origin, first, voxels, count, out);
    cuda_check(cudaGetLastError(), "fhd_sfu_kernel");
  }
  // `samples` is freed at scope exit; cudaFree synchronises, so the copies above have completed.
}

}  // namespace mrwb::gpu::nc
