#include "mrwb/recon/wavelet.hpp"

#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

using cdouble = std::complex<double>;
using cfloat = std::complex<float>;

std::vector<double> daubechies(int taps) {
  switch (taps) {
    case 2: return {1 / std::sqrt(2.0), 1 / std::sqrt(2.0)};
    case 4: {
      const double s3 = std::sqrt(3.0), d = 4 * std::sqrt(2.0);
      return {(1 + s3) / d, (3 + s3) / d, (3 - s3) / d, (1 - s3) / d};
    }
    case 8:
      return {0.23037781330885523, 0.7148465705525415,   0.6308807679295904,  -0.02798376941698385,
              -0.18703481171888114, 0.030841381835986965, 0.032883011666982945, -0.010597401784997278};
    default:
      throw InputError("wavelet: taps = " + std::to_string(taps) + " (allowed: 2, 4 or 8)");
  }
}

// One periodic analysis step on m values at stride s: [a_0 .. a_{m/2−1}, d_0 .. d_{m/2−1}].
void analyse(cfloat* p, std::ptrdiff_t s, int m, const std::vector<double>& h, const std::vector<double>& g,
             std::vector<cdouble>& in) {
  in.resize(m);
  for (int i = 0; i < m; ++i) in[i] = cdouble(p[i * s]);
  const int L = static_cast<int>(h.size()), half = m / 2;
  for (int k = 0; k < half; ++k) {
    cdouble a = 0, d = 0;
    for (int j = 0; j < L; ++j) {
      const cdouble v = in[(2 * k + j) % m];
      a += h[j] * v;
      d += g[j] * v;
    }
    p[k * s] = cfloat(a);
    p[(half + k) * s] = cfloat(d);
  }
}

// Its transpose (= inverse): x[(2k + j) mod m] += h_j a_k + g_j d_k.
void synthesise(cfloat* p, std::ptrdiff_t s, int m, const std::vector<double>& h, const std::vector<double>& g,
                std::vector<cdouble>& out) {
  out.assign(m, 0.0);
  const int L = static_cast<int>(h.size()), half = m / 2;
  for (int k = 0; k < half; ++k) {
    const cdouble a = cdouble(p[k * s]), d = cdouble(p[(half + k) * s]);
    for (int j = 0; j < L; ++j) out[(2 * k + j) % m] += h[j] * a + g[j] * d;
  }
  for (int i = 0; i < m; ++i) p[i * s] = cfloat(out[i]);
}

}  // namespace

int max_wavelet_levels(int nx, int ny, int taps) {
  int levels = 0;
  while (nx % 2 == 0 && ny % 2 == 0 && nx >= taps && ny >= taps && nx >= 2 && ny >= 2) {
    ++levels;
    nx /= 2;
    ny /= 2;
  }
  return levels;
}

Wavelet2D::Wavelet2D(int nx, int ny, int taps, int levels) : nx_(nx), ny_(ny), h_(daubechies(taps)) {
  if (nx < 1 || ny < 1)
    throw InputError("wavelet: size " + std::to_string(nx) + " x " + std::to_string(ny) + " (allowed: >= 1 each)");
  const int most = max_wavelet_levels(nx, ny, taps);
  levels_ = levels < 0 ? most : levels;
  if (levels_ > most)
    throw InputError("wavelet: levels = " + std::to_string(levels) + " for " + std::to_string(nx) + " x " +
                     std::to_string(ny) + " with " + std::to_string(taps) + " taps (allowed: 0 .. " +
                     std::to_string(most) + ")");
  const int L = static_cast<int>(h_.size());
  g_.resize(L);
  for (int j = 0; j < L; ++j) g_[j] = (j % 2 ? -1.0 : 1.0) * h_[L - 1 - j];
}

void Wavelet2D::forward(std::vector<cfloat>& data) const {
  std::vector<cdouble> tmp;
  int mx = nx_, my = ny_;
  for (int l = 0; l < levels_; ++l) {
    for (int y = 0; y < my; ++y) analyse(data.data() + static_cast<std::size_t>(y) * nx_, 1, mx, h_, g_, tmp);
    for (int x = 0; x < mx; ++x) analyse(data.data() + x, nx_, my, h_, g_, tmp);
    mx /= 2;
    my /= 2;
  }
}

void Wavelet2D::inverse(std::vector<cfloat>& data) const {
  std::vector<cdouble> tmp;
  for (int l = levels_ - 1; l >= 0; --l) {
    const int mx = nx_ >> l, my = ny_ >> l;
    for (int x = 0; x < mx; ++x) synthesise(data.data() + x, nx_, my, h_, g_, tmp);
    for (int y = 0; y < my; ++y) synthesise(data.data() + static_cast<std::size_t>(y) * nx_, 1, mx, h_, g_, tmp);
  }
}

}  // namespace mrwb
