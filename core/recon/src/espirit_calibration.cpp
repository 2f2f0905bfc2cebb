// ESPIRiT calibration (Uecker et al. 2014): the calibration matrix, its signal space, and the image-space
// Gram matrix G of the kept kernels on a 2·kernel_size grid.
#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <string>

#include "espirit_stages.hpp"
#include "mrwb/base/errors.hpp"

namespace mrwb::espirit {
namespace {

using cdouble = std::complex<double>;
using MatXcd = Eigen::MatrixXcd;

// A: one row per kernel position inside the block, columns (coil, py, px), px fastest (their eq. 3).
MatXcd calibration_matrix(const std::vector<std::complex<float>>& calib, int cx, int cy, int coils, int k) {
  const int rx = cx - k + 1, ry = cy - k + 1, kk = k * k;
  MatXcd A(static_cast<Eigen::Index>(rx) * ry, static_cast<Eigen::Index>(kk) * coils);
  for (int c = 0; c < coils; ++c)
    for (int py = 0; py < k; ++py)
      for (int px = 0; px < k; ++px) {
        const Eigen::Index col = static_cast<Eigen::Index>(c) * kk + py * k + px;
        for (int y = 0; y < ry; ++y)
          for (int x = 0; x < rx; ++x)
            A(static_cast<Eigen::Index>(y) * rx + x, col) =
                cdouble(calib[(static_cast<std::size_t>(c) * cy + y + py) * cx + x + px]);
      }
  return A;
}

// Right singular vectors of A with (sigma_n / sigma_0)² > threshold (BART ecalib -t), from the eigen-
// decomposition of the smaller of A A^H and A^H A (a 361² instead of a 1152² problem for 24², 6², 32 coils).
MatXcd signal_space(const MatXcd& A, double threshold) {
  const bool rows = A.rows() < A.cols();
  const MatXcd gram = rows ? MatXcd(A * A.adjoint()) : MatXcd(A.adjoint() * A);
  Eigen::SelfAdjointEigenSolver<MatXcd> eig(gram);
  const Eigen::VectorXd& lambda = eig.eigenvalues();  // ascending: sigma² of A
  const Eigen::Index n = lambda.size();
  const double top = lambda(n - 1);
  if (!(top > 0)) throw InputError("espirit: the calibration region holds no signal (allowed: acquired k-space data)");
  Eigen::Index kept = 0;
  while (kept < n && lambda(n - 1 - kept) / top > threshold) ++kept;
  MatXcd V(A.cols(), kept);
  for (Eigen::Index i = 0; i < kept; ++i) {
    const Eigen::Index j = n - 1 - i;
    if (rows) V.col(i) = A.adjoint() * eig.eigenvectors().col(j) / std::sqrt(lambda(j));  // v = A^H u / sigma
    else V.col(i) = eig.eigenvectors().col(j);
  }
  return V;
}

// Top eigenvector of the coils' covariance over the block: the reference of the maps' phase. Its own phase is
// fixed by making its largest entry real and positive.
std::vector<cdouble> principal_component(const std::vector<std::complex<float>>& calib, int cx, int cy, int coils) {
  const std::size_t plane = static_cast<std::size_t>(cx) * cy;
  Eigen::MatrixXcd Y(coils, static_cast<Eigen::Index>(plane));
  for (int c = 0; c < coils; ++c)
    for (std::size_t i = 0; i < plane; ++i) Y(c, static_cast<Eigen::Index>(i)) = cdouble(calib[c * plane + i]);
  Eigen::SelfAdjointEigenSolver<MatXcd> eig(MatXcd(Y * Y.adjoint()));
  Eigen::VectorXcd u = eig.eigenvectors().col(coils - 1);
  Eigen::Index big = 0;
  u.cwiseAbs().maxCoeff(&big);
  u *= std::conj(u(big)) / std::abs(u(big));
  return std::vector<cdouble>(u.data(), u.data() + coils);
}

}  // namespace

SmallGrid calibrate(const std::vector<std::complex<float>>& calib, int cx, int cy, int coils, const EspiritParams& p) {
  const int k = p.kernel_size;  // block and kernel checked by check_espirit_calibration
  // A's rows lie in the span of the conjugated right singular vectors (A = U S V^H): those are the kernels.
  const MatXcd V = signal_space(calibration_matrix(calib, cx, cy, coils, k), p.svd_threshold).conjugate();
  const Eigen::Index kk = static_cast<Eigen::Index>(k) * k, n = V.cols();

  SmallGrid g;
  g.S = 2 * k;
  g.coils = coils;
  g.kernel_size = k;
  g.kernels = static_cast<int>(n);
  g.principal = principal_component(calib, cx, cy, coils);
  const int S = g.S;
  // E(j, p) = e^{+2 pi i (py·u_jy + px·u_jx)}: the kernels' inverse DFT at the small grid's points (eq. 16).
  MatXcd E(static_cast<Eigen::Index>(S) * S, kk);
  for (int jy = 0; jy < S; ++jy)
    for (int jx = 0; jx < S; ++jx)
      for (int py = 0; py < k; ++py)
        for (int px = 0; px < k; ++px) {
          const double phase = 2 * std::numbers::pi * (py * (jy - S / 2) + px * (jx - S / 2)) / S;
          E(jy * S + jx, py * k + px) = std::polar(1.0, phase);
        }
  // V's columns are (coil, p) with p fastest: as a kk x (coils·n) matrix, Z = Q^T E^T holds in column j the
  // coils x n matrix M_j of v_n(u_j), and G(u_j) = M_j M_j^H / k² (the 1/k²: every sample sits in k² patches).
  const Eigen::Map<const MatXcd> Q(V.data(), kk, static_cast<Eigen::Index>(coils) * n);
  const MatXcd Z = Q.transpose() * E.transpose();
  const std::size_t cc = static_cast<std::size_t>(coils) * coils;
  g.gram.resize(cc * S * S);
  for (int j = 0; j < S * S; ++j) {
    const Eigen::Map<const MatXcd> M(Z.col(j).data(), coils, n);
    Eigen::Map<MatXcd> G(g.gram.data() + cc * j, coils, coils);
    G.noalias() = M * M.adjoint() / static_cast<double>(kk);
  }
  return g;
}

}  // namespace mrwb::espirit
