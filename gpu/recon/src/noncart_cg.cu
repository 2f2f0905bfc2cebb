// CG on the device (twin of core's cg_solve): Toeplitz F^H F with cuFFT on the 2n grid, dot products with
// cuBLAS in device pointer mode, and fused update kernels that read alpha / beta from device memory, so an
// iteration launches work without waiting for the host.
#include <cublas_v2.h>
#include <cufft.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/noncart_exact.hpp"
#include "mrwb/recon/noncart_regularizer.hpp"
#include "mrwb/recon/noncart_toeplitz.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/base/device_parts.hpp"
#include "noncart_device.hpp"

namespace mrwb::gpu {
namespace {

unsigned blocks(std::size_t n, int t = 256) { return static_cast<unsigned>((n + t - 1) / t); }

struct Dims {
  int dims, n;
};
__device__ __forceinline__ void coords(const Dims& g, std::size_t i, int& x, int& y, int& z) {
  x = static_cast<int>(i % g.n);
  y = static_cast<int>((i / g.n) % g.n);
  z = g.dims == 3 ? static_cast<int>(i / (static_cast<std::size_t>(g.n) * g.n)) : 0;
}
__device__ __forceinline__ std::size_t index(int dims, int n, int x, int y, int z) {
  return dims == 3 ? (static_cast<std::size_t>(z) * n + y) * n + x : static_cast<std::size_t>(y) * n + x;
}

// Q arranged circularly (index j -> (j + n) mod 2n per axis), scaled by 1/(2n)^D before its FFT.
__global__ void roll_q(Dims g2, const float2* q, float scale, float2* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t total = g2.dims == 3 ? static_cast<std::size_t>(g2.n) * g2.n * g2.n : static_cast<std::size_t>(g2.n) * g2.n;
  if (i >= total) return;
  int x, y, z;
  coords(g2, i, x, y, z);
  const int h = g2.n / 2;
  const std::size_t o = index(g2.dims, g2.n, (x + h) % g2.n, (y + h) % g2.n, g2.dims == 3 ? (z + h) % g2.n : 0);
  out[o] = make_float2(q[i].x * scale, q[i].y * scale);
}

// pad[...] = s ⊙ in on the first n of each axis of the 2n grid (pad zeroed before).
__global__ void pad_kernel(Dims g, const float2* in, const float2* s, float2* pad) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nv = g.dims == 3 ? static_cast<std::size_t>(g.n) * g.n * g.n : static_cast<std::size_t>(g.n) * g.n;
  if (i >= nv) return;
  int x, y, z;
  coords(g, i, x, y, z);
  float2 v = in[i];
  if (s) v = make_float2(s[i].x * v.x - s[i].y * v.y, s[i].x * v.y + s[i].y * v.x);
  pad[index(g.dims, 2 * g.n, x, y, z)] = v;
}

__global__ void multiply_kernel(std::size_t n, const float2* qhat, float2* a) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float2 q = qhat[i], v = a[i];
  a[i] = make_float2(q.x * v.x - q.y * v.y, q.x * v.y + q.y * v.x);
}

// out (+)= conj(s) ⊙ crop(pad).
__global__ void crop_kernel(Dims g, const float2* pad, const float2* s, bool accumulate, float2* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nv = g.dims == 3 ? static_cast<std::size_t>(g.n) * g.n * g.n : static_cast<std::size_t>(g.n) * g.n;
  if (i >= nv) return;
  int x, y, z;
  coords(g, i, x, y, z);
  float2 v = pad[index(g.dims, 2 * g.n, x, y, z)];
  if (s) v = make_float2(s[i].x * v.x + s[i].y * v.y, s[i].x * v.y - s[i].y * v.x);
  if (accumulate) v.x += out[i].x, v.y += out[i].y;
  out[i] = v;
}

// y += lambda * (x or W^H W x): links null for W = identity, else core's links (noncart_regularizer.hpp:
// bit d of links[i] = the difference to the forward neighbour along axis d is in W), as apply_linked_fd_normal.
__global__ void regularize_kernel(Dims g, const float2* x, float lambda, const std::uint8_t* links, float2* y) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nv = g.dims == 3 ? static_cast<std::size_t>(g.n) * g.n * g.n : static_cast<std::size_t>(g.n) * g.n;
  if (i >= nv) return;
  float2 acc = x[i];
  if (links) {
    int c[3];
    coords(g, i, c[0], c[1], c[2]);
    acc = make_float2(0.f, 0.f);
    const unsigned own = links[i];
    for (int d = 0; d < g.dims; ++d) {
      const std::size_t stride = d == 0 ? 1 : d == 1 ? static_cast<std::size_t>(g.n) : static_cast<std::size_t>(g.n) * g.n;
      if (own >> d & 1u) acc.x += x[i].x - x[i + stride].x, acc.y += x[i].y - x[i + stride].y;
      if (c[d] > 0 && (links[i - stride] >> d & 1u)) acc.x += x[i].x - x[i - stride].x, acc.y += x[i].y - x[i - stride].y;
    }
  }
  y[i].x += lambda * acc.x;
  y[i].y += lambda * acc.y;
}

// rhs = sum_c conj(S_c) fhd_c.
__global__ void combine_kernel(std::size_t nv, int coils, const float2* s, const float2* fhd, float2* rhs) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= nv) return;
  float2 acc = make_float2(0.f, 0.f);
  for (int c = 0; c < coils; ++c) {
    const float2 a = s[c * nv + i], b = fhd[c * nv + i];
    acc.x += a.x * b.x + a.y * b.y;
    acc.y += a.x * b.y - a.y * b.x;
  }
  rhs[i] = acc;
}

// x += alpha p; r -= alpha Ap, alpha = rz / Re<p, Ap> read on the device.
__global__ void update_xr(std::size_t n, const cuComplex* rz, const cuComplex* pAp, const float2* p, const float2* Ap,
                          float2* x, float2* r) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float alpha = pAp->x > 0.f ? rz->x / pAp->x : 0.f;
  x[i].x += alpha * p[i].x;
  x[i].y += alpha * p[i].y;
  r[i].x -= alpha * Ap[i].x;
  r[i].y -= alpha * Ap[i].y;
}
// p = z + beta p, beta = rz_new / rz_old.
__global__ void update_p(std::size_t n, const cuComplex* rz_new, const cuComplex* rz_old, const float2* z, float2* p) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float beta = rz_old->x > 0.f ? rz_new->x / rz_old->x : 0.f;
  p[i].x = z[i].x + beta * p[i].x;
  p[i].y = z[i].y + beta * p[i].y;
}
__global__ void scale_kernel(std::size_t n, const float* dinv, const float2* r, float2* z) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  z[i] = make_float2(r[i].x * dinv[i], r[i].y * dinv[i]);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::size_t cg_device_bytes(const noncart::Grid& g, std::size_t M, int coils, const NoncartParams& p) {
  const std::size_t nv = g.voxels(), n2v = g.doubled().voxels(), c = coils;
  std::size_t b = M * g.dims * 4 + c * M * 8 + M * 28 + M * 8;  // k, d, tile staging, mu
  b += c * nv * 8 * 2;                                           // F^H d per coil, sensitivities
  b += 6 * nv * 8;                                               // rhs, x, r, p, Ap, z
  b += 4 * n2v * 8;                                              // Q, Q^, pad, cuFFT work
  if (p.preconditioner == "circulant") b += nv * 4 + 2 * nv * 8;  // inverse eigenvalues, cuFFT plan on the n grid
  if (p.regularizer != "identity") b += nv;                       // W's links
  if (!noncart::choose_cg_operators(g, M, coils, Backend::Cuda, p.operators).exact)
    b += std::max(nc::gridding_bytes(g.dims, g.n, p.oversampling), nc::gridding_bytes(g.dims, 2 * g.n, p.oversampling));
  return b;
}

std::vector<noncart::cdouble> cg_on_device(const noncart::Grid& g, const noncart::Samples& s, const NoncartParams& p,
                                           const FhdConfig& cfg, const std::vector<noncart::cfloat>& sens,
                                           Timing* timing, const ProgressFn& progress, const CancelToken& cancel) {
  noncart::validate_samples(g, s, "cg");
  if (p.preconditioner != "none" && p.preconditioner != "diagonal" && p.preconditioner != "circulant")
    throw InputError("--preconditioner " + p.preconditioner + ": unknown (allowed: none, diagonal, circulant)");
  // W as links (empty: identity), checked before any device work; the anatomical W is preconditioned as
  // plain differences, as on the CPU.
  const noncart::Links links = noncart::regularizer_links(g, p.regularizer, p.prior, p.edge_threshold);
  const bool fd = !links.empty();
  const bool sense = s.coils > 1;
  const std::size_t M = s.count(), nv = g.voxels();
  const noncart::Grid g2 = g.doubled();
  const std::size_t n2v = g2.voxels();
  if (sense && sens.size() != nv * s.coils) throw InputError("cg: multi-coil data needs coils x n^D sensitivities");
  {
    std::size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const std::size_t need = cg_device_bytes(g, M, s.coils, p);
    if (need > free_b)
      throw InputError("cg --backend cuda: a " + std::to_string(g.n) + "^" + std::to_string(g.dims) + " matrix with " +
                       std::to_string(M) + " samples needs " + std::to_string(need) + " bytes of GPU memory, " +
                       std::to_string(free_b) + " free (allowed: smaller --matrix, or --backend cpu)");
  }
  const bool exact = noncart::choose_cg_operators(g, M, s.coils, Backend::Cuda, p.operators).exact;
  const auto t_start = std::chrono::steady_clock::now();
  Timing tm;
  const noncart::GriddingParams gp{p.kb_width, p.oversampling, "none", 0};
  DeviceBuffer<float> dk(M * g.dims);
  dk.upload(s.k.data());
  DeviceBuffer<float2> dd(M * s.coils), mu(M), fhd(nv * s.coils), q(n2v);
  dd.upload(reinterpret_cast<const float2*>(s.d.data()));
  cuda_check(cudaMemset(fhd.get(), 0, fhd.size() * sizeof(float2)), "memset");
  cuda_check(cudaMemset(q.get(), 0, n2v * sizeof(float2)), "memset");
  // Several GPUs (FhdConfig::devices): the exact sums split by voxels over them (float to double and back on
  // the host: the values are the single GPU's), the gridded adjoints by samples (their images added).
  const int parts = resolve_gpu_parts(cfg.devices, "--gpus");
  auto upload_sums = [](const std::vector<noncart::cdouble>& v, float2* dst) {
    std::vector<float2> h(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) h[i] = make_float2(static_cast<float>(v[i].real()), static_cast<float>(v[i].imag()));
    cuda_check(cudaMemcpy(dst, h.data(), h.size() * sizeof(float2), cudaMemcpyHostToDevice), "upload sums");
  };
  // F^H d per coil.
  auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < s.coils; ++c) {
    const float2* dc = dd.get() + static_cast<std::size_t>(c) * M;
    if (exact && parts > 1) {
      upload_sums(nc::split_exact_sum(g.dims, g.n, 1.0f / g.n, g.n / 2, nv, g.n, s.k.data(), s.d.data() + c * M,
                                      static_cast<float>(g.phi()), M, cfg, nullptr),
                  fhd.get() + c * nv);
    } else if (exact) {
      nc::make_mu(dc, M, static_cast<float>(g.phi()), mu.get(), nullptr);
      nc::exact_sum(g.dims, g.n, 1.0f / g.n, g.n / 2, 0, nv, dk.get(), mu.get(), M, cfg, fhd.get() + c * nv, nullptr);
    } else if (parts > 1) {
      upload_sums(nc::split_gridding(g.dims, g.n, 1.0f, s.k.data(), s.d.data() + c * M, {}, M, gp,
                                     static_cast<float>(g.phi()), cfg.devices),
                  fhd.get() + c * nv);
    } else {
      nc::gridding_adjoint(g.dims, g.n, 1.0f, dk.get(), dc, nullptr, M, gp, static_cast<float>(g.phi()), fhd.get() + c * nv, nullptr);
    }
  }
  cuda_check(cudaDeviceSynchronize(), "F^H d");
  tm.fhd_s = since(t0);
  if (progress) progress(0.1, "F^H d");
  cancel.throw_if_cancelled();
  // Q on the 2n grid.
  t0 = std::chrono::steady_clock::now();
  if (exact && parts > 1) {
    const std::size_t half = noncart::q_half_voxels(g);
    upload_sums(nc::split_exact_sum(g.dims, g2.n, 1.0f / g.n, g.n, half, g2.n, s.k.data(), nullptr,
                                    static_cast<float>(g.phi() * g.phi()), M, cfg, nullptr),
                q.get());
    nc::mirror_q(g.dims, g.n, q.get(), nullptr);
  } else if (exact) {
    const std::size_t half = noncart::q_half_voxels(g);
    nc::make_mu(nullptr, M, static_cast<float>(g.phi() * g.phi()), mu.get(), nullptr);
    nc::exact_sum(g.dims, g2.n, 1.0f / g.n, g.n, 0, half, dk.get(), mu.get(), M, cfg, q.get(), nullptr);
    nc::mirror_q(g.dims, g.n, q.get(), nullptr);
  } else if (parts > 1) {
    upload_sums(nc::split_gridding(g.dims, g2.n, 2.0f, s.k.data(), nullptr, {}, M, gp,
                                   static_cast<float>(g.phi() * g.phi()), cfg.devices),
                q.get());
  } else {
    nc::gridding_adjoint(g.dims, g2.n, 2.0f, dk.get(), nullptr, nullptr, M, gp, static_cast<float>(g.phi() * g.phi()), q.get(), nullptr);
  }
  cuda_check(cudaDeviceSynchronize(), "Q");
  tm.q_s = since(t0);
  if (progress) progress(0.3, "Q");
  cancel.throw_if_cancelled();

  // Solver.
  t0 = std::chrono::steady_clock::now();
  const Dims dg{g.dims, g.n}, dg2{g2.dims, g2.n};
  DeviceBuffer<float2> qhat(n2v), pad(n2v);
  roll_q<<<blocks(n2v), 256>>>(dg2, q.get(), 1.0f / static_cast<float>(n2v), qhat.get());
  cufftHandle plan;
  cufft_check(g.dims == 3 ? cufftPlan3d(&plan, g2.n, g2.n, g2.n, CUFFT_C2C) : cufftPlan2d(&plan, g2.n, g2.n, CUFFT_C2C),
              "plan", "error");
  struct PlanGuard {
    cufftHandle h;
    ~PlanGuard() { cufftDestroy(h); }
  } plan_guard{plan};
  auto* qh = reinterpret_cast<cufftComplex*>(qhat.get());
  cufft_check(cufftExecC2C(plan, qh, qh, CUFFT_FORWARD), "Q^", "error");
  DeviceBuffer<float2> dsens(sense ? nv * s.coils : 0);
  if (sense) dsens.upload(reinterpret_cast<const float2*>(sens.data()));
  DeviceBuffer<float2> x(nv), r(nv), pv(nv), Ap(nv), z(nv);
  DeviceBuffer<std::uint8_t> dlinks(links.size());
  if (fd) dlinks.upload(links.data());
  if (sense) combine_kernel<<<blocks(nv), 256>>>(nv, s.coils, dsens.get(), fhd.get(), r.get());
  else cuda_check(cudaMemcpy(r.get(), fhd.get(), nv * sizeof(float2), cudaMemcpyDeviceToDevice), "rhs");
  cuda_check(cudaMemset(x.get(), 0, nv * sizeof(float2)), "memset");
  auto* pc = reinterpret_cast<cufftComplex*>(pad.get());
  auto apply_A = [&](const float2* in, float2* out) {
    for (int c = 0; c < (sense ? s.coils : 1); ++c) {
      const float2* sc = sense ? dsens.get() + c * nv : nullptr;
      cudaMemsetAsync(pad.get(), 0, n2v * sizeof(float2));
      pad_kernel<<<blocks(nv), 256>>>(dg, in, sc, pad.get());
      cufftExecC2C(plan, pc, pc, CUFFT_FORWARD);
      multiply_kernel<<<blocks(n2v), 256>>>(n2v, qhat.get(), pad.get());
      cufftExecC2C(plan, pc, pc, CUFFT_INVERSE);
      crop_kernel<<<blocks(nv), 256>>>(dg, pad.get(), sc, c > 0, out);
    }
    if (p.lambda > 0)
      regularize_kernel<<<blocks(nv), 256>>>(dg, in, static_cast<float>(p.lambda), fd ? dlinks.get() : nullptr, out);
  };
  // Both preconditioners scale Q by the coil power (core's formulas, as the CPU solver).
  const std::vector<noncart::cfloat> no_sens;
  const std::vector<double> power =
      p.preconditioner == "none" ? std::vector<double>{} : noncart::coil_power(g, sense ? sens : no_sens, s.coils);
  // Diagonal preconditioner: sum_c |S_c|^2 Q(0) + lambda diag(W^H W); Q(0) sits at index (n, n, n).
  DeviceBuffer<float> dinv(p.preconditioner == "diagonal" ? nv : 0);
  if (p.preconditioner == "diagonal") {
    float2 q0;
    const std::size_t c0 = g.dims == 3 ? (static_cast<std::size_t>(g.n) * g2.n + g.n) * g2.n + g.n
                                       : static_cast<std::size_t>(g.n) * g2.n + g.n;
    cuda_check(cudaMemcpy(&q0, q.get() + c0, sizeof(float2), cudaMemcpyDeviceToHost), "Q(0)");
    const std::vector<double> inv = noncart::diagonal_preconditioner_inverse(g, links, power, q0.x, p.lambda);
    const std::vector<float> h(inv.begin(), inv.end());
    dinv.upload(h.data());
  }
  // Circulant preconditioner: eigenvalues from Q once on the host (setup, core's formula); per iteration
  // z = IFFT(inv ⊙ FFT(r)) with cuFFT on the n grid, no host round trip.
  DeviceBuffer<float> circ_inv(p.preconditioner == "circulant" ? nv : 0);
  cufftHandle circ_plan = 0;
  if (p.preconditioner == "circulant") {
    std::vector<float2> hq(n2v);
    q.download(hq.data());
    std::vector<noncart::cdouble> qd(n2v);
    for (std::size_t i = 0; i < n2v; ++i) qd[i] = {hq[i].x, hq[i].y};
    double mean_power = 0;
    for (double v : power) mean_power += v;
    mean_power /= static_cast<double>(nv);
    const std::vector<double> inv = noncart::circulant_preconditioner_inverse(
        g, noncart::chan_circulant_eigenvalues(g, qd), mean_power, p.lambda, fd);
    circ_inv.upload(std::vector<float>(inv.begin(), inv.end()).data());
    cufft_check(g.dims == 3 ? cufftPlan3d(&circ_plan, g.n, g.n, g.n, CUFFT_C2C) : cufftPlan2d(&circ_plan, g.n, g.n, CUFFT_C2C),
                "circulant plan", "error");
  }
  struct CircPlanGuard {
    cufftHandle h;
    ~CircPlanGuard() {
      if (h) cufftDestroy(h);
    }
  } circ_guard{circ_plan};
  cublasHandle_t blas;
  cublas_check(cublasCreate(&blas), "create");
  struct BlasGuard {
    cublasHandle_t h;
    ~BlasGuard() { cublasDestroy(h); }
  } blas_guard{blas};
  cublas_check(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE), "pointer mode");
  const int iters = p.iterations;
  DeviceBuffer<cuComplex> scal(4);  // rz (two slots, double-buffered), pAp, bb
  DeviceBuffer<float> rnorm(iters + 1);
  const int nvi = static_cast<int>(nv);
  const auto* rc = reinterpret_cast<const cuComplex*>(r.get());
  auto precond = [&]() -> const float2* {
    if (p.preconditioner == "diagonal") {
      scale_kernel<<<blocks(nv), 256>>>(nv, dinv.get(), r.get(), z.get());
      return z.get();
    }
    if (p.preconditioner == "circulant") {
      auto* zc = reinterpret_cast<cufftComplex*>(z.get());
      cudaMemcpyAsync(z.get(), r.get(), nv * sizeof(float2), cudaMemcpyDeviceToDevice);
      cufftExecC2C(circ_plan, zc, zc, CUFFT_FORWARD);
      scale_kernel<<<blocks(nv), 256>>>(nv, circ_inv.get(), z.get(), z.get());
      cufftExecC2C(circ_plan, zc, zc, CUFFT_INVERSE);
      return z.get();
    }
    return r.get();
  };
  cublas_check(cublasScnrm2(blas, nvi, rc, 1, rnorm.get() + iters), "|b|");
  const float2* zp = precond();
  cuda_check(cudaMemcpy(pv.get(), zp, nv * sizeof(float2), cudaMemcpyDeviceToDevice), "p = z");
  cublas_check(cublasCdotc(blas, nvi, rc, 1, reinterpret_cast<const cuComplex*>(zp), 1, scal.get()), "rz");
  int done = 0;
  for (int it = 0; it < iters; ++it) {
    cancel.throw_if_cancelled();
    cuComplex* rz_old = scal.get() + (it & 1);
    cuComplex* rz_new = scal.get() + ((it + 1) & 1);
    apply_A(pv.get(), Ap.get());
    cublas_check(cublasCdotc(blas, nvi, reinterpret_cast<const cuComplex*>(pv.get()), 1,
                             reinterpret_cast<const cuComplex*>(Ap.get()), 1, scal.get() + 2), "pAp");
    update_xr<<<blocks(nv), 256>>>(nv, rz_old, scal.get() + 2, pv.get(), Ap.get(), x.get(), r.get());
    cublas_check(cublasScnrm2(blas, nvi, rc, 1, rnorm.get() + it), "|r|");
    done = it + 1;
    if (progress) progress(0.3 + 0.7 * (it + 1) / iters, "cg");
    if (p.tolerance > 0 && (it + 1) % 10 == 0) {
      float rn[2];
      cuda_check(cudaMemcpy(&rn[0], rnorm.get() + it, sizeof(float), cudaMemcpyDeviceToHost), "|r|");
      cuda_check(cudaMemcpy(&rn[1], rnorm.get() + iters, sizeof(float), cudaMemcpyDeviceToHost), "|b|");
      if (rn[0] < p.tolerance * rn[1]) break;
    }
    zp = precond();
    cublas_check(cublasCdotc(blas, nvi, rc, 1, reinterpret_cast<const cuComplex*>(zp), 1, rz_new), "rz");
    update_p<<<blocks(nv), 256>>>(nv, rz_new, rz_old, zp, pv.get());
  }
  cuda_check(cudaGetLastError(), "cg kernels");
  cuda_check(cudaDeviceSynchronize(), "cg");
  tm.solver_s = since(t0);
  std::vector<float> rn(iters + 1);
  rnorm.download(rn.data());
  tm.iterations = done;
  tm.relative_residual = rn[iters] > 0 && done > 0 ? rn[done - 1] / rn[iters] : 0.0;
  std::vector<float2> h(nv);
  x.download(h.data());
  tm.total_s = since(t_start);
  if (timing) *timing = tm;
  std::vector<noncart::cdouble> out(nv);
  for (std::size_t i = 0; i < nv; ++i) out[i] = {h[i].x, h[i].y};
  return out;
}

}  // namespace mrwb::gpu
