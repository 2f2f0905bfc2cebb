#include "mrwb/recon/sense.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"

namespace mrwb {
namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

}  // namespace

bool sense_regular_comb(const RawData& raw) {
  const int R = raw.accel_R;
  if (!raw.cartesian() || raw.volume() || R < 1 || R > raw.ncoils || raw.ny <= 0 || raw.ny % R != 0) return false;
  for (int y = ((raw.k0_line() % R) + R) % R; y < raw.ny; y += R)
    if (!(raw.flags(y) & kLineAcquired)) return false;
  return true;
}

void check_sense_input(const RawData& raw, const std::vector<cfloat>& maps) {
  const std::string src = "sense: ";
  if (!raw.cartesian() || raw.volume())
    throw InputError(src + "needs one slice of Cartesian data (allowed: 2-D Cartesian raw data)");
  if (raw.recon_nx != 0 && raw.recon_nx != raw.nx)
    throw InputError(src + "readout oversampling (recon_nx " + std::to_string(raw.recon_nx) + " of " +
                     std::to_string(raw.nx) + ") is not supported (allowed: recon_nx = nx)");
  const int R = raw.accel_R;
  if (R < 1 || R > raw.ncoils || raw.ny % R != 0)
    throw InputError(src + "R = " + std::to_string(R) + " (allowed: 1 .. coils = " + std::to_string(raw.ncoils) +
                     ", dividing ny = " + std::to_string(raw.ny) + ")");
  const std::size_t plane = static_cast<std::size_t>(raw.nx) * raw.ny;
  if (maps.size() != plane * raw.ncoils)
    throw InputError(src + "maps hold " + std::to_string(maps.size()) + " values (allowed: coils x ny x nx = " +
                     std::to_string(plane * raw.ncoils) + ")");
  check_raw_layout(raw);
}

SenseResult sense_unfold(const RawData& raw, const std::vector<cfloat>& maps) {
  check_sense_input(raw, maps);
  const int nx = raw.nx, ny = raw.ny, C = raw.ncoils, R = raw.accel_R, fold = ny / R;
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  const int y0 = ((raw.k0_line() % R) + R) % R;
  std::vector<bool> comb(ny, false);
  for (int y = y0; y < ny; y += R) {
    if (!(raw.flags(y) & kLineAcquired))
      throw InputError("sense: line " + std::to_string(y) + " of the comb k0 + m*R (R = " + std::to_string(R) +
                       ") is not acquired (allowed: a regular undersampling by R)");
    comb[y] = true;
  }
  // The comb's point spread function along y, with this project's centred transforms: a delta at row 0
  // (column nx/2) through forward DFT, the comb, inverse DFT. The aliasing is circulant: A(y, y') = psf[y − y'].
  std::vector<cdouble> psf(ny);
  {
    std::vector<cfloat> delta(plane);
    delta[nx / 2] = 1.0f;
    std::vector<cfloat> k = centred_fft2(delta.data(), nx, ny);
    for (int y = 0; y < ny; ++y)
      if (!comb[y])
        for (int x = 0; x < nx; ++x) k[static_cast<std::size_t>(y) * nx + x] = {};
    const std::vector<cfloat> a = centred_ifft2(k.data(), nx, ny);
    for (int y = 0; y < ny; ++y) psf[y] = a[static_cast<std::size_t>(y) * nx + nx / 2];
  }
  // Zero-filled coil images of the comb lines only.
  std::vector<std::vector<cfloat>> aliased(C);
  for (int c = 0; c < C; ++c) {
    std::vector<cfloat> k(raw.kspace.begin() + c * plane, raw.kspace.begin() + (c + 1) * plane);
    for (int y = 0; y < ny; ++y)
      if (!comb[y])
        for (int x = 0; x < nx; ++x) k[static_cast<std::size_t>(y) * nx + x] = {};
    aliased[c] = centred_ifft2(k.data(), nx, ny);
  }

  SenseResult out;
  out.image.nx = nx;
  out.image.ny = ny;
  out.image.fov_x_m = raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m;
  out.image.fov_y_m = raw.recon_fov_y_m > 0 ? raw.recon_fov_y_m : raw.fov_y_m;
  out.image.data.assign(plane, {});
  out.gfactor.assign(plane, 0.0f);
  Eigen::MatrixXcd E(C, R);
  Eigen::VectorXcd a(C);
  std::vector<int> rows(R);
  for (int y = 0; y < fold; ++y)
    for (int x = 0; x < nx; ++x) {
      // The R rows that fold onto row y, and which of them any coil sees.
      std::vector<int> seen;
      for (int k = 0; k < R; ++k) {
        rows[k] = y + k * fold;
        double power = 0;
        for (int c = 0; c < C; ++c) power += std::norm(maps[c * plane + static_cast<std::size_t>(rows[k]) * nx + x]);
        if (power > 0) seen.push_back(k);
      }
      if (seen.empty()) continue;
      const int n = static_cast<int>(seen.size());
      E.resize(C, n);
      for (int j = 0; j < n; ++j) {
        const int yk = rows[seen[j]];
        const cdouble w = psf[((y - yk) % ny + ny) % ny];
        for (int c = 0; c < C; ++c)
          E(c, j) = w * cdouble(maps[c * plane + static_cast<std::size_t>(yk) * nx + x]);
      }
      for (int c = 0; c < C; ++c) a(c) = cdouble(aliased[c][static_cast<std::size_t>(y) * nx + x]);
      const Eigen::MatrixXcd EhE = E.adjoint() * E;
      const Eigen::LDLT<Eigen::MatrixXcd> ldlt(EhE);
      const Eigen::VectorXcd rho = ldlt.solve(E.adjoint() * a);
      const Eigen::MatrixXcd inv = ldlt.solve(Eigen::MatrixXcd::Identity(n, n));
      for (int j = 0; j < n; ++j) {
        const std::size_t i = static_cast<std::size_t>(rows[seen[j]]) * nx + x;
        out.image.data[i] = cfloat(rho(j));
        out.gfactor[i] = static_cast<float>(std::sqrt(std::max(0.0, inv(j, j).real() * EhE(j, j).real())));
      }
    }
  return out;
}

Image2D reconstruct_sense(const RawData& raw, const std::vector<cfloat>& maps) {
  SenseResult s = sense_unfold(raw, maps);
  const std::size_t plane = s.image.size();
  for (std::size_t i = 0; i < plane; ++i) {
    double rss = 0;
    for (int c = 0; c < raw.ncoils; ++c) rss += std::norm(maps[c * plane + i]);
    s.image.data[i] *= static_cast<float>(std::sqrt(rss));
  }
  return std::move(s.image);
}

}  // namespace mrwb
