// Exact F^H d / Q with separable phase factors: one thread per kRotateRun consecutive voxels along x.
// The first voxel's e^{i 2 pi k.x} comes from __sincosf; its neighbours from complex rotation by
// e^{i 2 pi kx dx}, precomputed per sample in double and held in the constant-memory tile. The SFU work
// per voxel-sample pair drops by kRotateRun, leaving FP32 FMA throughput as the bound.
#include <stdexcept>

#include "mrwb_gpu/base/cuda_check.hpp"
#include "noncart_device.hpp"

namespace mrwb::gpu::nc {
namespace {

struct RotSample {
  float kx, ky, kz;  // 2 pi k
  float rmu, imu;
  float cs, sn;      // e^{i 2 pi kx spacing}
};
constexpr int kRotTile = 2280;  // 2280 * 28 B = 63840 B
__constant__ RotSample c_rot[kRotTile];

__global__ void make_rot_samples(const float* k, const float2* mu, std::size_t M, int dims, double spacing,
                                 RotSample* out) {
  const std::size_t m = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (m >= M) return;
  const double tp = 6.283185307179586;
  double s, c;
  sincos(tp * k[m * dims] * spacing, &s, &c);
  out[m] = {static_cast<float>(tp * k[m * dims]), static_cast<float>(tp * k[m * dims + 1]),
            dims == 3 ? static_cast<float>(tp * k[m * dims + 2]) : 0.f, mu[m].x, mu[m].y,
            static_cast<float>(c), static_cast<float>(s)};
}

template <int DIMS>
__device__ __forceinline__ void run(const RotSample& s, float x, float y, float z, float* re, float* im) {
  float arg = s.kx * x + s.ky * y;
  if (DIMS == 3) arg += s.kz * z;
  float sn, cs;
  __sincosf(arg, &sn, &cs);
#pragma unroll
  for (int r = 0; r < kRotateRun; ++r) {
    re[r] += s.rmu * cs - s.imu * sn;
    im[r] += s.imu * cs + s.rmu * sn;
    const float c2 = cs * s.cs - sn * s.sn;
    sn = cs * s.sn + sn * s.cs;
    cs = c2;
  }
}

template <int UNROLL, int DIMS>
__global__ void fhd_rotate_kernel(int n_out, float spacing, int origin, unsigned long long first_row,
                                  unsigned long long runs, int count, float2* __restrict__ out) {
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (t >= runs) return;
  const int per_row = n_out / kRotateRun;
  const unsigned long long local_row = t / per_row, row = first_row + local_row;  // tiles start at first_row
  const int ix0 = static_cast<int>(t % per_row) * kRotateRun;
  const int iy = static_cast<int>(row % n_out);
  const int iz = DIMS == 3 ? static_cast<int>(row / n_out) : 0;
  const float x = (ix0 - origin) * spacing, y = (iy - origin) * spacing, z = (iz - origin) * spacing;
  float re[kRotateRun] = {}, im[kRotateRun] = {};
  int m = 0;
  for (; m + UNROLL <= count; m += UNROLL) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) run<DIMS>(c_rot[m + u], x, y, z, re, im);
  }
  for (; m < count; ++m) run<DIMS>(c_rot[m], x, y, z, re, im);
  float2* o = out + local_row * n_out + ix0;
#pragma unroll
  for (int r = 0; r < kRotateRun; ++r) {
    float2 v = o[r];
    v.x += re[r];
    v.y += im[r];
    o[r] = v;
  }
}

template <int DIMS>
void launch(int unroll, dim3 grid, dim3 block, cudaStream_t st, int n_out, float spacing, int origin,
            unsigned long long first_row, unsigned long long runs, int count, float2* out) {
  switch (unroll) {
    case 1: fhd_rotate_kernel<1, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first_row, runs, count, out); break;
    case 2: fhd_rotate_kernel<2, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first_row, runs, count, out); break;
    case 4: fhd_rotate_kernel<4, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first_row, runs, count, out); break;
    case 8: fhd_rotate_kernel<8, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first_row, runs, count, out); break;
    case 16: fhd_rotate_kernel<16, DIMS><<<grid, block, 0, st>>>(n_out, spacing, origin, first_row, runs, count, out); break;
    default: throw std::invalid_argument("fhd: unroll must be 1, 2, 4, 8 or 16");
  }
}

}  // namespace

void exact_sum_rotate(int dims, int n_out, float spacing, int origin, std::size_t first, std::size_t voxels, const float* k,
                      const float2* mu, std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st) {
  if (c.tile < 1 || c.tile > kRotTile) throw std::invalid_argument("fhd: tile must be 1 .. 2280 (rotate)");
  if (n_out % kRotateRun || voxels % n_out || first % n_out)
    throw std::invalid_argument("fhd rotate: tiles must be whole rows that split into runs");
  const unsigned long long first_row = first / n_out;
  if (c.threads_per_block < 32 || c.threads_per_block > 1024) throw std::invalid_argument("fhd: threads per block 32 .. 1024");
  DeviceBuffer<RotSample> samples(M);
  make_rot_samples<<<static_cast<unsigned>((M + 255) / 256), 256, 0, st>>>(k, mu, M, dims, spacing, samples.get());
  cuda_check(cudaGetLastError(), "make_rot_samples");
  const unsigned long long runs = voxels / kRotateRun;
  const dim3 block(c.threads_per_block);
  const dim3 grid(static_cast<unsigned>((runs + c.threads_per_block - 1) / c.threads_per_block));
  for (std::size_t m0 = 0; m0 < M; m0 += c.tile) {
    const int count = static_cast<int>(std::min<std::size_t>(c.tile, M - m0));
    cuda_check(cudaMemcpyToSymbolAsync(c_rot, samples.get() + m0, count * sizeof(RotSample), 0,
                                       cudaMemcpyDeviceToDevice, st),
               "tile to constant memory");
    if (dims == 3) launch<3>(c.unroll, grid, block, st, n_out, spacing, origin, first_row, runs, count, out);
    else launch<2>(c.unroll, grid, block, st, n_out, spacing, origin, first_row, runs, count, out);
    cuda_check(cudaGetLastError(), "fhd_rotate_kernel");
  }
}

}  // namespace mrwb::gpu::nc
