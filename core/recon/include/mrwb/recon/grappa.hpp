#pragma once
// GRAPPA (Schneider 2008): autocalibration of the weights W from the ACS lines (basic and
// improved approach), synthesis of the missing phase-encode lines, per-coil iFFT, readout crop and coil
// combination. CPU reference here; the CUDA twin (gpu/grappa_cuda.hpp) uses the same index functions
// below, so both build the same A and B.
//
// Conventions (SEEDS-DIGEST errata): k_y = phase-encode line, x = readout column; Tikhonov +lambda;
// Psi = p^(-eta/2).
//   basic:    N_b blocks (kernel_pe), readout segments of delta_s columns, one W per segment,
//             weights interpolated linearly across columns between segment centres.
//   improved: K_PE x K_RO kernel, one W for all columns, power clipping of a fraction kappa.
// One equation is one column of the stacked matrix M = [B; A] (column-major, rows_b + rows_a rows):
//   A row r = (k·K_PE + b)·K_RO + j  ->  S_k(y0 + b·R, x0 + j)
//   B row q = j_c·(R−1) + (m−1)      ->  S_jc(y0 + delta_pe + m, x0 + delta_ro),  m = 1 .. R−1
// with delta_pe = R·(floor(K_PE/2) − 1), delta_ro = floor((K_RO − 1)/2) (basic: K_RO = 1, delta_ro = 0).
// W (rows_b x rows_a) solves B = W·A in the least-squares sense: W = B A^H (A A^H + lambda E)^-1.
#include <complex>
#include <memory>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

#if defined(__CUDACC__)
#define MRWB_GRAPPA_HD __host__ __device__ __forceinline__
#else
#define MRWB_GRAPPA_HD inline
#endif

namespace mrwb {

// Everything the calibration and the synthesis need to index the data; plain ints (copied to the device).
struct GrappaGeometry {
  int R = 2;             // phase-encode acceleration
  int ncoils = 1;
  int nx = 0, ny = 0;    // encoded k-space: readout samples, phase-encode lines
  int basic = 0;         // 1: basic approach (segments), 0: improved
  int k_pe = 4, k_ro = 5;
  int delta_pe = 0, delta_ro = 0;
  int acs_first = 0, acs_lines = 0;  // the contiguous ACS block used for calibration
  int lattice_offset = 0;            // acquired imaging lines: ky ≡ lattice_offset (mod R)
  int nseg = 1, seg_cols = 0;        // basic: segments of seg_cols columns; improved: 1 segment of nx
  int shifts_pe = 0;                 // kernel positions along PE inside the ACS block
  int shifts_ro = 0;                 // equations per PE position (basic: seg_cols, improved: nx − K_RO + 1)
  int syn_t0 = 0, syn_groups = 0;    // synthesis groups t: base line ky = lattice_offset + R·(syn_t0 + t)

  MRWB_GRAPPA_HD int rows_a() const { return k_pe * ncoils * k_ro; }
  MRWB_GRAPPA_HD int rows_b() const { return (R - 1) * ncoils; }
  MRWB_GRAPPA_HD int rows() const { return rows_a() + rows_b(); }
  MRWB_GRAPPA_HD int equations() const { return shifts_pe * shifts_ro; }
};

// Equation column e of segment seg: its PE position i (ACS-local first source line) and first source
// column x0. False for the zero padding of a short last segment.
MRWB_GRAPPA_HD bool grappa_equation(const GrappaGeometry& g, int seg, int e, int& i, int& x0) {
  i = e / g.shifts_ro;
  const int c = e % g.shifts_ro;
  x0 = g.basic ? seg * g.seg_cols + c : c;
  return x0 < g.nx;
}

// Where entry `row` of M in an equation at (y0, x0) reads: coil, line offset from y0, column offset from x0.
MRWB_GRAPPA_HD void grappa_row_source(const GrappaGeometry& g, int row, int& coil, int& dy, int& dx) {
  const int nb = g.rows_b();
  if (row < nb) {
    coil = row / (g.R - 1);
    dy = g.delta_pe + row % (g.R - 1) + 1;
    dx = g.delta_ro;
  } else {
    const int r = row - nb;
    coil = r / (g.k_pe * g.k_ro);
    dy = ((r / g.k_ro) % g.k_pe) * g.R;
    dx = r % g.k_ro;
  }
}

// Basic approach: column x takes (1 − t)·W[s0] + t·W[s1], linear between segment centres, clamped.
MRWB_GRAPPA_HD void grappa_segment_blend(const GrappaGeometry& g, int x, int& s0, int& s1, float& t) {
  s0 = s1 = 0;
  t = 0.f;
  if (!g.basic || g.nseg == 1) return;
  auto centre = [&](int s) {
    const int w = (s + 1) * g.seg_cols <= g.nx ? g.seg_cols : g.nx - s * g.seg_cols;
    return s * g.seg_cols + 0.5f * static_cast<float>(w - 1);
  };
  const float xf = static_cast<float>(x);
  if (xf <= centre(0)) return;
  if (xf >= centre(g.nseg - 1)) {
    s0 = s1 = g.nseg - 1;
    return;
  }
  int s = x / g.seg_cols;
  if (xf < centre(s)) --s;
  s0 = s;
  s1 = s + 1;
  t = (xf - centre(s)) / (centre(s + 1) - centre(s));
}

// Lines of synthesis group t: sources y0 + b·R (b < K_PE), targets base + m (m = 1 .. R−1).
MRWB_GRAPPA_HD int grappa_group_base(const GrappaGeometry& g, int t) {
  return g.lattice_offset + g.R * (g.syn_t0 + t);
}

// Validates raw data and parameters (InputError: no calibration lines, too few ACS lines for the kernel
// with the number needed, bad sizes) and fills the geometry.
GrappaGeometry grappa_geometry(const RawData& raw, const GrappaParams& params);

// Calibrated weights of one slice: nseg matrices W (rows_b x rows_a, row-major), double precision.
struct GrappaWeights {
  GrappaGeometry geo;
  std::vector<std::complex<double>> w;  // [segment][row_b][row_a]
  std::vector<double> lambda;           // per segment: chi · trace(A A^H) / rows_a
  std::size_t size_per_segment() const {
    return static_cast<std::size_t>(geo.rows_b()) * geo.rows_a();
  }
};

// The ACS block [coil][acs line][column] (the calibration input the GPU uploads).
std::vector<std::complex<float>> grappa_acs_block(const RawData& raw, const GrappaGeometry& g);
// Power of every equation before normalisation: basic |b|^2, improved |a|^2·rows_b + |b|^2·rows_a.
// And the column scale (Psi of its PE position, 0 for a clipped equation); one segment, from the ACS block.
void grappa_equation_scales(const GrappaGeometry& g, const std::complex<float>* acs, int seg, double eta,
                            double clip, std::vector<double>& scale);

// CPU reference of the autocalibration (Eigen, complex double, Cholesky).
GrappaWeights grappa_calibrate(const RawData& raw, const GrappaParams& params);
// Missing lines filled from the weights; acquired lines (ACS included) kept. Returns [coil][line][sample].
std::vector<std::complex<float>> grappa_synthesize(const RawData& raw, const GrappaWeights& weights);
// Per-coil centred iFFT (FFTW), readout-oversampling crop, then SoS or sensitivity-weighted combination
// (sensitivities from the Hann-windowed ACS lines). kspace: [coil][line][sample] of raw's size.
Image2D grappa_combine(const RawData& raw, const GrappaGeometry& g, const std::vector<std::complex<float>>& kspace,
                       const std::string& combine);
// eps^2 of the sensitivity normalisation from the per-pixel sum |L|^2 of the low-resolution coil images.
float grappa_sensitivity_floor2(const std::vector<float>& norm2);
// Readout crop of an encoded-space coil image: first column kept and recon width.
void grappa_crop(const RawData& raw, int& x_first, int& width);
// Hann weights of the n ACS lines (sensitivity estimate), shared by both backends.
std::vector<float> grappa_acs_window(int n);

// Fully sampled data (accel_R = 1, every line acquired): nothing to synthesize, the coil images combined as
// at R > 1 (SoS, or sensitivity-weighted with the central min(24, ny) lines as the ACS block), so that GRAPPA
// compares with other methods, and its g-factor is measured, on fully sampled data too. Both backends call it.
bool grappa_fully_sampled(const RawData& raw);
Image2D grappa_combine_fully_sampled(const RawData& raw, const GrappaParams& params);
// Whole CPU pipeline.
Image2D reconstruct_grappa(const RawData& raw, const GrappaParams& params, const ProgressFn& progress,
                           const CancelToken& cancel);
// Factory of the CPU reconstructor {"grappa","cpu"} (recon_registry.cpp).
std::unique_ptr<Reconstructor> make_grappa_cpu_reconstructor();

}  // namespace mrwb
