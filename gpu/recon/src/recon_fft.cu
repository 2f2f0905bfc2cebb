// fft/cuda: Cartesian k-space to image on the device (twin of core/recon/src/recon_fft.cpp).
#include <cuComplex.h>
#include <cufft.h>

#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/fft_layout.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/recon/fft_cuda.hpp"

namespace mrwb::gpu {
namespace {

constexpr int k_threads = 256;

// Raw sample (x, y) of coil c onto its place on the symmetric grid, in the DFT's index order (the
// zero-filled rest was cleared before).
__global__ void scatter_kspace(const cuComplex* __restrict__ k, int nx, int ny, int ncoils, FftLayout l,
                               cuComplex* __restrict__ grid) {
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t plane = static_cast<size_t>(nx) * ny;
  if (idx >= plane * ncoils) return;
  const int c = static_cast<int>(idx / plane), y = static_cast<int>((idx % plane) / nx), x = static_cast<int>(idx % nx);
  const size_t g = (static_cast<size_t>(c) * l.Ny + centred_dft_index(y + l.oy, l.Ny)) * l.Nx + centred_dft_index(x + l.ox, l.Nx);
  grid[g] = k[idx];
}

// Kept pixel (x, y): the DFT's value scaled by 1 / (Nx Ny) as FFTW's backward transform in centred_ifft2;
// one coil: the complex value, several: root sum of squares.
__global__ void crop_combine(const cuComplex* __restrict__ grid, int ncoils, FftLayout l, float norm,
                             cuComplex* __restrict__ out) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= l.kx * l.ky) return;
  const int x = idx % l.kx, y = idx / l.kx;
  const size_t plane = static_cast<size_t>(l.Nx) * l.Ny;
  const size_t o = static_cast<size_t>(centred_dft_index(y + l.y0, l.Ny)) * l.Nx + centred_dft_index(x + l.x0, l.Nx);
  if (ncoils == 1) {
    const cuComplex v = grid[o];
    out[idx] = make_cuComplex(v.x * norm, v.y * norm);
    return;
  }
  float s = 0;
  for (int c = 0; c < ncoils; ++c) {
    const cuComplex v = grid[c * plane + o];
    s += (v.x * norm) * (v.x * norm) + (v.y * norm) * (v.y * norm);
  }
  out[idx] = make_cuComplex(sqrtf(s), 0.f);
}

unsigned blocks(size_t n) { return static_cast<unsigned>((n + k_threads - 1) / k_threads); }

}  // namespace

Image2D reconstruct_fft_cuda(const RawData& raw_in) {
  const FftLayout l = fft_layout(raw_in);
  // Noise prewhitening on the host, as in the CPU pipeline (a coil mixing before the transforms).
  const bool whiten = !raw_in.noise.empty() && raw_in.ncoils > 1;
  const RawData white = whiten ? prewhitened(raw_in) : RawData{};
  const RawData& raw = whiten ? white : raw_in;
  const size_t plane = static_cast<size_t>(l.Nx) * l.Ny, n_grid = plane * raw.ncoils;
  {
    size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const size_t need = (raw.kspace.size() + 2 * n_grid + static_cast<size_t>(l.kx) * l.ky) * sizeof(cuComplex);
    if (need > free_b)
      throw InputError("recon --method fft --backend cuda: " + std::to_string(raw.ncoils) + " coils of " +
                       std::to_string(l.Nx) + " x " + std::to_string(l.Ny) + " need " + std::to_string(need) +
                       " bytes of GPU memory, " + std::to_string(free_b) + " free (allowed: --backend cpu)");
  }
  DeviceBuffer<cuComplex> k(raw.kspace.size()), grid(n_grid), img(static_cast<size_t>(l.kx) * l.ky);
  k.upload(reinterpret_cast<const cuComplex*>(raw.kspace.data()));
  cuda_check(cudaMemset(grid.get(), 0, n_grid * sizeof(cuComplex)), "memset");
  scatter_kspace<<<blocks(raw.kspace.size()), k_threads>>>(k.get(), raw.nx, raw.ny, raw.ncoils, l, grid.get());
  cuda_check(cudaGetLastError(), "fft scatter");
  cufftHandle plan;
  int n[2] = {l.Ny, l.Nx};
  cufft_check(cufftPlanMany(&plan, 2, n, nullptr, 1, static_cast<int>(plane), nullptr, 1, static_cast<int>(plane),
                            CUFFT_C2C, raw.ncoils),
              "plan");
  const cufftResult r = cufftExecC2C(plan, grid.get(), grid.get(), CUFFT_INVERSE);
  cufftDestroy(plan);
  cufft_check(r, "exec");
  crop_combine<<<blocks(img.size()), k_threads>>>(grid.get(), raw.ncoils, l, 1.0f / static_cast<float>(plane), img.get());
  cuda_check(cudaGetLastError(), "fft combine");
  Image2D out = fft_image(raw, l);
  img.download(reinterpret_cast<cuComplex*>(out.data.data()));
  return out;
}

std::unique_ptr<Reconstructor> make_fft_reconstructor_cuda() {
  return make_function_reconstructor("fft/cuda", [](const RawData& raw, const ReconOptions&, const ProgressFn& progress,
                                                    const CancelToken& cancel) {
    cancel.throw_if_cancelled();
    Image2D img = reconstruct_fft_cuda(raw);
    if (progress) progress(1.0, "recon");
    return img;
  });
}

}  // namespace mrwb::gpu
