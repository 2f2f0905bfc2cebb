// ESPIRiT's second stage (Uecker et al. 2014, eq. 17): G(x) on the image grid and its top eigenpair per voxel.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <thread>

#include "espirit_stages.hpp"
#include "mrwb/base/parallel_ranges.hpp"

namespace mrwb::espirit {
namespace {

using cfloat = std::complex<float>;
using MatXcf = Eigen::MatrixXcf;
using VecXcf = Eigen::VectorXcf;

// Power iterations per voxel at most (BART's orthogonal iteration runs 30 from the first coil's unit vector);
// ours start from the neighbouring voxel's eigenvector, so where the next eigenvalue is far below the top one
// (inside the object) a few suffice.
constexpr int k_max_iterations = 30;
// Stop when |G v − lambda v| falls below this (eigenvalues lie in [0, 1]).
constexpr float k_residual = 1e-5f;

// T(i, j): the samples at u_j = (j − S/2)/S of a trigonometric polynomial with frequencies |d| <= K − 1 mapped to
// its value at u_i = (i − n/2)/n, (1/S)·sum_d e^{2 pi i d (u_i − u_j)} (real: the frequencies come in ± pairs).
Eigen::MatrixXf interpolation(int n, int S, int K) {
  Eigen::MatrixXf T(n, S);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < S; ++j) {
      const double du = static_cast<double>(i - n / 2) / n - static_cast<double>(j - S / 2) / S;
      double sum = 1;
      for (int d = 1; d < K; ++d) sum += 2 * std::cos(2 * std::numbers::pi * d * du);
      T(i, j) = static_cast<float>(sum / S);
    }
  return T;
}

// Largest eigenpair of the Hermitian G (C x C), starting from v (unit norm); v returns the eigenvector.
// Power iteration; where it has not converged (the top two eigenvalues close: outside the object, or where one
// set of maps does not describe the coils) the full decomposition, so the pair is the top one everywhere.
float top_eigenpair(const MatXcf& G, VecXcf& v, VecXcf& w) {
  float lambda = 0;
  for (int it = 0; it < k_max_iterations; ++it) {
    w.noalias() = G * v;
    lambda = v.dot(w).real();  // Rayleigh quotient (Eigen's dot conjugates its left side)
    const float norm = w.norm();
    if (!(norm > 0)) return 0;  // G = 0: no kernel reaches this voxel
    const float residual = (w - lambda * v).norm();
    v = w / norm;
    if (residual < k_residual) return lambda;
  }
  Eigen::SelfAdjointEigenSolver<MatXcf> eig(G);
  v = eig.eigenvectors().col(G.cols() - 1);
  return eig.eigenvalues()(G.cols() - 1);
}

}  // namespace

EspiritMaps eigenmaps(const SmallGrid& g, int nx, int ny, double crop) {
  const int C = g.coils, S = g.S;
  const std::size_t cc = static_cast<std::size_t>(C) * C, plane = static_cast<std::size_t>(nx) * ny;
  EspiritMaps out;
  out.coils = C;
  out.nx = nx;
  out.ny = ny;
  out.kernels = g.kernels;
  out.maps.assign(plane * C, {});
  out.eigenvalue.assign(plane, 0.f);

  const Eigen::MatrixXf Tx = interpolation(nx, S, g.kernel_size), Ty = interpolation(ny, S, g.kernel_size);
  std::vector<cfloat> gram(g.gram.begin(), g.gram.end());  // [jy][jx][C x C] in float, as the maps are
  VecXcf ref(C);
  for (int c = 0; c < C; ++c) ref(c) = cfloat(g.principal[c]);

  // Columns of the image in parallel; each column interpolates G along x once (S matrices), then walks y.
  const int parts = static_cast<int>(std::clamp<unsigned>(std::thread::hardware_concurrency(), 1u, static_cast<unsigned>(nx)));
  for_each_range(static_cast<std::size_t>(nx), parts, [&](int, std::size_t x0, std::size_t x1) {
    std::vector<cfloat> column(cc * S);  // [jy][C x C]: G interpolated to this x
    MatXcf G(C, C);
    VecXcf v(C), w(C);
    for (std::size_t x = x0; x < x1; ++x) {
      std::fill(column.begin(), column.end(), cfloat{});
      for (int jy = 0; jy < S; ++jy)
        for (int jx = 0; jx < S; ++jx) {
          const float t = Tx(static_cast<Eigen::Index>(x), jx);
          const cfloat* src = gram.data() + cc * (static_cast<std::size_t>(jy) * S + jx);
          cfloat* dst = column.data() + cc * jy;
          for (std::size_t e = 0; e < cc; ++e) dst[e] += t * src[e];
        }
      v = ref;
      for (int y = 0; y < ny; ++y) {
        G.setZero();
        for (int jy = 0; jy < S; ++jy)
          G += Ty(y, jy) * Eigen::Map<const MatXcf>(column.data() + cc * jy, C, C);
        const float lambda = top_eigenpair(G, v, w);
        const std::size_t i = static_cast<std::size_t>(y) * nx + x;
        out.eigenvalue[i] = lambda;
        if (!(lambda > crop)) continue;  // BART's crop: 0 where the eigenvalue is <= crop
        // Phase: the projection onto the calibration's principal coil component real and positive.
        const cfloat z = ref.dot(v);
        const cfloat rot = std::abs(z) > 0 ? std::conj(z) / std::abs(z) : cfloat(1);
        for (int c = 0; c < C; ++c) out.maps[static_cast<std::size_t>(c) * plane + i] = v(c) * rot;
      }
    }
  });
  return out;
}

}  // namespace mrwb::espirit
