#pragma once
// Kaiser-Bessel gridding (Jackson 1991, Beatty 2005): convolution onto an oversampled grid, centred FFT,
// crop and deapodisation; the forward (image -> samples) twin; density compensation (analytic radial |k|,
// Pipe-Menon iterative). Conventions as in noncart_types.hpp (cycles/FOV, x = (i - n/2)/n).
#include <complex>
#include <string>
#include <vector>

#include "mrwb/base/rank_comm.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

struct GriddingParams {
  double width = 4.0;         // kernel width W [oversampled grid cells], 2 .. 8
  double oversampling = 2.0;  // alpha, 1.25 .. 2
  std::string density = "pipe-menon";  // pipe-menon | voronoi | radial | none (density_compensation)
  int pipe_menon_iterations = 10;
  // kaiser-bessel | bilinear: linear interpolation onto the n grid without oversampling or deapodisation, the
  // "simple bilinear interpolation gridding" baseline of seeds 001/002 (their Fig. 6 gridding image).
  std::string kernel = "kaiser-bessel";
};

// Kaiser-Bessel kernel C(u) = I0(beta sqrt(1 - (2u/W)^2)), |u| <= W/2, beta from Beatty et al. (2005).
// Modified Bessel function of the first kind, order 0 (the Kaiser-Bessel kernel's).
double bessel_i0(double x);

struct KaiserBessel {
  double width, oversampling, beta;
  KaiserBessel(double width, double oversampling);
  double operator()(double u) const;
  // Continuous Fourier transform of C at f cycles per grid cell (deapodisation).
  double ft(double f) const;
};

// Size of the oversampled grid: the even number >= alpha n.
int oversampled_size(int n, double oversampling);

class Gridder {
 public:
  Gridder(const Grid& g, const GriddingParams& p);
  // Approximates sum_m w_m d_m e^{+i 2 pi k_m.x_n} (no phi factor) for one coil; w may be null (1).
  std::vector<cdouble> adjoint(const float* k, const cfloat* d, const float* w, std::size_t M) const;
  // Approximates sum_n img_n e^{-i 2 pi k_m.x_n}.
  std::vector<cfloat> forward(const float* k, const cdouble* img, std::size_t M) const;
  // Spread/interpolate only (no FFT), sum_m' w_m' (C*C)(k_m - k_m') at every sample, in two halves (a split
  // over ranks sums the grids between them): the weights spread onto the oversampled grid (G^D values, G
  // even), and a grid read back at every sample.
  std::vector<double> spread_weights(const float* k, const double* w, std::size_t M) const;
  std::vector<double> interpolate_weights(const float* k, const std::vector<double>& grid, std::size_t M) const;
  const KaiserBessel& kernel() const { return kb_; }
  int grid_size() const { return G_; }

 private:
  Grid g_;
  GriddingParams p_;
  KaiserBessel kb_;
  bool linear_ = false;
  int G_;
  std::vector<double> deapod_;  // 1-D, n entries: 1 / C^(x)
};

// Density compensation weights w_m in k-space area (cycles/FOV)^D per sample, normalised so that sum w
// equals the area (volume) of the sampled band: the disc of radius max|k_xy| (times the kz extent in 3-D).
std::vector<float> density_radial(const Samples& s);
std::vector<float> density_pipe_menon(const Grid& g, const Samples& s, const GriddingParams& p);
// The same for the samples [begin, end) of a split over ranks (noncart_ranks.hpp density_share): each iteration
// spreads this rank's weights, sums the grids in rank order (comm; null: one process, the samples all its own)
// and reads them back at its samples; the band normalisation's sum is summed in rank order too, so the ranks'
// weights are one process's.
std::vector<float> density_pipe_menon(const Grid& g, const Samples& s, const GriddingParams& p, std::size_t begin,
                                      std::size_t end, RankComm* comm);
// Voronoi cell areas in the kx-ky plane (times the partition spacing for a stack), clipped to the disc half a
// ring spacing beyond the outermost sample (absolute areas, not rescaled to the disc of radius max |k|);
// repeated points share their cell. Throws InputError for a 3-D trajectory that is not a stack of planes.
std::vector<float> density_voronoi(const Samples& s);
// The weights p.density names ("none": empty, i.e. all 1). The recon paths use the default, Pipe-Menon, for
// every trajectory: Voronoi gets an undersampled spiral's centre area right (Pipe-Menon over-weights it where
// the arms lie further apart than the kernel is wide) but gives a larger scale-matched gridding error on the
// simulator's spirals (docs/benchmarks.md, non-Cartesian section).
std::vector<float> density_compensation(const Grid& g, const Samples& s, const GriddingParams& p);
// Area (volume) of the sampled band in (cycles/FOV)^D: the disc of radius max |k_xy| (times the kz extent
// plus one partition in 3-D, the stack-of-spirals case).
double band_area(const Samples& s);
// Scales w so that its sum is the band area (volume) above.
void normalise_to_band(std::vector<float>& w, const Samples& s);

// Gridding reconstruction of one coil: phi-free estimate of rho (object values at the voxels).
std::vector<cdouble> gridding_recon(const Grid& g, const float* k, const cfloat* d, std::size_t M,
                                    const std::vector<float>& w, const GriddingParams& p);
// Gridded (approximate) F^H d and Q, with phi, for the CG's "--gridded" path.
std::vector<cdouble> gridded_fhd(const Grid& g, const float* k, const cfloat* d, std::size_t M,
                                 const GriddingParams& p);
std::vector<cdouble> gridded_q(const Grid& g, const float* k, std::size_t M, const GriddingParams& p);

}  // namespace mrwb::noncart
