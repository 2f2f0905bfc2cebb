#pragma once
// Iterative non-Cartesian reconstruction (Stone et al. 2008): exact F^H d and Q (Eqs. 3-4),
// F^H F by Toeplitz embedding on the 2x grid, and (P)CG on (F^H F + lambda W^H W) rho = F^H d.
//
// Conventions (one place, used by CPU and CUDA alike):
//  - Image: cube of n^D voxels (D = 2 or 3), x-fastest; voxel index i <-> x = (i - n/2)/n in FOV units.
//  - k-space: cycles per FOV (BART), band |k_j| <= n/2.
//  - Forward model: d_m = sum_n phi(k_m) rho_n e^{-i 2 pi k_m . x_n}; adjoint with e^{+i ...}.
//  - Voxel basis phi: Dirac voxels weighted by the voxel volume, phi(k) = 1/n^D (FOV units). Then rho_n
//    approximates the object's value at x_n when d is its continuous Fourier transform in FOV units
//    (d(k) = int f(x) e^{-i 2 pi k.x} dx). The paper leaves phi open (SEEDS-DIGEST errata); a box basis
//    would add a sinc roll-off that the CG would have to undo.
//  - Q lives on the 2n grid: index j <-> offset (j - n)/n per dimension.
#include <complex>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb::noncart {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

struct Grid {
  int dims = 2;  // 2 or 3
  int n = 0;     // voxels per dimension
  std::size_t voxels() const;
  Grid doubled() const { return {dims, 2 * n}; }
  double phi() const;  // voxel basis phi = 1/n^D
};

// Samples in BART convention: k [M][dims] cycles/FOV, values d [coil][M].
struct Samples {
  int dims = 2;
  std::vector<float> k;
  std::vector<cfloat> d;
  int coils = 1;
  std::size_t count() const { return dims ? k.size() / dims : 0; }
};

enum class Precision { Double, Single };

// Throws InputError (one line) for: dims not 2/3, n < 2, sample count mismatch, NaN/Inf k or d,
// a point outside the band |k_j| <= n/2. `where` names the input in the message.
void validate_samples(const Grid& g, const Samples& s, const std::string& where);

// Exact [F^H d]_n (Eq. 4) for one coil (d has s.count() values). Single: float trig and accumulation,
// multithreaded (CPU.SP); Double: double everywhere (CPU.DP). Threads: 0 = hardware concurrency.
std::vector<cdouble> exact_fhd(const Grid& g, const float* k, const cfloat* d, std::size_t M, Precision p,
                               int threads = 0, const CancelToken& cancel = {});
// Exact Q (Eq. 3) on the 2n grid, (2n)^D values; Hermitian symmetry Q(-x) = conj Q(x) halves the work.
std::vector<cdouble> exact_q(const Grid& g, const float* k, std::size_t M, Precision p, int threads = 0,
                             const CancelToken& cancel = {});

// Hermitian symmetry: Q at offset -x is conj Q(x). The direct sums compute the lower half of the slowest
// axis (indices 0..n, offsets -n..0: q_half_voxels values); complete_q_hermitian resizes q to (2n)^D and
// fills the rest by j -> (2n - j) mod 2n on every axis (CPU and the tiled CUDA path alike).
std::size_t q_half_voxels(const Grid& g);
void complete_q_hermitian(const Grid& g, std::vector<cdouble>& q);

// F^H F applied through Q: pad to 2n, FFT, multiply by FFT(Q), inverse FFT, crop (FFTW, double).
class ToeplitzNormal {
 public:
  ToeplitzNormal(const Grid& g, const std::vector<cdouble>& q);
  ~ToeplitzNormal();
  ToeplitzNormal(const ToeplitzNormal&) = delete;
  ToeplitzNormal& operator=(const ToeplitzNormal&) = delete;
  void apply(const cdouble* in, cdouble* out) const;  // n^D -> n^D
  // Eigenvalues of T. Chan's optimal circulant approximation on the n grid (for the PCG preconditioner).
  std::vector<double> circulant_eigenvalues() const;
  const Grid& grid() const { return g_; }

 private:
  struct Impl;
  Grid g_;
  std::unique_ptr<Impl> impl_;
  std::vector<cdouble> q_;
};

// T. Chan's optimal circulant approximation of the Toeplitz operator whose kernel is Q (2n grid): its
// eigenvalues on the n grid (ToeplitzNormal::circulant_eigenvalues; the CUDA CG calls it on its Q).
std::vector<double> chan_circulant_eigenvalues(const Grid& g, const std::vector<cdouble>& q);
// The circulant preconditioner's inverse eigenvalues, 1 / (mean_coil_power eig_Q + lambda eig_W), floored
// at 1e-6 of the largest, and divided by n^D so that IFFT(inv * FFT(r)) needs no further scaling (FFTW's
// and cuFFT's unnormalised transforms). Shared by the CPU and CUDA solvers.
std::vector<double> circulant_preconditioner_inverse(const Grid& g, const std::vector<double>& q_eig,
                                                     double mean_coil_power, double lambda, bool finite_difference);

// Sum over coils of |S_c|^2 per voxel (sens [coil][n^D]; empty: 1 everywhere, one uniform coil). The
// preconditioners scale Q by it (CPU and CUDA solvers).
std::vector<double> coil_power(const Grid& g, const std::vector<cfloat>& sens, int coils);
// W^H W (identity, finite differences, anatomical) and the diagonal preconditioner: mrwb/noncart_regularizer.hpp.

struct CgOptions {
  int iterations = 20;
  double lambda = 0.0;
  std::string regularizer = "identity";    // identity | finite-difference | anatomical
  std::vector<float> prior;                // anatomical: reference image, n^D values (x fastest)
  double edge_threshold = 0.02;            // anatomical: edge where the reference jumps by > this x its range
  std::string preconditioner = "none";     // none | diagonal | circulant
  double tolerance = 0.0;                  // stop when ||r|| / ||b|| < tolerance
};
struct CgReport {
  int iterations = 0;
  double relative_residual = 0;
  std::vector<double> residuals;  // per iteration, ||r|| / ||b||
};

// Multi-coil SENSE normal equations sum_c S_c^H F^H F S_c + lambda W^H W, rhs sum_c S_c^H F^H d_c.
// sens empty: single coil, S = 1. sens: [coil][n^D].
std::vector<cdouble> cg_solve(const ToeplitzNormal& T, const std::vector<cdouble>& rhs, const CgOptions& o,
                              const std::vector<cfloat>& sens, int coils, CgReport* report = nullptr,
                              const ProgressFn& progress = {}, const CancelToken& cancel = {});

// Coil sensitivities estimated from low-resolution coil images (central k-space |k| < n/8, Hann window):
// S_c = I_c / sqrt(sum |I_c|^2 + eps). coil_images: [coil][n^D].
std::vector<cfloat> estimate_sensitivities(const Grid& g, const std::vector<std::vector<cdouble>>& lowres);

struct GriddingParams;
// Sensitivities from low-resolution coil images of multi-coil samples (centre |k| < n/8, Hann taper,
// Pipe-Menon weights, Kaiser-Bessel gridding), then estimate_sensitivities.
std::vector<cfloat> estimate_sensitivities(const Grid& g, const Samples& s, const GriddingParams& p);

// RawData (non-Cartesian, traj set) -> Samples, validated; dims 2 (kz all zero or traj_dims 2) or 3.
Samples samples_from_raw(const RawData& raw);
// Default matrix: smallest even n with max |k_j| <= n/2.
int default_matrix(const Samples& s);

// Kaiser-Bessel settings of the NoncartParams (width, oversampling).
GriddingParams gridding_params(const NoncartParams& p);
// Gridding of every coil by `coil_image(c)`, combined: the coil's image for one coil, root sum of squares
// for several. Progress per coil; cancel between coils.
std::vector<cdouble> combine_coil_images(int coils, const std::function<std::vector<cdouble>(int coil)>& coil_image,
                                         const ProgressFn& progress, const CancelToken& cancel);

// Factories the registry uses (recon_registry.cpp).
std::unique_ptr<Reconstructor> make_cg_reconstructor_cpu();
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cpu();

// Whole CPU pipeline on Samples (also used by tests and the bench): exact or gridded F^H d and Q, then CG.
struct CgResult {
  std::vector<cdouble> image;
  CgReport report;
  double seconds_fhd = 0, seconds_q = 0, seconds_solver = 0;
};
CgResult reconstruct_cg_cpu(const Grid& g, const Samples& s, const NoncartParams& p, Precision prec,
                            const std::vector<cfloat>& sens = {}, const ProgressFn& progress = {},
                            const CancelToken& cancel = {});

// What every `gridding` / `cg` reconstruction starts from: iterations and matrix checked (InputError
// with the allowed range), the samples of the raw data, of `dims` (2: an image, 3: a volume; the other
// is refused), the grid (p.matrix or default_matrix) and the samples validated under `method`'s name.
struct ReconInput {
  Grid grid;
  Samples samples;
};
ReconInput recon_input(const RawData& raw, const NoncartParams& p, const std::string& method, int dims);

// `mrwb recon` of a 3-D trajectory (samples_from_raw gives dims 3): the volume on the CPU, method "cg"
// (CPU.SP, exact or gridded F^H d / Q, SENSE with estimated maps for several coils) or "gridding"
// (Pipe-Menon weights, root-sum-of-squares over coils). Matrix p.matrix or default_matrix.
Volume reconstruct_volume_cpu(const RawData& raw, const std::string& method, const NoncartParams& p,
                              const ProgressFn& progress = {}, const CancelToken& cancel = {});
// The same on another backend: gpu/ registers "cuda" (mrwb::gpu::register_backends).
struct VolumeBackend {
  std::function<bool()> available;
  std::function<Volume(const RawData&, const std::string& method, const NoncartParams&, const ProgressFn&,
                       const CancelToken&)>
      reconstruct;
};
void register_volume_backend(const std::string& name, VolumeBackend backend);
// The volume with `backend` (auto: cuda when registered and available, else cpu; cpu; cuda), method checked
// first (cg | gridding; InputError otherwise).
Volume reconstruct_volume(const RawData& raw, const std::string& method, const std::string& backend, const NoncartParams& p,
                          const ProgressFn& progress = {}, const CancelToken& cancel = {});
// True for a trajectory with kz (samples_from_raw gives dims 3).
bool has_3d_trajectory(const RawData& raw);
// Image helpers.
Image2D to_image2d(const Grid& g, const std::vector<cdouble>& v, double fov_m);
// Magnitude least-squares scale a minimising || a|img| - |ref| || (the paper rescales gridded images).
double magnitude_scale(const std::vector<float>& img, const std::vector<float>& ref);

}  // namespace mrwb::noncart
