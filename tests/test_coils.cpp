// Receive coils: the uniform option and correlated receiver noise (covariance as asked, whitened by the
// prewhitening). The Biot–Savart loop against the analytic on-axis field is in test_grappa.
#include <QtTest>

#include <cmath>

#include "mrwb/coil_sensitivity.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/noise_prewhitening.hpp"

using namespace mrwb;

class TestCoils : public QObject {
  Q_OBJECT
 private slots:
  void uniformCoilsHaveUnitRootSumOfSquares() {
    const auto s = uniform_coil_sensitivities(8, 16, 16);
    for (std::size_t p = 0; p < 256; ++p) {
      double sos = 0;
      for (int c = 0; c < 8; ++c) sos += std::norm(s[c * 256 + p]);
      QVERIFY(std::abs(sos - 1) < 1e-6);
    }
  }
  void correlatedNoiseHasTheCovariance_data() {
    QTest::addColumn<double>("rho");
    QTest::newRow("white") << 0.0;
    QTest::newRow("rho 0.6") << 0.6;
  }
  void correlatedNoiseHasTheCovariance() {
    QFETCH(double, rho);
    const int nc = 4, n = 64;
    const double sigma = 2;
    RawData raw;
    raw.nx = raw.ny = n;
    raw.ncoils = nc;
    raw.kspace.assign(static_cast<std::size_t>(nc) * n * n, {});
    const auto psi = coil_noise_covariance(nc, rho);
    add_correlated_noise(raw, psi, sigma, 20000, 7);
    // Noise scan (noise_prewhitening.hpp's estimate) and the k-space noise (estimated here): sigma²·Psi.
    const auto scan = noise_covariance(raw);
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j) {
        std::complex<double> k{};
        for (int p = 0; p < n * n; ++p)
          k += std::complex<double>(raw.kspace[i * n * n + p]) * std::conj(std::complex<double>(raw.kspace[j * n * n + p]));
        k /= n * n;
        const std::complex<double> want = sigma * sigma * psi[i * nc + j];
        QVERIFY2(std::abs(scan[i * nc + j] - want) < 0.05 * sigma * sigma, qPrintable(QString("scan %1 %2").arg(i).arg(j)));
        QVERIFY2(std::abs(k - want) < 0.08 * sigma * sigma, qPrintable(QString("k-space %1 %2: %3").arg(i).arg(j).arg(std::abs(k - want))));
      }
    // The prewhitening decorrelates it: equal powers, no cross terms.
    const RawData w = prewhitened(raw);
    const auto white = noise_covariance(w);
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j)
        if (i != j) QVERIFY(std::abs(white[i * nc + j]) < 0.02 * std::abs(white[i * nc + i]));
  }
  void badNoiseCovarianceIsRefused() {
    RawData raw;
    raw.nx = raw.ny = 4;
    raw.ncoils = 2;
    raw.kspace.assign(32, {});
    QVERIFY_THROWS_EXCEPTION(InputError, add_correlated_noise(raw, coil_noise_covariance(3, 0.1), 1, 10, 1));
    QVERIFY_THROWS_EXCEPTION(InputError, add_correlated_noise(raw, {1, 2, 2, 1}, 1, 10, 1));  // not positive definite
    QVERIFY_THROWS_EXCEPTION(InputError, coil_noise_covariance(2, 1.0));
  }
};

QTEST_GUILESS_MAIN(TestCoils)
#include "test_coils.moc"
