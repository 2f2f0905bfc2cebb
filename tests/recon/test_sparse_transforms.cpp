// The sparsifying transforms of compressed sensing: the periodic Daubechies wavelet (recon/wavelet.hpp)
// reconstructs exactly, preserves energy (orthonormal) and its adjoint is its inverse, for 2, 4 and 8 taps;
// the TV gradient's adjoint (total_variation.hpp) passes <D x, y> = <x, D^H y>; the isotropic shrinkage
// is the block soft threshold.
#include <QTest>

#include <cmath>
#include <random>

#include "adjoint_check.hpp"
#include "input_error.hpp"
#include "mrwb/recon/total_variation.hpp"
#include "mrwb/recon/wavelet.hpp"
#include "numeric.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

cdouble dot(const std::vector<cfloat>& a, const std::vector<cfloat>& b) {
  cdouble s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::conj(cdouble(a[i])) * cdouble(b[i]);
  return s;
}

double energy(const std::vector<cfloat>& a) { return dot(a, a).real(); }

}  // namespace

class TestSparseTransforms : public QObject {
  Q_OBJECT
 private slots:
  void waveletExactAndOrthonormal_data() {
    QTest::addColumn<int>("nx");
    QTest::addColumn<int>("ny");
    QTest::addColumn<int>("taps");
    QTest::newRow("128x128 D4") << 128 << 128 << 4;
    QTest::newRow("128x96 D4") << 128 << 96 << 4;
    QTest::newRow("64x64 Haar") << 64 << 64 << 2;
    QTest::newRow("256x128 D8") << 256 << 128 << 8;
  }
  void waveletExactAndOrthonormal() {
    QFETCH(int, nx);
    QFETCH(int, ny);
    QFETCH(int, taps);
    const Wavelet2D W(nx, ny, taps);
    QVERIFY(W.levels() >= 3);
    const std::size_t n = static_cast<std::size_t>(nx) * ny;
    const auto x = mrwb::test::complex_noise(n, 1);
    auto c = x;
    W.forward(c);
    const double energy_err = std::abs(energy(c) / energy(x) - 1);
    auto back = c;
    W.inverse(back);
    double diff = 0;
    for (std::size_t i = 0; i < n; ++i) diff += std::norm(cdouble(back[i] - x[i]));
    const double err = std::sqrt(diff / energy(x));  // relative RMS
    // Adjoint = inverse: <W x, y> = <x, W^-1 y>.
    const double adj = mrwb::test::check_adjoint([&](std::vector<cfloat> v) { W.forward(v); return v; },
                                                 [&](std::vector<cfloat> v) { W.inverse(v); return v; }, n, n, 1);
    // The filter: sum h = sqrt 2, sum h² = 1.
    double sh = 0, sh2 = 0;
    for (double h : W.scaling_filter()) sh += h, sh2 += h * h;
    qInfo("%dx%d, %d taps, %d levels: relative RMS of W^-1 W x − x %.2e, energy ratio − 1 %.2e, adjoint mismatch %.2e, "
          "sum h − sqrt2 %.1e, sum h² − 1 %.1e", nx, ny, taps, W.levels(), err, energy_err, adj, sh - std::sqrt(2.0), sh2 - 1);
    QVERIFY(err < 1e-6);
    QVERIFY(energy_err < 1e-6);
    QVERIFY(adj < 1e-6);
    QVERIFY(std::abs(sh - std::sqrt(2.0)) < 1e-12 && std::abs(sh2 - 1) < 1e-12);
  }

  // A smooth image compresses: the detail bands of D4 hold almost nothing of a linear ramp (2 vanishing
  // moments), while Haar leaves a measurable part there.
  void vanishingMoments() {
    const int n = 64;
    std::vector<cfloat> ramp(n * n);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) ramp[y * n + x] = float(std::sin(2 * M_PI * x / n) + std::cos(2 * M_PI * y / n));
    auto detail_fraction = [&](int taps) {
      const Wavelet2D W(n, n, taps, 1);
      auto c = ramp;
      W.forward(c);
      double d = 0;
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
          if (x >= n / 2 || y >= n / 2) d += std::norm(c[y * n + x]);
      return d / energy(ramp);
    };
    const double haar = detail_fraction(2), d4 = detail_fraction(4), d8 = detail_fraction(8);
    qInfo("64^2 smooth image, one level: detail-band energy fraction Haar %.2e, D4 %.2e, D8 %.2e", haar, d4, d8);
    QVERIFY(d4 < haar / 10);
    QVERIFY(d8 < d4);
  }

  void waveletRefusals() {
    const QString taps = mrwb::test::input_error([] { Wavelet2D(64, 64, 6); });
    QVERIFY2(taps.contains("taps = 6") && taps.contains("allowed"), qPrintable(taps));
    const QString levels = mrwb::test::input_error([] { Wavelet2D(96, 64, 4, 6); });
    QVERIFY2(levels.contains("levels = 6") && levels.contains("allowed: 0 .. 5"), qPrintable(levels));
    QCOMPARE(max_wavelet_levels(96, 64, 4), 5);  // 96 -> 48 -> 24 -> 12 -> 6 -> 3, 64 -> 2
    QCOMPARE(max_wavelet_levels(60, 60, 4), 2);  // 60 -> 30 -> 15
  }

  void tvAdjoint() {
    const int nx = 70, ny = 50;
    const std::size_t n = std::size_t(nx) * ny;
    const double rel = mrwb::test::check_adjoint([&](const std::vector<cfloat>& x) { return tv_gradient(x, nx, ny); },
                                                 [&](const std::vector<cfloat>& g) { return tv_gradient_adjoint(g, nx, ny); },
                                                 n, 2 * n, 3);
    qInfo("TV 70x50: <Dx, g> vs <x, D^H g> relative mismatch %.2e", rel);
    QVERIFY(rel < 1e-6);
    // A constant image has no variation; a unit step along x has TV = its edge length (periodic: 2 edges).
    std::vector<cfloat> c(std::size_t(nx) * ny, cfloat(3, 1));
    QVERIFY(tv_norm(c, nx, ny) < 1e-9);
    for (int y = 0; y < ny; ++y)
      for (int x0 = 0; x0 < nx / 2; ++x0) c[y * nx + x0] += 1.0f;
    QCOMPARE(tv_norm(c, nx, ny), 2.0 * ny);
  }

  void isotropicShrinkage() {
    std::vector<cfloat> g = {cfloat(3, 0), cfloat(0.1f, 0), cfloat(0, 4), cfloat(0, 0.1f)};  // two pixels
    shrink_isotropic(g, 2, 1, 1.0f);
    // Pixel 0: |(3, 4i)| = 5 -> scaled by 1 − 1/5; pixel 1: |(0.1, 0.1i)| < 1 -> 0.
    QVERIFY(std::abs(g[0] - cfloat(2.4f, 0)) < 1e-6f && std::abs(g[2] - cfloat(0, 3.2f)) < 1e-6f);
    QVERIFY(g[1] == cfloat() && g[3] == cfloat());
  }
};

QTEST_GUILESS_MAIN(TestSparseTransforms)
#include "test_sparse_transforms.moc"
