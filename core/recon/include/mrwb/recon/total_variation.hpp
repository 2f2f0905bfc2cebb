#pragma once
// Isotropic total variation (Rudin, Osher & Fatemi 1992) of a complex 2-D image for compressed sensing:
//   TV(x) = sum_p sqrt(|(D_x x)_p|^2 + |(D_y x)_p|^2),
// D forward differences with periodic boundaries (circulant, as BART's `pics -R T` gradient), its adjoint
// D^H = −div (backward differences), and the proximal step of the ADMM z-update (Boyd et al. 2011, sec. 6.3:
// block soft thresholding of each pixel's gradient vector).
#include <complex>
#include <vector>

namespace mrwb {

// x [y][x] -> [2][y][x]: D_x x (x[i+1] − x[i]) then D_y x.
std::vector<std::complex<float>> tv_gradient(const std::vector<std::complex<float>>& x, int nx, int ny);
// g [2][y][x] -> D^H g = −div g: (g_x[i−1] − g_x[i]) + (g_y[j−1] − g_y[j]).
std::vector<std::complex<float>> tv_gradient_adjoint(const std::vector<std::complex<float>>& g, int nx, int ny);
// Per pixel v = (g_x, g_y): v · max(0, 1 − tau / |v|), |v|² = |g_x|² + |g_y|² (in place).
void shrink_isotropic(std::vector<std::complex<float>>& g, int nx, int ny, float tau);
// TV(x).
double tv_norm(const std::vector<std::complex<float>>& x, int nx, int ny);

}  // namespace mrwb
