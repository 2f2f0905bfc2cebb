// F^H F by Toeplitz embedding (Stone et al. 2008): (F^H F rho)_p = sum_p' Q(x_p - x_p') rho_p', a linear
// convolution that the 2n grid holds without wrap-around, so it is a circular one there: FFTW, double.
// Also what the preconditioners build on Q: its circulant eigenvalues and the coil power that scales it.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "mrwb/base/fft.hpp"
#include "mrwb/recon/noncart_toeplitz.hpp"
#include "mrwb/recon/noncart_regularizer.hpp"

namespace mrwb::noncart {

// At namespace scope, not in the anonymous namespace: ToeplitzNormal::Impl holds one, and a member's type must
// not have internal linkage.
struct ToeplitzBuffer {
  fftw_complex* p = nullptr;
  explicit ToeplitzBuffer(std::size_t n) : p(static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n))) {
    if (!p) throw std::runtime_error("toeplitz: out of memory");
  }
  ~ToeplitzBuffer() { fftw_free(p); }
  cdouble* c() { return reinterpret_cast<cdouble*>(p); }
};

namespace {

fftw_plan plan(const Grid& g, fftw_complex* buf, int sign) {
  std::lock_guard lock(fftw_planner_mutex());
  fftw_plan_threads_locked(g.voxels());  // the CG applies it twice an iteration: worth every core
  fftw_plan p = g.dims == 3 ? fftw_plan_dft_3d(g.n, g.n, g.n, buf, buf, sign, FFTW_ESTIMATE)
                            : fftw_plan_dft_2d(g.n, g.n, buf, buf, sign, FFTW_ESTIMATE);
  fftw_plan_threads_locked(0);  // other plans stay single-threaded
  return p;
}
void destroy(fftw_plan p) {
  std::lock_guard lock(fftw_planner_mutex());
  fftw_destroy_plan(p);
}

std::size_t idx(const Grid& g, int x, int y, int z) {
  return g.dims == 3 ? (static_cast<std::size_t>(z) * g.n + y) * g.n + x : static_cast<std::size_t>(y) * g.n + x;
}

}  // namespace

struct ToeplitzNormal::Impl {
  Grid g2;
  ToeplitzBuffer buf;
  std::vector<cdouble> qhat;  // FFT of Q arranged circularly, divided by (2n)^D
  fftw_plan fwd, bwd;
  explicit Impl(const Grid& g) : g2(g.doubled()), buf(g2.voxels()) {
    fwd = plan(g2, buf.p, FFTW_FORWARD);
    bwd = plan(g2, buf.p, FFTW_BACKWARD);
  }
  ~Impl() {
    destroy(fwd);
    destroy(bwd);
  }
};

ToeplitzNormal::ToeplitzNormal(const Grid& g, const std::vector<cdouble>& q) : g_(g), impl_(new Impl(g)), q_(q) {
  const Grid& g2 = impl_->g2;
  if (q.size() != g2.voxels()) throw std::invalid_argument("toeplitz: Q must have (2n)^D values");
  const int n2 = g2.n, n = g.n;
  const int zn = g.dims == 3 ? n2 : 1;
  cdouble* b = impl_->buf.c();
  // Circular arrangement: offset o = j - n goes to index o mod 2n = (j + n) mod 2n.
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < n2; ++y)
      for (int x = 0; x < n2; ++x)
        b[idx(g2, (x + n) % n2, (y + n) % n2, g.dims == 3 ? (z + n) % n2 : 0)] = q[idx(g2, x, y, z)];
  fftw_execute(impl_->fwd);
  const double norm = 1.0 / static_cast<double>(g2.voxels());
  impl_->qhat.assign(b, b + g2.voxels());
  for (auto& v : impl_->qhat) v *= norm;
}

ToeplitzNormal::~ToeplitzNormal() = default;

void ToeplitzNormal::apply(const cdouble* in, cdouble* out) const {
  const Grid& g2 = impl_->g2;
  cdouble* b = impl_->buf.c();
  std::fill(b, b + g2.voxels(), cdouble{});
  const int zn = g_.dims == 3 ? g_.n : 1;
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < g_.n; ++y)
      for (int x = 0; x < g_.n; ++x) b[idx(g2, x, y, z)] = in[idx(g_, x, y, z)];
  fftw_execute(impl_->fwd);
  for (std::size_t i = 0; i < g2.voxels(); ++i) b[i] *= impl_->qhat[i];
  fftw_execute(impl_->bwd);
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < g_.n; ++y)
      for (int x = 0; x < g_.n; ++x) out[idx(g_, x, y, z)] = b[idx(g2, x, y, z)];
}

std::vector<double> ToeplitzNormal::circulant_eigenvalues() const { return chan_circulant_eigenvalues(g_, q_); }

std::vector<double> chan_circulant_eigenvalues(const Grid& g, const std::vector<cdouble>& q) {
  // T. Chan's optimal circulant: c[w] = sum over o = w, w - n per axis of prod (n - |o|)/n * Q(o).
  const int n = g.n;
  const Grid g2 = g.doubled();
  if (q.size() != g2.voxels()) throw std::invalid_argument("circulant: Q must have (2n)^D values");
  ToeplitzBuffer c(g.voxels());
  const int zn = g.dims == 3 ? n : 1;
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        cdouble sum{};
        const int w[3] = {x, y, z};
        const int combos = 1 << g.dims;
        for (int cmb = 0; cmb < combos; ++cmb) {
          double weight = 1;
          int j[3] = {0, 0, 0};
          for (int d = 0; d < g.dims; ++d) {
            const int o = (cmb >> d & 1) ? w[d] - n : w[d];
            weight *= static_cast<double>(n - std::abs(o)) / n;
            j[d] = o + n;  // in [0, 2n): o = w - n >= -n, o = w < n
          }
          if (weight > 0) sum += weight * q[idx(g2, j[0], j[1], j[2])];
        }
        c.c()[idx(g, x, y, z)] = sum;
      }
  fftw_plan p = plan(g, c.p, FFTW_FORWARD);
  fftw_execute(p);
  destroy(p);
  std::vector<double> eig(g.voxels());
  for (std::size_t i = 0; i < eig.size(); ++i) eig[i] = c.c()[i].real();
  return eig;
}

std::vector<double> circulant_preconditioner_inverse(const Grid& g, const std::vector<double>& q_eig,
                                                     double mean_coil_power, double lambda, bool finite_difference) {
  const std::vector<double> reg = finite_difference ? fd_circulant_eigenvalues(g) : std::vector<double>(g.voxels(), 1.0);
  std::vector<double> inv(g.voxels());
  double emax = 0;
  for (std::size_t i = 0; i < inv.size(); ++i) {
    inv[i] = q_eig[i] * mean_coil_power + lambda * reg[i];
    emax = std::max(emax, inv[i]);
  }
  // Floor: Q's circulant can have tiny or negative eigenvalues where k-space is unsampled.
  const double scale = 1.0 / static_cast<double>(g.voxels());
  for (auto& v : inv) v = scale / std::max(v, 1e-6 * emax);
  return inv;
}

std::vector<double> coil_power(const Grid& g, const std::vector<cfloat>& sens, int coils) {
  const std::size_t nv = g.voxels();
  if (sens.empty()) return std::vector<double>(nv, 1.0);
  std::vector<double> power(nv, 0.0);
  for (int c = 0; c < coils; ++c)
    for (std::size_t i = 0; i < nv; ++i) power[i] += std::norm(sens[static_cast<std::size_t>(c) * nv + i]);
  return power;
}

}  // namespace mrwb::noncart
