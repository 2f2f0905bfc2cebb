// GRAPPA synthesis and coil combination on the device (twins of core/recon/src/grappa_synthesis.cpp and
// grappa_combine.cpp): A_syn of all missing-line groups, [W_0; ..] · A_syn in one CGEMM, scatter into the
// missing lines, centring + batched cuFFT, readout crop, SoS or sensitivity-weighted sum.
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <cmath>

#include "grappa_cuda_impl.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"

namespace mrwb::gpu {
namespace {

constexpr int k_threads = 128;

__device__ bool acquired(const unsigned char* flags, int ny, int y) {
  return y >= 0 && y < ny && (flags[y] & kLineAcquired);
}

// W of every segment of one slice to a float stack Wf ((nseg·nb) x na, column-major).
__global__ void stack_weights(GrappaGeometry g, const cuDoubleComplex* __restrict__ C, cuComplex* __restrict__ Wf) {
  const int nb = g.rows_b(), na = g.rows_a(), nr = g.rows(), ld = g.nseg * nb;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= ld * na) return;
  const int row = idx % ld, r = idx / ld, seg = row / nb, q = row % nb;
  const cuDoubleComplex w = C[static_cast<size_t>(seg) * nr * na + q + static_cast<size_t>(r) * nr];
  Wf[idx] = make_cuComplex(static_cast<float>(w.x), static_cast<float>(w.y));
}

// Column p = t·nx + x of A_syn: the sources of the target column x of group t (zero outside / not acquired).
__global__ void build_synthesis(GrappaGeometry g, const cuComplex* __restrict__ k, const unsigned char* __restrict__ flags,
                                cuComplex* __restrict__ A) {
  const int p = blockIdx.x, t = p / g.nx, x = p % g.nx, na = g.rows_a(), nb = g.rows_b();
  const int y0 = grappa_group_base(g, t) - g.delta_pe;
  for (int r = threadIdx.x; r < na; r += blockDim.x) {
    int c, dy, dx;
    grappa_row_source(g, nb + r, c, dy, dx);
    const int y = y0 + dy, xs = x - g.delta_ro + dx;
    cuComplex v = make_cuComplex(0, 0);
    if (acquired(flags, g.ny, y) && xs >= 0 && xs < g.nx) v = k[(static_cast<size_t>(c) * g.ny + y) * g.nx + xs];
    A[static_cast<size_t>(p) * na + r] = v;
  }
}

// Missing samples from Y = Wf · A_syn, blended across segments (basic).
__global__ void scatter_missing(GrappaGeometry g, const cuComplex* __restrict__ Y, const unsigned char* __restrict__ flags,
                                cuComplex* __restrict__ k) {
  const int nb = g.rows_b(), ld = g.nseg * nb, npos = g.syn_groups * g.nx;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= nb * npos) return;
  const int q = idx % nb, p = idx / nb, t = p / g.nx, x = p % g.nx;
  const int c = q / (g.R - 1), y = grappa_group_base(g, t) + q % (g.R - 1) + 1;
  if (y < 0 || y >= g.ny || (flags[y] & kLineAcquired)) return;
  int s0, s1;
  float w;
  grappa_segment_blend(g, x, s0, s1, w);
  const cuComplex a = Y[static_cast<size_t>(p) * ld + s0 * nb + q], b = Y[static_cast<size_t>(p) * ld + s1 * nb + q];
  k[(static_cast<size_t>(c) * g.ny + y) * g.nx + x] = make_cuComplex((1.f - w) * a.x + w * b.x, (1.f - w) * a.y + w * b.y);
}

// ifftshift of every coil's k-space into the FFT buffer; window != nullptr: only the Hann-windowed ACS lines.
__global__ void centre_kspace(const cuComplex* __restrict__ k, int nx, int ny, int ncoils, const float* __restrict__ window,
                              int acs_first, int acs_lines, cuComplex* __restrict__ out) {
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t plane = static_cast<size_t>(nx) * ny;
  if (idx >= plane * ncoils) return;
  const int c = static_cast<int>(idx / plane), y = static_cast<int>((idx % plane) / nx), x = static_cast<int>(idx % nx);
  const int ys = (y + ny / 2) % ny, xs = (x + nx / 2) % nx;
  cuComplex v = k[(static_cast<size_t>(c) * ny + ys) * nx + xs];
  if (window) {
    const int l = ys - acs_first;
    const float w = l >= 0 && l < acs_lines ? window[l] : 0.f;
    v = make_cuComplex(w * v.x, w * v.y);
  }
  out[idx] = v;
}

// sum_c |L_c|^2 of the cropped low-resolution coil images (for the sensitivity floor eps).
__global__ void low_norm2(const cuComplex* __restrict__ low, int nx, int ny, int ncoils, int x_first, int width, float norm,
                          float* __restrict__ n2) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= width * ny) return;
  const int y = idx / width, x = x_first + idx % width;
  const size_t plane = static_cast<size_t>(nx) * ny;
  const size_t o = static_cast<size_t>((y + ny / 2) % ny) * nx + (x + nx / 2) % nx;
  float s = 0;
  for (int c = 0; c < ncoils; ++c) {
    const cuComplex l = low[c * plane + o];
    s += (l.x * norm) * (l.x * norm) + (l.y * norm) * (l.y * norm);
  }
  n2[idx] = s;
}

// Cropped output pixel (y, xo) of the centred images (fftshift on read), SoS or sum conj(s_c)·I_c.
__global__ void combine_coils(const cuComplex* __restrict__ img, const cuComplex* __restrict__ low, int nx, int ny,
                              int ncoils, int x_first, int width, float norm, const float* __restrict__ floor2,
                              cuComplex* __restrict__ out) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= width * ny) return;
  const int y = idx / width, x = x_first + idx % width;
  const size_t plane = static_cast<size_t>(nx) * ny;
  const size_t o = static_cast<size_t>((y + ny / 2) % ny) * nx + (x + nx / 2) % nx;
  if (!low) {
    float s = 0;
    for (int c = 0; c < ncoils; ++c) {
      const cuComplex v = img[c * plane + o];
      s += (v.x * norm) * (v.x * norm) + (v.y * norm) * (v.y * norm);
    }
    out[idx] = make_cuComplex(sqrtf(s), 0.f);
    return;
  }
  float n2 = 0;
  for (int c = 0; c < ncoils; ++c) {
    const cuComplex l = low[c * plane + o];
    n2 += (l.x * norm) * (l.x * norm) + (l.y * norm) * (l.y * norm);
  }
  const float n = sqrtf(n2 + 1e-6f * *floor2);  // floor2: max sum |L|^2
  cuComplex sum = make_cuComplex(0, 0);
  if (n > 0)
    for (int c = 0; c < ncoils; ++c) {
      const cuComplex l = low[c * plane + o], v = img[c * plane + o];
      const float sr = l.x * norm / n, si = l.y * norm / n, vr = v.x * norm, vi = v.y * norm;
      sum.x += sr * vr + si * vi;  // conj(s)·v
      sum.y += sr * vi - si * vr;
    }
  out[idx] = sum;
}

int blocks(std::size_t n) { return static_cast<int>((n + k_threads - 1) / k_threads); }

}  // namespace

void GrappaCuda::Impl::ensure_fft(int nx, int ny) {
  if (fft && fft_nx == nx && fft_ny == ny) return;
  if (fft) cufftDestroy(fft);
  int n[2] = {ny, nx};
  cufft_check(cufftPlanMany(&fft, 2, n, nullptr, 1, nx * ny, nullptr, 1, nx * ny, CUFFT_C2C, g.ncoils), "plan");
  fft_nx = nx;
  fft_ny = ny;
}

void GrappaCuda::upload_kspace(const RawData& raw) {
  Impl& s = *impl_;
  const GrappaGeometry& g = s.g;
  if (raw.ncoils != g.ncoils)
    throw InputError("grappa: coil count mismatch: weights calibrated for " + std::to_string(g.ncoils) +
                     " coils, raw data has " + std::to_string(raw.ncoils));
  if (raw.nx != g.nx || raw.ny != g.ny || raw.kspace.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils)
    throw InputError("grappa: raw data size differs from the calibration (nx, ny must match)");
  const std::size_t n = raw.kspace.size();
  if (!s.k || s.k->size() != n) {
    s.k = std::make_unique<DeviceBuffer<cuComplex>>(n);
    s.buf = std::make_unique<DeviceBuffer<cuComplex>>(n);
    s.flags = std::make_unique<DeviceBuffer<unsigned char>>(g.ny);
  }
  std::vector<unsigned char> flags(g.ny);
  for (int y = 0; y < g.ny; ++y) flags[y] = raw.flags(y);
  EventTimer t;
  t.start();
  cuda_check(cudaMemcpy(s.k->get(), raw.kspace.data(), n * sizeof(cuComplex), cudaMemcpyHostToDevice), "upload k-space");
  s.flags->upload(flags.data());
  s.timing.upload_ms = t.stop_ms();
}

void GrappaCuda::synthesize(int slice) {
  Impl& s = *impl_;
  const GrappaGeometry& g = s.g;
  if (!s.k) throw std::logic_error("grappa: upload_kspace before synthesize");
  const int na = g.rows_a(), ld = g.nseg * g.rows_b(), npos = g.syn_groups * g.nx;
  if (!s.Wf) {
    s.Wf = std::make_unique<DeviceBuffer<cuComplex>>(static_cast<std::size_t>(ld) * na);
    s.Asyn = std::make_unique<DeviceBuffer<cuComplex>>(static_cast<std::size_t>(na) * npos);
    s.Y = std::make_unique<DeviceBuffer<cuComplex>>(static_cast<std::size_t>(ld) * npos);
  }
  EventTimer total, gemm;
  total.start();
  const cuDoubleComplex* C = s.C->get() + static_cast<std::size_t>(slice) * g.nseg * g.rows() * na;
  stack_weights<<<blocks(static_cast<std::size_t>(ld) * na), k_threads>>>(g, C, s.Wf->get());
  build_synthesis<<<npos, k_threads>>>(g, s.k->get(), s.flags->get(), s.Asyn->get());
  cuda_check(cudaGetLastError(), "GRAPPA synthesis kernels");
  const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
  gemm.start();
  cublas_check(cublasCgemm(s.blas, CUBLAS_OP_N, CUBLAS_OP_N, ld, npos, na, &one, s.Wf->get(), ld, s.Asyn->get(), na, &zero,
                           s.Y->get(), ld),
               "CGEMM W·A_syn");
  s.timing.synth_gemm_ms = gemm.stop_ms();
  s.timing.synth_gemm_gflop = 8.0 * ld * static_cast<double>(npos) * na * 1e-9;
  scatter_missing<<<blocks(static_cast<std::size_t>(g.rows_b()) * npos), k_threads>>>(g, s.Y->get(), s.flags->get(), s.k->get());
  cuda_check(cudaGetLastError(), "GRAPPA scatter");
  s.timing.synth_ms = total.stop_ms();
}

void GrappaCuda::combine(const RawData& raw, const std::string& combine) {
  Impl& s = *impl_;
  const GrappaGeometry& g = s.g;
  int x_first, width;
  grappa_crop(raw, x_first, width);
  const std::size_t plane = static_cast<std::size_t>(g.nx) * g.ny, n = plane * g.ncoils;
  s.ensure_fft(g.nx, g.ny);
  if (!s.img || s.img->size() != static_cast<std::size_t>(width) * g.ny)
    s.img = std::make_unique<DeviceBuffer<cuComplex>>(static_cast<std::size_t>(width) * g.ny);
  const bool sens = combine == "sensitivity";
  std::unique_ptr<DeviceBuffer<float>> window;
  if (sens) {
    if (!s.low || s.low->size() != n) s.low = std::make_unique<DeviceBuffer<cuComplex>>(n);
    window = std::make_unique<DeviceBuffer<float>>(g.acs_lines);
    window->upload(grappa_acs_window(g.acs_lines).data());
  }
  EventTimer t;
  t.start();
  centre_kspace<<<blocks(n), k_threads>>>(s.k->get(), g.nx, g.ny, g.ncoils, nullptr, 0, 0, s.buf->get());
  cufft_check(cufftExecC2C(s.fft, s.buf->get(), s.buf->get(), CUFFT_INVERSE), "exec");
  if (sens) {
    centre_kspace<<<blocks(n), k_threads>>>(s.k->get(), g.nx, g.ny, g.ncoils, window->get(), g.acs_first, g.acs_lines,
                                            s.low->get());
    cufft_check(cufftExecC2C(s.fft, s.low->get(), s.low->get(), CUFFT_INVERSE), "exec");
  }
  const float norm = 1.f / static_cast<float>(plane);
  std::unique_ptr<DeviceBuffer<float>> n2;
  if (sens) {
    const std::size_t npix = static_cast<std::size_t>(width) * g.ny;
    n2 = std::make_unique<DeviceBuffer<float>>(npix + 1);
    low_norm2<<<blocks(npix), k_threads>>>(s.low->get(), g.nx, g.ny, g.ncoils, x_first, width, norm, n2->get());
    thrust::device_ptr<float> p(n2->get());
    const float peak = thrust::reduce(thrust::device, p, p + npix, 0.f, thrust::maximum<float>());
    cuda_check(cudaMemcpy(n2->get() + npix, &peak, sizeof(float), cudaMemcpyHostToDevice), "floor");
  }
  combine_coils<<<blocks(static_cast<std::size_t>(width) * g.ny), k_threads>>>(
      s.buf->get(), sens ? s.low->get() : nullptr, g.nx, g.ny, g.ncoils, x_first, width, norm,
      sens ? n2->get() + static_cast<std::size_t>(width) * g.ny : nullptr, s.img->get());
  cuda_check(cudaGetLastError(), "GRAPPA combine");
  s.timing.combine_ms = t.stop_ms();
  s.out_nx = width;
}

std::vector<std::complex<float>> GrappaCuda::kspace() {
  Impl& s = *impl_;
  std::vector<std::complex<float>> k(s.k->size());
  s.k->download(reinterpret_cast<cuComplex*>(k.data()));
  return k;
}

Image2D GrappaCuda::image() {
  Impl& s = *impl_;
  Image2D img;
  img.nx = s.out_nx;
  img.ny = s.g.ny;
  img.data.resize(img.size());
  EventTimer t;
  t.start();
  s.img->download(reinterpret_cast<cuComplex*>(img.data.data()));
  s.timing.download_ms = t.stop_ms();
  return img;
}

Image2D reconstruct_grappa_cuda(const RawData& raw_in, const GrappaParams& params, const ProgressFn& progress,
                                const CancelToken& cancel, GrappaCudaTiming* timing) {
  // Noise prewhitening on the host as in the CPU pipeline (a coil mixing, before calibration).
  const bool whiten = !raw_in.noise.empty() && raw_in.ncoils > 1;
  const RawData white = whiten ? prewhitened(raw_in) : RawData{};
  const RawData& raw = whiten ? white : raw_in;
  auto report = [&](double f) {
    if (progress) progress(f, "grappa");
  };
  cancel.throw_if_cancelled();
  if (grappa_fully_sampled(raw)) return grappa_combine_fully_sampled(raw, params);  // nothing to synthesize
  const GrappaGeometry g = grappa_geometry(raw, params);
  GrappaCuda cuda(g, params, 1);
  cuda.upload_acs(0, grappa_acs_block(raw, g));
  double upload = cuda.timing().upload_ms;
  cuda.calibrate();
  report(0.4);
  cancel.throw_if_cancelled();
  cuda.upload_kspace(raw);
  upload += cuda.timing().upload_ms;
  cuda.synthesize(0);
  report(0.7);
  cancel.throw_if_cancelled();
  cuda.combine(raw, params.combine);
  Image2D img = cuda.image();
  int x_first, width;
  grappa_crop(raw, x_first, width);
  img.fov_x_m = raw.fov_x_m * width / raw.nx;
  img.fov_y_m = raw.fov_y_m;
  if (timing) {
    *timing = cuda.timing();
    timing->upload_ms = upload;
  }
  report(1.0);
  return img;
}

std::unique_ptr<Reconstructor> make_grappa_cuda_reconstructor() {
  return make_function_reconstructor("grappa/cuda", [](const RawData& raw, const ReconOptions& o,
                                                       const ProgressFn& progress, const CancelToken& cancel) {
    return reconstruct_grappa_cuda(raw, o.grappa, progress, cancel);
  });
}

}  // namespace mrwb::gpu
