#pragma once
// Orthonormal 2-D discrete wavelet transform with periodic boundaries (Mallat 1989), Daubechies filters
// (Daubechies 1988, "Orthonormal bases of compactly supported wavelets", CPAM 41:909, Table 1) named by
// their tap count: 2 taps = Haar (1 vanishing moment), 4 taps = D4 (2 vanishing moments; BART's "dau2"),
// 8 taps = D8 (4 vanishing moments; "db4" in PyWavelets' naming). Periodisation keeps the transform
// orthonormal, so the inverse is the adjoint and energy is preserved.
// Layout: the coefficients replace the image in place, Mallat's pyramid: after each level the low-pass band
// (LL) sits in the top-left (ny/2^l) x (nx/2^l) corner, HL / LH / HH beside and below it.
// Size rule: every level halves both sides, so nx and ny must be divisible by 2^levels, and each level's
// input must be at least `taps` long in both directions (no filter wraps more than once). Sizes that are
// not are refused (InputError), never padded: callers pick levels with max_wavelet_levels.
#include <complex>
#include <vector>

namespace mrwb {

// The most levels nx x ny allows under the size rule (0 for none).
int max_wavelet_levels(int nx, int ny, int taps);

class Wavelet2D {
 public:
  // levels < 0: max_wavelet_levels. Throws InputError for taps not 2, 4 or 8, or levels outside
  // 0 .. max_wavelet_levels(nx, ny, taps).
  Wavelet2D(int nx, int ny, int taps = 4, int levels = -1);
  int levels() const { return levels_; }
  int taps() const { return static_cast<int>(h_.size()); }
  // [y][x] image -> coefficients, and back; in place, nx·ny values.
  void forward(std::vector<std::complex<float>>& data) const;
  void inverse(std::vector<std::complex<float>>& data) const;
  // The scaling (low-pass) filter h, sum h = sqrt(2); the wavelet filter is g[j] = (−1)^j h[L−1−j].
  const std::vector<double>& scaling_filter() const { return h_; }

 private:
  int nx_, ny_, levels_;
  std::vector<double> h_, g_;
};

}  // namespace mrwb
