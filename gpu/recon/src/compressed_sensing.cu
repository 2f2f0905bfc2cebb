// Compressed sensing on the device (twin of core's compressed_sensing.cpp; Lustig et al. 2007): E^H d (the data
// scale is core's, on the host) and L1-wavelet FISTA (Beck & Teboulle 2009) with step 1/L from a power iteration
// started from the CPU's seeded vector and cycle-spinning shifts drawn from the CPU's std::mt19937 sequence, so the
// two follow the same path; the TV ADMM is in cs_admm_tv.cu.
#include <chrono>
#include <cmath>
#include <random>

#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/wavelet.hpp"
#include "mrwb_gpu/recon/sparse_cuda.hpp"
#include "sparse_device.hpp"

namespace mrwb::gpu {
namespace sparse {
namespace {

using cfloat = std::complex<float>;

// x /= ||x|| (norm from the partials of Re<x, x>); once ||x|| = 0, *zero = 1 and x stays.
__global__ void normalize_kernel(std::size_t n, const double* partials, float2* x, int* zero) {
  const double nrm = sqrt(block_sum(partials, kReduceBlocks));
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (nrm == 0 || *zero) {
    if (i == 0) *zero = 1;
    return;
  }
  if (i < n) {
    const float s = static_cast<float>(nrm);
    x[i] = make_float2(__fdiv_rn(x[i].x, s), __fdiv_rn(x[i].y, s));
  }
}
__global__ void sqrt_sum_kernel(const double* partials, double* out) {
  const double s = block_sum(partials, kReduceBlocks);
  if (threadIdx.x == 0) *out = sqrt(s);
}

// s = shift(y − step (q − b)) by (sx, sy): the gradient step on a randomly shifted wavelet grid.
__global__ void gradient_shift(int nx, int ny, int sx, int sy, const float2* y, const float2* q, const float2* b,
                               float step, float2* s) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(nx) * ny) return;
  const int px = static_cast<int>(i % nx), py = static_cast<int>(i / nx);
  s[static_cast<std::size_t>((py + sy) % ny) * nx + (px + sx) % nx] = csub(y[i], cscale(step, csub(q[i], b[i])));
}
// Complex soft threshold c · max(0, 1 − tau/|c|); |c| rounded once from double, as cabsf.
__global__ void soft_threshold(std::size_t n, float tau, float2* c) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float2 v = c[i];
  const float m = static_cast<float>(sqrt(double(v.x) * v.x + double(v.y) * v.y));
  c[i] = m > tau ? cscale(__fsub_rn(1.0f, __fdiv_rn(tau, m)), v) : make_float2(0.f, 0.f);
}
// v = shift back; y = v + mom (v − x); x = v.
__global__ void unshift_momentum(int nx, int ny, int sx, int sy, const float2* s, float mom, float2* x, float2* y) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(nx) * ny) return;
  const int px = static_cast<int>(i % nx), py = static_cast<int>(i / nx);
  const float2 v = s[static_cast<std::size_t>((py + sy) % ny) * nx + (px + sx) % nx];
  y[i] = cadd(v, cscale(mom, csub(v, x[i])));
  x[i] = v;
}

struct Abs {
  const float2* c;
  __device__ double operator()(std::size_t i) const {
    return static_cast<float>(sqrt(double(c[i].x) * c[i].x + double(c[i].y) * c[i].y));
  }
};
struct MaskedEnergy {  // |k|² M² over coils x n
  const float2* k;
  const float* mask;
  std::size_t n;
  __device__ double operator()(std::size_t i) const {
    const float m = mask[i % n];
    return (double(k[i].x) * k[i].x + double(k[i].y) * k[i].y) * m * m;
  }
};

// Largest eigenvalue of E^H E by power iteration from the CPU's seeded Gaussian start.
double power_iteration(const DeviceSense& E, int iterations, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss;
  std::vector<cfloat> h(E.n);
  for (auto& v : h) v = {gauss(rng), gauss(rng)};
  DeviceBuffer<float2> a(E.n), b(E.n);
  DeviceBuffer<double> part(kReduceBlocks), lambda(1);
  DeviceBuffer<int> zero(1);
  a.upload(reinterpret_cast<const float2*>(h.data()));
  cuda_check(cudaMemset(zero.get(), 0, sizeof(int)), "memset");
  cuda_check(cudaMemset(lambda.get(), 0, sizeof(double)), "memset");
  float2 *x = a.get(), *q = b.get();
  for (int it = 0; it < iterations; ++it) {
    dot_re(x, x, E.n, part.get());
    normalize_kernel<<<blocks(E.n), kThreads>>>(E.n, part.get(), x, zero.get());
    E.normal(x, q);
    dot_re(q, q, E.n, part.get());
    sqrt_sum_kernel<<<1, kThreads>>>(part.get(), lambda.get());
    std::swap(x, q);
  }
  int z = 0;
  double L = 0;
  zero.download(&z);
  lambda.download(&L);
  return z ? 0.0 : L;
}

int cs_levels(const CsParams& p, int nx, int ny) {  // as the CPU's
  const int most = max_wavelet_levels(nx, ny, p.wavelet_taps);
  if (p.wavelet_levels > 0) return p.wavelet_levels;
  int l = 0;
  while (l < most && (nx >> (l + 1)) >= 16 && (ny >> (l + 1)) >= 16) ++l;
  return l;
}

}  // namespace

double data_term(const DeviceSense& E, const float2* x, const float2* b, double dd) {
  DeviceBuffer<float2> q(E.n);
  DeviceBuffer<double> part(kReduceBlocks);
  E.normal(x, q.get());
  dot_re(x, q.get(), E.n, part.get());
  const double xq = partials_to_host(part.get());
  dot_re(x, b, E.n, part.get());
  const double xb = partials_to_host(part.get());
  return 0.5 * (xq - 2 * xb + dd);
}

void fista_l1_wavelet(const DeviceSense& E, const float2* b, double dd, const CsParams& p, float2* x, CsReport& rep,
                      const ProgressFn& progress, const CancelToken& cancel) {
  const int nx = E.nx, ny = E.ny;
  const std::size_t n = E.n;
  const Wavelet2D W(nx, ny, p.wavelet_taps, cs_levels(p, nx, ny));  // the CPU's refusals
  const int levels = W.levels();
  rep.wavelet_levels = levels;
  const Filters f = daubechies_filters(p.wavelet_taps);
  cuda_check(cudaMemset(x, 0, n * sizeof(float2)), "memset");
  const double L = power_iteration(E, p.power_iterations, p.seed);
  rep.lipschitz = L;
  if (!(L > 0)) return;
  const float step = static_cast<float>(1.0 / L), tau = static_cast<float>(p.lambda / L);
  std::mt19937 rng(p.seed);
  std::uniform_int_distribution<int> shift(0, 1 << levels);
  DeviceBuffer<float2> y(n), q(n), s(n), tmp(n);
  cuda_check(cudaMemset(y.get(), 0, n * sizeof(float2)), "memset");
  Pacer pacer;
  double t = 1;
  for (int it = 0; it < p.iterations; ++it) {
    cancel.throw_if_cancelled();
    E.normal(y.get(), q.get());
    const int sx = p.cycle_spinning ? shift(rng) % nx : 0, sy = p.cycle_spinning ? shift(rng) % ny : 0;
    gradient_shift<<<blocks(n), kThreads>>>(nx, ny, sx, sy, y.get(), q.get(), b, step, s.get());
    dwt_forward(s.get(), tmp.get(), nx, ny, levels, f);
    soft_threshold<<<blocks(n), kThreads>>>(n, tau, s.get());
    dwt_inverse(s.get(), tmp.get(), nx, ny, levels, f);
    const double t_next = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
    const float mom = static_cast<float>((t - 1) / t_next);
    unshift_momentum<<<blocks(n), kThreads>>>(nx, ny, sx, sy, s.get(), mom, x, y.get());
    t = t_next;
    pacer.queued(it);
    rep.iterations = it + 1;
    if (it > 0 && progress) progress(double(it) / p.iterations, "compressed-sensing");
  }
  pacer.drain();
  cuda_check(cudaGetLastError(), "fista kernels");
  if (progress) progress(1.0, "compressed-sensing");
  cuda_check(cudaMemcpy(s.get(), x, n * sizeof(float2), cudaMemcpyDeviceToDevice), "copy");
  dwt_forward(s.get(), tmp.get(), nx, ny, levels, f);
  DeviceBuffer<double> part(kReduceBlocks);
  reduce(n, Abs{s.get()}, part.get());
  const double l1 = partials_to_host(part.get());
  rep.objective = data_term(E, x, b, dd) + p.lambda * l1;
}

// x (n values) = cs_solve's result for k (device, coils x n, unitary scale).
void cs_solve_device(const DeviceSense& E, const float2* k, const CsParams& p, float2* x, CsReport* report,
                     const ProgressFn& progress, const CancelToken& cancel) {
  check_cs_params(p);
  DeviceBuffer<float2> b(E.n);
  DeviceBuffer<double> part(kReduceBlocks);
  E.adjoint(k, b.get());
  reduce(E.n * E.coils, MaskedEnergy{k, E.mask.get(), E.n}, part.get());
  const double dd = partials_to_host(part.get());
  CsReport rep;
  if (p.regularizer == "tv")
    admm_tv(E, b.get(), dd, p, x, rep, progress, cancel);
  else
    fista_l1_wavelet(E, b.get(), dd, p, x, rep, progress, cancel);
  if (report) *report = rep;
}

}  // namespace sparse

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

std::vector<std::complex<float>> cs_solve_cuda(const CartesianSenseOperatorCuda& E,
                                               const std::vector<std::complex<float>>& k, const CsParams& p,
                                               CsReport* report, const ProgressFn& progress, const CancelToken& cancel) {
  const sparse::DeviceSense& dev = E.device();
  if (k.size() != dev.n * dev.coils) throw InputError("compressed-sensing cuda: k holds coils x ny x nx values");
  DeviceBuffer<float2> dk(k.size()), x(dev.n);
  dk.upload(reinterpret_cast<const float2*>(k.data()));
  sparse::cs_solve_device(dev, dk.get(), p, x.get(), report, progress, cancel);
  std::vector<std::complex<float>> out(dev.n);
  x.download(reinterpret_cast<float2*>(out.data()));
  return out;
}

Image2D reconstruct_compressed_sensing_cuda(const RawData& raw, const std::vector<std::complex<float>>& maps,
                                            const CsParams& p, const ProgressFn& progress, const CancelToken& cancel,
                                            SparseCudaTiming* timing, CsReport* report) {
  check_cartesian_slice("compressed-sensing", raw, maps);
  check_cs_params(p);
  SparseCudaTiming tm;
  auto t0 = std::chrono::steady_clock::now();
  const sparse::DeviceSense E(raw.nx, raw.ny, raw.ncoils, maps.data(), line_mask(raw));
  const std::size_t total = E.n * E.coils;
  DeviceBuffer<float2> k(total), x(E.n);
  sparse::upload_unitary_kspace(raw, k.get());
  cuda_check(cudaDeviceSynchronize(), "upload");
  tm.upload_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  // BART's brightness (core's cs_data_scale) on the host: it reads the calibration block, at most 32 x 32 a coil.
  const double scale =
      p.scale_data ? cs_data_scale(unitary_kspace(raw), line_mask(raw), raw.nx, raw.ny, raw.ncoils) : 1.0;
  if (p.scale_data) sparse::divide(total, static_cast<float>(scale), k.get());
  CsReport rep;
  sparse::cs_solve_device(E, k.get(), p, x.get(), &rep, progress, cancel);
  rep.data_scale = scale;
  sparse::multiply(E.n, static_cast<float>(scale), x.get());
  E.weight_by_rss(x.get());
  cuda_check(cudaDeviceSynchronize(), "compressed-sensing");
  tm.solve_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  Image2D out = sparse::download_image(raw, x.get());
  tm.download_s = seconds_since(t0);
  if (timing) *timing = tm;
  if (report) *report = rep;
  return out;
}

std::unique_ptr<Reconstructor> make_cs_reconstructor_cuda() {
  return make_function_reconstructor("cs/cuda", [](const RawData& raw, const ReconOptions& options,
                                                   const ProgressFn& progress, const CancelToken& cancel) {
    return reconstruct_compressed_sensing_cuda(raw, options.sense.maps, options.cs, progress, cancel);
  });
}

}  // namespace mrwb::gpu
