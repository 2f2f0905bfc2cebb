// Trajectories: 3-D radial covers the sphere; density compensation (Pipe–Menon, gridding.hpp) follows the
// sampling density each trajectory is known to have: |k|^-1 for 2-D radial, |k|^-2 for 3-D radial; for an
// Archimedean spiral (constant turn spacing) the inverse of the speed along the path, so the weights grow
// like the step between samples (~|k|^0.5 where the slew limits it, flat where the amplitude does).
#include <QtTest>

#include <cmath>

#include "mrwb/gridding.hpp"
#include "mrwb/trajectory.hpp"

using namespace mrwb::noncart;

namespace {
// Largest angle [rad] between any of `probes` directions (a Fibonacci sphere) and its nearest spoke line.
double largest_gap_rad(const Trajectory& t, int spokes, int probes) {
  double worst = 0;
  for (int q = 0; q < probes; ++q) {
    const double z = 1 - (2.0 * q + 1) / probes, r = std::sqrt(1 - z * z), az = q * M_PI * (3 - std::sqrt(5.0));
    const double p[3] = {r * std::cos(az), r * std::sin(az), z};
    double best = 0;  // max |cos| to a spoke
    for (int s = 0; s < spokes; ++s) {
      const float* k = &t.k[static_cast<std::size_t>(s) * t.samples * 3];  // first sample: -n/2 · dir
      const double len = std::sqrt(double(k[0]) * k[0] + double(k[1]) * k[1] + double(k[2]) * k[2]);
      best = std::max(best, std::abs(p[0] * k[0] + p[1] * k[1] + p[2] * k[2]) / len);
    }
    worst = std::max(worst, std::acos(std::min(1.0, best)));
  }
  return worst;
}
// Slope of log(mean value per shell) against log |k| over shells between n/8 and 3n/8.
double shell_slope(const Trajectory& t, const std::vector<float>& v, int n) {
  const int shells = 8;
  std::vector<double> sum(shells, 0), cnt(shells, 0);
  for (std::size_t m = 0; m < t.count(); ++m) {
    double r2 = 0;
    for (int d = 0; d < t.dims; ++d) r2 += double(t.k[m * t.dims + d]) * t.k[m * t.dims + d];
    const double f = (std::sqrt(r2) - n / 8.0) / (n / 4.0);
    if (f < 0 || f >= 1) continue;
    const int b = static_cast<int>(f * shells);
    sum[b] += v[m];
    cnt[b] += 1;
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int used = 0;
  for (int b = 0; b < shells; ++b) {
    if (cnt[b] == 0) continue;
    const double x = std::log(n / 8.0 + (b + 0.5) * n / 4.0 / shells), y = std::log(sum[b] / cnt[b]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++used;
  }
  return used >= 2 ? (used * sxy - sx * sy) / (used * sxx - sx * sx) : NAN;
}
}  // namespace

class TestTrajectory : public QObject {
  Q_OBJECT
 private slots:
  void radial3dCoversTheSphere_data() {
    QTest::addColumn<int>("fraction");  // leading 1/fraction of the spokes
    QTest::newRow("all spokes") << 1;
    QTest::newRow("first quarter") << 4;
  }
  void radial3dCoversTheSphere() {
    QFETCH(int, fraction);
    const int n = 16, N = radial_3d_nyquist_spokes(n);
    QCOMPARE(N, 403);
    const Trajectory t = radial_3d(n, N, n);
    QCOMPARE(t.dims, 3);
    QCOMPARE(t.count(), static_cast<std::size_t>(N) * n);
    for (std::size_t i = 0; i < t.count(); ++i) {
      const double r = std::hypot(t.k[3 * i], t.k[3 * i + 1], t.k[3 * i + 2]);
      QVERIFY(r <= n / 2.0 + 1e-4);
    }
    // 2·M spoke ends on the unit sphere leave each ~4pi/(2M) sr: spacing ~sqrt(2pi/M). Golden means stay
    // within twice that for any leading subset; spokes crowded in one plane or cone would not.
    const int M = N / fraction;
    const double gap = largest_gap_rad(t, M, 2000), spacing = std::sqrt(2 * M_PI / M);
    QVERIFY2(gap < 2 * spacing, qPrintable(QString("largest gap %1 rad, spacing %2 rad").arg(gap).arg(spacing)));
  }
  void pipeMenonFollowsTheSamplingDensity_data() {
    QTest::addColumn<QString>("trajectory");
    QTest::addColumn<double>("exponent");  // expected w ∝ |k|^exponent; NaN: that of the step length
    QTest::newRow("2-D radial") << "radial2d" << 1.0;
    QTest::newRow("3-D radial") << "radial3d" << 2.0;
    QTest::newRow("Archimedean spiral, slew-limited") << "spiral" << std::nan("");
    QTest::newRow("Archimedean spiral, amplitude-limited") << "spiral_gmax" << std::nan("");
  }
  void pipeMenonFollowsTheSamplingDensity() {
    QFETCH(QString, trajectory);
    QFETCH(double, exponent);
    Trajectory t;
    int n = 32;
    if (trajectory == "radial2d") t = radial_2d(n, 64, 2 * n, false);
    if (trajectory == "radial3d") {
      n = 16;
      t = radial_3d(n, radial_3d_nyquist_spokes(n), n);
    }
    if (trajectory.startsWith("spiral")) {
      SpiralLimits lim;
      if (trajectory == "spiral_gmax") lim.gmax_T_per_m = 0.004;
      t = spiral_2d(n, 8, 1.0, lim);
    }
    Samples s;
    s.dims = t.dims;
    s.k = t.k;
    s.d.assign(t.count(), {});
    const Grid g{t.dims, n};
    const std::vector<float> w = density_pipe_menon(g, s, GriddingParams{});
    // Step from each sample to the next along its readout (the last repeats the one before).
    std::vector<float> step(t.count());
    for (std::size_t m = 0; m < t.count(); ++m) {
      const std::size_t a = (m + 1) % t.samples ? m : m - 1;
      double d2 = 0;
      for (int d = 0; d < t.dims; ++d) d2 += std::pow(double(t.k[(a + 1) * t.dims + d]) - t.k[a * t.dims + d], 2);
      step[m] = static_cast<float>(std::sqrt(d2));
    }
    const double slope = shell_slope(t, w, n), expected = std::isnan(exponent) ? shell_slope(t, step, n) : exponent;
    QVERIFY2(std::abs(slope - expected) < 0.25, qPrintable(QString("slope %1, expected %2").arg(slope).arg(expected)));
  }
};

QTEST_GUILESS_MAIN(TestTrajectory)
#include "test_trajectory.moc"
