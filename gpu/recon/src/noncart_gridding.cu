// Kaiser-Bessel gridding on the device (twin of core's Gridder::adjoint): one thread per sample spreads
// onto the oversampled grid with atomics, cuFFT, then crop and deapodise. The centring of the DFT is a
// (-1)^(g) modulation folded into the spreading and a (-1)^(p) one into the crop (G even).
#include <cufft.h>

#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/base/device_parts.hpp"
#include "noncart_device.hpp"

namespace mrwb::gpu::nc {
namespace {

struct KbDev {
  float width, beta;
};

__device__ __forceinline__ float kb(const KbDev& kb, float u) {
  const float t = 2.f * u / kb.width;
  if (fabsf(t) > 1.f) return 0.f;
  return cyl_bessel_i0f(kb.beta * sqrtf(1.f - t * t));
}

template <int DIMS>
__global__ void spread_kernel(const float* k, const float2* d, const float* w, std::size_t M, float kscale, int G,
                              KbDev kbp, float2* grid) {
  const std::size_t m = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (m >= M) return;
  float2 v = d ? d[m] : make_float2(1.f, 0.f);
  if (w) v.x *= w[m], v.y *= w[m];
  int first[3] = {0, 0, 0}, count[3] = {1, 1, 1};
  float wt[3][9];
  for (int a = 0; a < DIMS; ++a) {
    const float u = k[m * DIMS + a] * kscale + G / 2;
    first[a] = static_cast<int>(ceilf(u - kbp.width / 2));
    count[a] = min(9, static_cast<int>(floorf(u + kbp.width / 2)) - first[a] + 1);
    for (int i = 0; i < count[a]; ++i) wt[a][i] = kb(kbp, first[a] + i - u);
  }
  for (int iz = 0; iz < count[2]; ++iz) {
    const int gz = DIMS == 3 ? ((first[2] + iz) % G + G) % G : 0;
    const float wz = DIMS == 3 ? wt[2][iz] : 1.f;
    for (int iy = 0; iy < count[1]; ++iy) {
      const int gy = ((first[1] + iy) % G + G) % G;
      const float wyz = wz * wt[1][iy];
      for (int ix = 0; ix < count[0]; ++ix) {
        const int gx = ((first[0] + ix) % G + G) % G;
        const float s = ((gx + gy + gz) & 1) ? -1.f : 1.f;  // centring modulation (-1)^g
        const float f = s * wyz * wt[0][ix];
        float2* c = grid + (static_cast<std::size_t>(gz) * G + gy) * G + gx;
        atomicAdd(&c->x, f * v.x);
        atomicAdd(&c->y, f * v.y);
      }
    }
  }
}

template <int DIMS>
__global__ void crop_kernel(const float2* grid, int G, int n, const float* deapod, float scale, float2* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nv = DIMS == 3 ? static_cast<std::size_t>(n) * n * n : static_cast<std::size_t>(n) * n;
  if (i >= nv) return;
  const int x = static_cast<int>(i % n), y = static_cast<int>((i / n) % n);
  const int z = DIMS == 3 ? static_cast<int>(i / (static_cast<std::size_t>(n) * n)) : 0;
  const int off = G / 2 - n / 2;
  const int px = x + off, py = y + off, pz = DIMS == 3 ? z + off : 0;
  // (-1)^p of the output and (-1)^(D G/2) of the centring.
  const int parity = (px + py + pz + DIMS * (G / 2)) & 1;
  const float f = (parity ? -scale : scale) * deapod[x] * deapod[y] * (DIMS == 3 ? deapod[z] : 1.f);
  const float2 v = grid[(static_cast<std::size_t>(pz) * G + py) * G + px];
  out[i] = make_float2(f * v.x, f * v.y);
}

}  // namespace

std::size_t gridding_bytes(int dims, int n_img, double oversampling) {
  const std::size_t G = noncart::oversampled_size(n_img, oversampling);
  std::size_t v = 1;
  for (int d = 0; d < dims; ++d) v *= G;
  return 2 * v * sizeof(float2);  // grid + cuFFT work area (about one grid)
}

void gridding_adjoint(int dims, int n_img, float k_mult, const float* k, const float2* d, const float* w,
                      std::size_t M, const noncart::GriddingParams& p, float out_scale, float2* out, cudaStream_t st) {
  if (p.kernel != "kaiser-bessel")  // the seeds' bilinear baseline is a CPU comparison only
    throw InputError("gridding kernel '" + p.kernel + "' on CUDA (allowed: kaiser-bessel)");
  const noncart::KaiserBessel kbh(p.width, p.oversampling);
  const int G = noncart::oversampled_size(n_img, p.oversampling);
  std::vector<float> deapod(n_img);
  for (int i = 0; i < n_img; ++i) deapod[i] = static_cast<float>(1.0 / kbh.ft(static_cast<double>(i - n_img / 2) / G));
  DeviceBuffer<float> ddeapod(n_img);
  ddeapod.upload(deapod.data());
  std::size_t total = 1;
  for (int a = 0; a < dims; ++a) total *= G;
  DeviceBuffer<float2> grid(total);
  cuda_check(cudaMemsetAsync(grid.get(), 0, total * sizeof(float2), st), "memset grid");
  const KbDev kbd{static_cast<float>(p.width), static_cast<float>(kbh.beta)};
  const float kscale = k_mult * static_cast<float>(G) / n_img;
  const unsigned blocks = static_cast<unsigned>((M + 127) / 128);
  if (dims == 3) spread_kernel<3><<<blocks, 128, 0, st>>>(k, d, w, M, kscale, G, kbd, grid.get());
  else spread_kernel<2><<<blocks, 128, 0, st>>>(k, d, w, M, kscale, G, kbd, grid.get());
  cuda_check(cudaGetLastError(), "spread");
  cufftHandle plan;
  cufft_check(dims == 3 ? cufftPlan3d(&plan, G, G, G, CUFFT_C2C) : cufftPlan2d(&plan, G, G, CUFFT_C2C), "plan", "error");
  cufftSetStream(plan, st);
  auto* c = reinterpret_cast<cufftComplex*>(grid.get());
  const cufftResult r = cufftExecC2C(plan, c, c, CUFFT_INVERSE);
  std::size_t nv = 1;
  for (int a = 0; a < dims; ++a) nv *= n_img;
  if (dims == 3) crop_kernel<3><<<static_cast<unsigned>((nv + 255) / 256), 256, 0, st>>>(grid.get(), G, n_img, ddeapod.get(), out_scale, out);
  else crop_kernel<2><<<static_cast<unsigned>((nv + 255) / 256), 256, 0, st>>>(grid.get(), G, n_img, ddeapod.get(), out_scale, out);
  cuda_check(cudaGetLastError(), "crop");
  cuda_check(cudaStreamSynchronize(st), "gridding");
  cufftDestroy(plan);
  cufft_check(r, "exec", "error");
}

}  // namespace mrwb::gpu::nc

namespace mrwb::gpu {

std::vector<noncart::cdouble> nc::split_gridding(int dims, int n_img, float k_mult, const float* k,
                                                const noncart::cfloat* d, const std::vector<float>& w, std::size_t M,
                                                const noncart::GriddingParams& p, float out_scale, int devices) {
  const int parts = resolve_gpu_parts(devices, "--gpus");
  std::size_t nv = 1;
  for (int a = 0; a < dims; ++a) nv *= n_img;
  std::vector<std::vector<float2>> images(static_cast<std::size_t>(parts));
  run_device_parts(parts, [&](int part, int) {
    const std::size_t begin = range_begin(M, parts, part), count = range_begin(M, parts, part + 1) - begin;
    if (count == 0) return;
    DeviceBuffer<float> dk(count * dims), dw(w.empty() ? 1 : count);
    dk.upload(k + begin * dims);
    if (!w.empty()) dw.upload(w.data() + begin);
    DeviceBuffer<float2> dd(d ? count : 1), out(nv);
    if (d) dd.upload(reinterpret_cast<const float2*>(d + begin));
    gridding_adjoint(dims, n_img, k_mult, dk.get(), d ? dd.get() : nullptr, w.empty() ? nullptr : dw.get(), count, p,
                     out_scale, out.get(), nullptr);
    images[static_cast<std::size_t>(part)].resize(nv);
    out.download(images[static_cast<std::size_t>(part)].data());
  });
  // The parts' images added in part order (the adjoint is linear in the samples): deterministic.
  std::vector<noncart::cdouble> r(nv);
  for (const auto& im : images)
    for (std::size_t i = 0; i < im.size(); ++i) r[i] += noncart::cdouble(im[i].x, im[i].y);
  return r;
}

std::vector<noncart::cdouble> gridding_adjoint_on_device(const noncart::Grid& g, const float* k,
                                                         const noncart::cfloat* d, const std::vector<float>& w,
                                                         std::size_t M, const noncart::GriddingParams& p, int devices) {
  return nc::split_gridding(g.dims, g.n, 1.0f, k, d, w, M, p, 1.0f, devices);
}

std::vector<noncart::cdouble> gridded_q_on_device(const noncart::Grid& g, const float* k, std::size_t M,
                                                  const noncart::GriddingParams& p, int devices) {
  return nc::split_gridding(g.dims, 2 * g.n, 2.0f, k, nullptr, {}, M, p, static_cast<float>(g.phi() * g.phi()), devices);
}

}  // namespace mrwb::gpu
