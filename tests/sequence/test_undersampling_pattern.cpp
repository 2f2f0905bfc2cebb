// Variable-density undersampling patterns (sequence/undersampling_pattern.hpp): exact line counts with the
// ACS block inside, denser at the centre than at the edges, the same pattern for the same seed, the
// Poisson-disc gaps kept between every pair of neighbouring lines (1-D) or points (2-D), and refusals.
#include <QTest>

#include <cmath>

#include "input_error.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"

using namespace mrwb;
using mrwb::test::input_error;

namespace {

using Pattern = std::vector<std::uint8_t>;

int acquired(const Pattern& p) {
  int n = 0;
  for (auto f : p) n += (f & kLineAcquired) ? 1 : 0;
  return n;
}

// Every ACS line flagged calibration + imaging + acquired; no line outside it flagged calibration.
bool acs_ok(const Pattern& p, int acs) {
  const int ny = static_cast<int>(p.size()), a0 = ny / 2 - acs / 2;
  for (int y = 0; y < ny; ++y) {
    const bool in = y >= a0 && y < a0 + acs;
    if (in && p[y] != (kLineAcquired | kLineCalibration | kLineImaging)) return false;
    if (!in && (p[y] & kLineCalibration)) return false;
    if (!in && p[y] != 0 && p[y] != (kLineAcquired | kLineImaging)) return false;
  }
  return true;
}

// Fraction of non-ACS lines acquired with line radius in [r0, r1), summed over seeds.
double density(int ny, int acs, double r0, double r1, const std::vector<Pattern>& ps) {
  int hit = 0, all = 0;
  const int a0 = ny / 2 - acs / 2;
  for (const auto& p : ps)
    for (int y = 0; y < ny; ++y) {
      if (y >= a0 && y < a0 + acs) continue;
      const double r = line_radius(y, ny);
      if (r < r0 || r >= r1) continue;
      ++all;
      hit += (p[y] & kLineAcquired) ? 1 : 0;
    }
  return all ? double(hit) / all : 0;
}

}  // namespace

class TestUndersamplingPattern : public QObject {
  Q_OBJECT
 private slots:
  void exactCountsWithAcs_data() {
    QTest::addColumn<int>("ny");
    QTest::addColumn<double>("R");
    QTest::addColumn<int>("acs");
    QTest::newRow("128 R=4 acs 16") << 128 << 4.0 << 16;
    QTest::newRow("128 R=2 acs 24") << 128 << 2.0 << 24;
    QTest::newRow("100 R=2.5 acs 10") << 100 << 2.5 << 10;
    QTest::newRow("63 R=3 acs 7") << 63 << 3.0 << 7;
    QTest::newRow("256 R=6 acs 0") << 256 << 6.0 << 0;
    QTest::newRow("64 R=1 acs 8") << 64 << 1.0 << 8;
  }
  void exactCountsWithAcs() {
    QFETCH(int, ny);
    QFETCH(double, R);
    QFETCH(int, acs);
    const int want = static_cast<int>(std::lround(ny / R));
    QCOMPARE(undersampled_line_count(ny, R), want);
    for (unsigned seed : {1u, 2u, 3u}) {
      const Pattern a = random_lines(ny, R, acs, seed), b = poisson_disc_lines(ny, R, acs, seed);
      QCOMPARE(int(a.size()), ny);
      QCOMPARE(int(b.size()), ny);
      QCOMPARE(acquired(a), want);
      QCOMPARE(acquired(b), want);
      QVERIFY(acs_ok(a, acs));
      QVERIFY(acs_ok(b, acs));
    }
    qInfo("ny %d, R %.1f, ACS %d: %d lines each (random, poisson-disc)", ny, R, acs, want);
  }

  // Lines in the inner half of k-space (outside the ACS) are acquired more often than in the outer half.
  void variableDensity() {
    const int ny = 256, acs = 16;
    std::vector<Pattern> rnd, pd;
    for (unsigned s = 1; s <= 20; ++s) {
      rnd.push_back(random_lines(ny, 4.0, acs, s));
      pd.push_back(poisson_disc_lines(ny, 4.0, acs, s));
    }
    const double ri = density(ny, acs, 0.0, 0.5, rnd), ro = density(ny, acs, 0.5, 1.01, rnd);
    const double pi = density(ny, acs, 0.0, 0.5, pd), po = density(ny, acs, 0.5, 1.01, pd);
    qInfo("ny 256, R 4, ACS 16, 20 seeds: fraction acquired inner half / outer half: random %.3f / %.3f, "
          "poisson-disc %.3f / %.3f", ri, ro, pi, po);
    QVERIFY(ri > 1.5 * ro);
    QVERIFY(pi > 1.3 * po);
  }

  void deterministicPerSeed() {
    QCOMPARE(random_lines(128, 3.0, 12, 7), random_lines(128, 3.0, 12, 7));
    QCOMPARE(poisson_disc_lines(128, 3.0, 12, 7), poisson_disc_lines(128, 3.0, 12, 7));
    QCOMPARE(poisson_disc_mask_2d(48, 32, 4.0, 8, 8, 7), poisson_disc_mask_2d(48, 32, 4.0, 8, 8, 7));
    QVERIFY(random_lines(128, 3.0, 12, 7) != random_lines(128, 3.0, 12, 8));
    QVERIFY(poisson_disc_lines(128, 3.0, 12, 7) != poisson_disc_lines(128, 3.0, 12, 8));
    QVERIFY(poisson_disc_mask_2d(48, 32, 4.0, 8, 8, 7) != poisson_disc_mask_2d(48, 32, 4.0, 8, 8, 8));
  }

  // Neighbouring acquired lines (not both ACS) keep the gap of the more central one.
  void poissonDiscGaps() {
    for (unsigned seed = 1; seed <= 10; ++seed) {
      const int ny = 192, acs = 12;
      double scale = 0;
      const Pattern p = poisson_disc_lines(ny, 4.0, acs, seed, 3.0, &scale);
      QVERIFY(scale > 1.0);
      const int a0 = ny / 2 - acs / 2;
      int prev = -1;
      double worst = 1e9;
      for (int y = 0; y < ny; ++y) {
        if (!(p[y] & kLineAcquired)) continue;
        if (prev >= 0 && !(prev >= a0 && y < a0 + acs)) {
          const double gap = poisson_disc_gap(scale, 3.0, std::min(line_radius(prev, ny), line_radius(y, ny)));
          worst = std::min(worst, (y - prev) / gap);
        }
        prev = y;
      }
      if (seed == 1) qInfo("1-D poisson-disc, ny 192, R 4: scale %.3f lines, smallest gap / required %.3f", scale, worst);
      QVERIFY2(worst >= 1.0 - 1e-9, qPrintable(QString::number(worst)));
    }
  }

  void poissonDisc2d() {
    const int ny = 64, nz = 48, ay = 12, az = 8;
    const double R = 5.0;
    double scale = 0;
    const Pattern m = poisson_disc_mask_2d(ny, nz, R, ay, az, 3, 3.0, &scale);
    QCOMPARE(int(m.size()), ny * nz);
    QCOMPARE(acquired(m), static_cast<int>(std::lround(ny * nz / R)));
    const int y0 = ny / 2 - ay / 2, z0 = nz / 2 - az / 2;
    auto acs = [&](int y, int z) { return y >= y0 && y < y0 + ay && z >= z0 && z < z0 + az; };
    auto radius = [&](int y, int z) { return std::min(1.0, std::hypot((y - ny / 2) / (ny / 2.0), (z - nz / 2) / (nz / 2.0))); };
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        if (acs(y, z)) QCOMPARE(int(m[z * ny + y]), int(kLineAcquired | kLineCalibration | kLineImaging));
    double worst = 1e9;
    int inner = 0, inner_all = 0, outer = 0, outer_all = 0;
    for (int p = 0; p < ny * nz; ++p) {
      const int y = p % ny, z = p / ny;
      const double r = radius(y, z);
      if (!acs(y, z)) (r < 0.5 ? inner_all : outer_all)++;
      if (!m[p]) continue;
      if (!acs(y, z)) (r < 0.5 ? inner : outer)++;
      for (int q = p + 1; q < ny * nz; ++q) {
        const int yy = q % ny, zz = q / ny;
        if (!m[q] || (acs(y, z) && acs(yy, zz))) continue;
        const double gap = poisson_disc_gap(scale, 3.0, std::min(r, radius(yy, zz)));
        worst = std::min(worst, std::hypot(yy - y, zz - z) / gap);
      }
    }
    const double di = double(inner) / inner_all, dout = double(outer) / outer_all;
    qInfo("2-D poisson-disc 64 x 48, R 5, ACS 12 x 8: scale %.3f, smallest distance / required %.3f, density inner "
          "%.3f outer %.3f", scale, worst, di, dout);
    QVERIFY(worst >= 1.0 - 1e-9);
    QVERIFY(di > 1.3 * dout);
  }

  void refusals() {
    auto check = [](const QString& msg, const char* field) {
      QVERIFY2(msg.contains(field) && msg.contains("allowed"), qPrintable(msg));
    };
    check(input_error([] { random_lines(128, 0.5, 8, 1); }), "R = 0.5");
    check(input_error([] { poisson_disc_lines(128, 65, 0, 1); }), "R = 65");
    check(input_error([] { random_lines(128, 4, -1, 1); }), "acs_lines = -1");
    check(input_error([] { poisson_disc_lines(128, 4, 33, 1); }), "acs_lines = 33");
    check(input_error([] { random_lines(1, 1, 0, 1); }), "ny = 1");
    check(input_error([] { poisson_disc_lines(128, 4, 8, 1, 0.5); }), "growth");
    check(input_error([] { poisson_disc_mask_2d(32, 32, 0.9, 4, 4, 1); }), "R = 0.9");
    check(input_error([] { poisson_disc_mask_2d(32, 32, 4, 40, 4, 1); }), "ACS 40 x 4");
    QVERIFY(input_error([] { poisson_disc_lines(128, 4, 32, 1); }).isEmpty());  // the bounds themselves pass
    QVERIFY(input_error([] { random_lines(128, 64, 0, 1); }).isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestUndersamplingPattern)
#include "test_undersampling_pattern.moc"
