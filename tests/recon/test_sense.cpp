// SENSE unfolding (recon/sense.hpp; Pruessmann et al. 1999) of an object seen by the simulator's loop coils:
// without noise it returns the object at R = 2, 3, 4; at R = 1 the g-factor is 1; the analytic g-factor
// agrees with the pseudo-multiple-replica estimate (Robson et al. 2008: the data reconstructed with many draws
// of white k-space noise, g = sigma_R / (sigma_1 · sqrt(R)) per pixel) within 5 % over the object.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb/recon/undersample.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;

namespace {

constexpr int kN = 60, kCoils = 8;  // 60 lines: R = 2, 3 and 4 divide them
constexpr double kFov = 0.2;

// An ellipse of 1 with two brighter discs and a darker one, and a phase ramp: a complex object.
std::vector<cfloat> object() {
  std::vector<cfloat> im(kN * kN);
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      const double u = (x - kN / 2) / (0.42 * kN), v = (y - kN / 2) / (0.40 * kN);
      if (u * u + v * v > 1) continue;
      double m = 1;
      if (std::hypot(x - 22, y - 28) < 5) m = 2;
      if (std::hypot(x - 38, y - 33) < 4) m = 1.5;
      if (std::hypot(x - 30, y - 20) < 3) m = 0.4;
      im[y * kN + x] = std::polar(static_cast<float>(m), static_cast<float>(0.02 * x));
    }
  return im;
}

bool inside(const std::vector<cfloat>& obj, std::size_t i) { return std::abs(obj[i]) > 0; }

double relative_rms_inside(const std::vector<cfloat>& a, const std::vector<cfloat>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (inside(ref, i)) {
      num += std::norm(a[i] - ref[i]);
      den += std::norm(ref[i]);
    }
  return std::sqrt(num / den);
}

RawData coil_data(const std::vector<cfloat>& maps, int R) {
  RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
  if (R > 1) undersample_cartesian(raw, R, 8);  // 8 ACS lines, some off the comb: SENSE leaves those out
  return raw;
}

// Per-pixel noise standard deviation of `replicas` unfoldings with white k-space noise of sigma 1.
std::vector<double> replica_sigma(const RawData& raw, const std::vector<cfloat>& maps, int replicas) {
  const std::size_t plane = static_cast<std::size_t>(kN) * kN;
  std::vector<double> sum2(plane);
  const auto psi = coil_noise_covariance(kCoils, 0.0);
  const SenseResult clean = sense_unfold(raw, maps);
  for (int r = 0; r < replicas; ++r) {
    RawData noisy = raw;
    add_correlated_noise(noisy, psi, 1.0, 0, 1000u + r);  // acquired samples only
    const SenseResult s = sense_unfold(noisy, maps);
    for (std::size_t i = 0; i < plane; ++i) sum2[i] += std::norm(std::complex<double>(s.image.data[i] - clean.image.data[i]));
  }
  std::vector<double> sigma(plane);
  for (std::size_t i = 0; i < plane; ++i) sigma[i] = std::sqrt(sum2[i] / replicas);
  return sigma;
}

}  // namespace

class TestSense : public QObject {
  Q_OBJECT
 private slots:
  void unfoldsTheObject_data() {
    QTest::addColumn<int>("R");
    QTest::newRow("R=1") << 1;
    QTest::newRow("R=2") << 2;
    QTest::newRow("R=3") << 3;
    QTest::newRow("R=4") << 4;
  }
  void unfoldsTheObject() {
    QFETCH(int, R);
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const SenseResult s = sense_unfold(coil_data(maps, R), maps);
    const double err = relative_rms_inside(s.image.data, object());
    double gmax = 0, gmin = 1e9;
    for (std::size_t i = 0; i < s.gfactor.size(); ++i)
      if (inside(object(), i)) gmax = std::max(gmax, double(s.gfactor[i])), gmin = std::min(gmin, double(s.gfactor[i]));
    qInfo("R = %d: relative RMS error inside the object %.2e; g over the object %.4f .. %.4f", R, err, gmin, gmax);
    QVERIFY(err < 1e-4);
    QVERIFY(gmin >= 1.0 - 1e-6);
    if (R == 1) QVERIFY(gmax <= 1.0 + 1e-6);
    else QVERIFY(gmax > 1.01);
  }

  // Robson et al. 2008's pseudo-multiple replica against the analytic g: mean over the object within 5 %.
  void analyticGMatchesPseudoReplica_data() {
    QTest::addColumn<int>("R");
    QTest::newRow("R=2") << 2;
    QTest::newRow("R=3") << 3;
    QTest::newRow("R=4") << 4;
  }
  void analyticGMatchesPseudoReplica() {
    QFETCH(int, R);
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const int replicas = 300;
    const std::vector<double> sigma1 = replica_sigma(coil_data(maps, 1), maps, replicas);
    const RawData under = coil_data(maps, R);
    const std::vector<double> sigmaR = replica_sigma(under, maps, replicas);
    const SenseResult s = sense_unfold(under, maps);
    const auto obj = object();
    double analytic = 0, replica = 0;
    int n = 0;
    for (std::size_t i = 0; i < obj.size(); ++i)
      if (inside(obj, i)) {
        analytic += s.gfactor[i];
        replica += sigmaR[i] / (sigma1[i] * std::sqrt(double(R)));
        ++n;
      }
    analytic /= n;
    replica /= n;
    qInfo("R = %d: mean g over the object analytic %.4f, pseudo-replica (%d replicas) %.4f (%+.2f %%)", R, analytic,
          replicas, replica, 100 * (replica / analytic - 1));
    QVERIFY(std::abs(replica / analytic - 1) < 0.05);
  }

  void refusesWhatItCannotUnfold() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    auto refused = [&](RawData raw, const std::vector<cfloat>& m, const char* what) {
      try {
        sense_unfold(raw, m);
        QFAIL(what);
      } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith("sense: ") && QString(e.what()).contains("allowed"), e.what());
      }
    };
    refused(coil_data(maps, 2), std::vector<cfloat>(maps.begin(), maps.begin() + kN * kN), "maps of one coil");
    RawData r7 = coil_data(maps, 1);
    r7.accel_R = 7;  // does not divide 60
    refused(r7, maps, "R = 7");
    RawData r9 = coil_data(maps, 1);
    r9.accel_R = 9 + kCoils;
    refused(r9, maps, "R above the coil count");
    RawData gap = coil_data(maps, 2);
    gap.line_flags[gap.k0_line() + 2] = 0;  // a comb line missing
    refused(gap, maps, "a missing comb line");
  }
};

QTEST_GUILESS_MAIN(TestSense)
#include "test_sense.moc"
