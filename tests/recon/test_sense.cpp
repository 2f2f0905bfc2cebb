// SENSE unfolding (recon/sense.hpp; Pruessmann et al. 1999) of an object seen by the simulator's loop coils:
// without noise it returns the object at R = 2, 3, 4; at R = 1 the g-factor is 1 (the analytic g against
// pseudo-multiple replicas: tests/pipeline/test_gfactor_replica.cpp).
#include <QTest>

#include <algorithm>
#include <cmath>

#include "coil_test_object.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb/recon/undersample.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;

namespace {

constexpr int kN = 60, kCoils = 8;  // 60 lines: R = 2, 3 and 4 divide them
constexpr double kFov = 0.2;

std::vector<cfloat> object() { return mrwb_test::coil_test_object(kN); }

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
