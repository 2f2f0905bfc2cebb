// Kaiser-Bessel gridding and its forward twin (Jackson et al. 1991; beta of Beatty et al. 2005), with
// Pipe-Menon (1999) and analytic radial density compensation.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <span>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"
#include "mrwb/recon/gridding.hpp"

namespace mrwb::noncart {
namespace {

// Centred in-place DFT of a G^D grid: out[p] = sum_g in[g] e^{sign i 2 pi (g - G/2)(p - G/2)/G}.
// With G even the centring is a roll by G/2 before and after (the checkerboard trick would also do).
void centred_dft(std::vector<cdouble>& a, int dims, int G, int sign) {
  const std::size_t total = a.size();
  auto roll = [&] {
    std::vector<cdouble> b(total);
    const int h = G / 2;
    const int zn = dims == 3 ? G : 1;
    for (int z = 0; z < zn; ++z)
      for (int y = 0; y < G; ++y)
        for (int x = 0; x < G; ++x) {
          const std::size_t src = (static_cast<std::size_t>(z) * G + y) * G + x;
          const int zz = dims == 3 ? (z + h) % G : 0;
          b[(static_cast<std::size_t>(zz) * G + (y + h) % G) * G + (x + h) % G] = a[src];
        }
    a.swap(b);
  };
  roll();
  auto* p = reinterpret_cast<fftw_complex*>(a.data());
  fftw_plan plan;
  {
    std::lock_guard lock(fftw_planner_mutex());
    plan = dims == 3 ? fftw_plan_dft_3d(G, G, G, p, p, sign, FFTW_ESTIMATE)
                     : fftw_plan_dft_2d(G, G, p, p, sign, FFTW_ESTIMATE);
  }
  fftw_execute(plan);
  {
    std::lock_guard lock(fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }
  roll();
}

// The interpolation kernel: Kaiser-Bessel, or the seeds' linear interpolation (width 2 cells).
struct Kernel {
  const KaiserBessel& kb;
  bool linear;
  double width() const { return linear ? 2.0 : kb.width; }
  double operator()(double u) const { return linear ? std::max(0.0, 1.0 - std::abs(u)) : kb(u); }
};

// Kernel window of one sample along one axis: first cell and W+1 weights.
struct Window {
  int first = 0, count = 0;
  double w[17];
};
Window window(const Kernel& kb, double u) {
  Window win;
  win.first = static_cast<int>(std::ceil(u - kb.width() / 2));
  const int last = static_cast<int>(std::floor(u + kb.width() / 2));
  win.count = std::min(17, last - win.first + 1);
  for (int i = 0; i < win.count; ++i) win.w[i] = kb(win.first + i - u);
  return win;
}

template <typename F>
void for_each_cell(const Kernel& kb, int dims, int G, double scale, const float* km, F&& f) {
  Window win[3];
  for (int d = 0; d < dims; ++d) win[d] = window(kb, km[d] * scale + G / 2);
  const int zc = dims == 3 ? win[2].count : 1;
  for (int iz = 0; iz < zc; ++iz) {
    const double wz = dims == 3 ? win[2].w[iz] : 1.0;
    const int gz = dims == 3 ? ((win[2].first + iz) % G + G) % G : 0;
    for (int iy = 0; iy < win[1].count; ++iy) {
      const double wyz = wz * win[1].w[iy];
      const int gy = ((win[1].first + iy) % G + G) % G;
      const std::size_t row = (static_cast<std::size_t>(gz) * G + gy) * G;
      for (int ix = 0; ix < win[0].count; ++ix) {
        const int gx = ((win[0].first + ix) % G + G) % G;
        f(row + gx, wyz * win[0].w[ix]);
      }
    }
  }
}

}  // namespace

KaiserBessel::KaiserBessel(double w, double os) : width(w), oversampling(os) {
  if (!(os >= 1.25 && os <= 2.0)) throw InputError("gridding oversampling " + std::to_string(os) + ": allowed 1.25 .. 2");
  if (!(w >= 2.0 && w <= 8.0)) throw InputError("gridding kernel width " + std::to_string(w) + ": allowed 2 .. 8 cells");
  const double a = (w / os) * (w / os) * (os - 0.5) * (os - 0.5) - 0.8;
  beta = M_PI * std::sqrt(std::max(a, 0.1));
}

// I0(x) by its power series sum_k ((x/2)^k / k!)^2 (Abramowitz & Stegun 9.6.12), all terms positive, so it
// stops at double rounding: the kernel's beta keeps x below ~20 (width 8, oversampling 2), under 45 terms.
// libstdc++'s std::cyl_bessel_i took 46 % of a 256^2 gridded CG (about 250 ns a call).
double bessel_i0(double x) {
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 200 && term > 1e-17 * sum; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
  }
  return sum;
}

double KaiserBessel::operator()(double u) const {
  const double t = 2.0 * u / width;
  if (std::abs(t) > 1.0) return 0.0;
  return bessel_i0(beta * std::sqrt(1.0 - t * t));
}

double KaiserBessel::ft(double f) const {
  const double a = beta * beta - (M_PI * width * f) * (M_PI * width * f);
  if (a > 1e-12) return width * std::sinh(std::sqrt(a)) / std::sqrt(a);
  if (a < -1e-12) return width * std::sin(std::sqrt(-a)) / std::sqrt(-a);
  return width;
}

int oversampled_size(int n, double os) { return 2 * static_cast<int>(std::ceil(os * n / 2.0 - 1e-9)); }

Gridder::Gridder(const Grid& g, const GriddingParams& p)
    : g_(g), p_(p), kb_(p.width, p.oversampling), G_(oversampled_size(g.n, p.oversampling)) {
  if (p.kernel != "kaiser-bessel" && p.kernel != "bilinear")
    throw InputError("gridding kernel '" + p.kernel + "' (allowed: kaiser-bessel, bilinear)");
  linear_ = p.kernel == "bilinear";
  if (linear_) G_ = g.n;  // the seeds' baseline: no oversampling, no deapodisation
  deapod_.resize(g.n);
  for (int i = 0; i < g.n; ++i) deapod_[i] = linear_ ? 1.0 : 1.0 / kb_.ft(static_cast<double>(i - g.n / 2) / G_);
}

std::vector<cdouble> Gridder::adjoint(const float* k, const cfloat* d, const float* w, std::size_t M) const {
  const int D = g_.dims;
  std::size_t total = 1;
  for (int i = 0; i < D; ++i) total *= G_;
  std::vector<cdouble> grid(total);
  const double scale = static_cast<double>(G_) / g_.n;
  for (std::size_t m = 0; m < M; ++m) {
    const cdouble v = cdouble(d[m]) * (w ? static_cast<double>(w[m]) : 1.0);
    for_each_cell(Kernel{kb_, linear_}, D, G_, scale, k + m * D, [&](std::size_t c, double wt) { grid[c] += wt * v; });
  }
  centred_dft(grid, D, G_, FFTW_BACKWARD);
  std::vector<cdouble> out(g_.voxels());
  const int n = g_.n, off = G_ / 2 - n / 2;
  const int zn = D == 3 ? n : 1;
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const std::size_t src = D == 3 ? (static_cast<std::size_t>(z + off) * G_ + y + off) * G_ + x + off
                                       : static_cast<std::size_t>(y + off) * G_ + x + off;
        const double dz = D == 3 ? deapod_[z] : 1.0;
        out[(static_cast<std::size_t>(z) * n + y) * n + x] = grid[src] * (deapod_[x] * deapod_[y] * dz);
      }
  return out;
}

std::vector<cfloat> Gridder::forward(const float* k, const cdouble* img, std::size_t M) const {
  const int D = g_.dims;
  std::size_t total = 1;
  for (int i = 0; i < D; ++i) total *= G_;
  std::vector<cdouble> grid(total);
  const int n = g_.n, off = G_ / 2 - n / 2;
  const int zn = D == 3 ? n : 1;
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const std::size_t dst = D == 3 ? (static_cast<std::size_t>(z + off) * G_ + y + off) * G_ + x + off
                                       : static_cast<std::size_t>(y + off) * G_ + x + off;
        const double dz = D == 3 ? deapod_[z] : 1.0;
        grid[dst] = img[(static_cast<std::size_t>(z) * n + y) * n + x] * (deapod_[x] * deapod_[y] * dz);
      }
  centred_dft(grid, D, G_, FFTW_FORWARD);
  std::vector<cfloat> out(M);
  const double scale = static_cast<double>(G_) / g_.n;
  for (std::size_t m = 0; m < M; ++m) {
    cdouble acc{};
    for_each_cell(Kernel{kb_, linear_}, D, G_, scale, k + m * D, [&](std::size_t c, double wt) { acc += wt * grid[c]; });
    out[m] = cfloat(acc);
  }
  return out;
}

std::vector<double> Gridder::spread_weights(const float* k, const double* w, std::size_t M) const {
  const int D = g_.dims;
  std::size_t total = 1;
  for (int i = 0; i < D; ++i) total *= G_;
  std::vector<double> grid(total);
  const double scale = static_cast<double>(G_) / g_.n;
  for (std::size_t m = 0; m < M; ++m)
    for_each_cell(Kernel{kb_, linear_}, D, G_, scale, k + m * D, [&](std::size_t c, double wt) { grid[c] += wt * w[m]; });
  return grid;
}

std::vector<double> Gridder::interpolate_weights(const float* k, const std::vector<double>& grid, std::size_t M) const {
  const int D = g_.dims;
  const double scale = static_cast<double>(G_) / g_.n;
  std::vector<double> out(M);
  for (std::size_t m = 0; m < M; ++m) {
    double acc = 0;
    for_each_cell(Kernel{kb_, linear_}, D, G_, scale, k + m * D, [&](std::size_t c, double wt) { acc += wt * grid[c]; });
    out[m] = acc;
  }
  return out;
}

double band_area(const Samples& s) {
  double r2 = 0, zmin = 0, zmax = 0;
  for (std::size_t m = 0; m < s.count(); ++m) {
    const float* km = &s.k[m * s.dims];
    r2 = std::max(r2, static_cast<double>(km[0]) * km[0] + static_cast<double>(km[1]) * km[1]);
    if (s.dims == 3) zmin = std::min(zmin, static_cast<double>(km[2])), zmax = std::max(zmax, static_cast<double>(km[2]));
  }
  const double area = M_PI * r2;
  return s.dims == 3 ? area * (zmax - zmin + 1.0) : area;
}

void normalise_to_band(std::vector<float>& w, const Samples& s) {
  const double area = band_area(s);
  double sum = 0;
  for (float v : w) sum += v;
  if (sum > 0)
    for (auto& v : w) v = static_cast<float>(v * area / sum);
}

std::vector<float> density_radial(const Samples& s) {
  const std::size_t M = s.count();
  std::vector<float> w(M);
  double rmin = 1e300;
  for (std::size_t m = 0; m < M; ++m) {
    const double r = std::hypot(s.k[m * s.dims], s.k[m * s.dims + 1]);
    w[m] = static_cast<float>(r);
    if (r > 1e-9) rmin = std::min(rmin, r);
  }
  // The k = 0 sample stands for a disc of radius dk/2 shared by all spokes: |k|-equivalent dk/4.
  for (auto& v : w)
    if (v <= 1e-9f) v = static_cast<float>(rmin / 4);
  normalise_to_band(w, s);
  return w;
}

std::vector<float> density_pipe_menon(const Grid& g, const Samples& s, const GriddingParams& p) {
  return density_pipe_menon(g, s, p, 0, s.count(), nullptr);
}

std::vector<float> density_pipe_menon(const Grid& g, const Samples& s, const GriddingParams& p, std::size_t begin,
                                      std::size_t end, RankComm* comm) {
  const Gridder gr(g, p);
  const float* k = s.k.data() + begin * s.dims;
  const std::size_t M = end - begin;
  std::vector<double> w(M, 1.0);
  for (int it = 0; it < p.pipe_menon_iterations; ++it) {
    std::vector<double> grid = gr.spread_weights(k, w.data(), M);
    if (comm) comm->sum_in_rank_order(std::span<double>(grid));
    const std::vector<double> c = gr.interpolate_weights(k, grid, M);
    for (std::size_t m = 0; m < M; ++m) w[m] = c[m] > 0 ? w[m] / c[m] : 0.0;
  }
  std::vector<float> out(w.begin(), w.end());
  double sum = 0;
  for (float v : out) sum += v;
  if (comm) comm->sum_in_rank_order(std::span<double>(&sum, 1));
  const double area = band_area(s);
  if (sum > 0)
    for (auto& v : out) v = static_cast<float>(v * area / sum);  // normalise_to_band over every rank's
  return out;
}

std::vector<float> density_compensation(const Grid& g, const Samples& s, const GriddingParams& p) {
  if (p.density == "pipe-menon") return density_pipe_menon(g, s, p);
  if (p.density == "voronoi") return density_voronoi(s);
  if (p.density == "radial") return density_radial(s);
  if (p.density == "none") return {};
  throw InputError("gridding density '" + p.density + "' (allowed: pipe-menon, voronoi, radial, none)");
}

std::vector<cdouble> gridding_recon(const Grid& g, const float* k, const cfloat* d, std::size_t M,
                                    const std::vector<float>& w, const GriddingParams& p) {
  return Gridder(g, p).adjoint(k, d, w.empty() ? nullptr : w.data(), M);
}

std::vector<cdouble> gridded_fhd(const Grid& g, const float* k, const cfloat* d, std::size_t M,
                                 const GriddingParams& p) {
  auto v = Gridder(g, p).adjoint(k, d, nullptr, M);
  for (auto& x : v) x *= g.phi();
  return v;
}

std::vector<cdouble> gridded_q(const Grid& g, const float* k, std::size_t M, const GriddingParams& p) {
  // Q on the 2n grid is an adjoint NUFFT onto a grid of 2n voxels of the same size: k' = 2k there.
  const Grid g2 = g.doubled();
  std::vector<float> k2(k, k + M * g.dims);
  for (auto& v : k2) v *= 2.0f;
  const std::vector<cfloat> ones(M, cfloat(1.0f, 0.0f));
  auto q = Gridder(g2, p).adjoint(k2.data(), ones.data(), nullptr, M);
  const double phi2 = g.phi() * g.phi();
  for (auto& x : q) x *= phi2;
  return q;
}

}  // namespace mrwb::noncart
