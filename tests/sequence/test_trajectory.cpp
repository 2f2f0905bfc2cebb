// Trajectories: 3-D radial covers the sphere; density compensation (Pipe–Menon, gridding.hpp) follows the
// sampling density each trajectory is known to have: |k|^-1 for 2-D radial, |k|^-2 for 3-D radial; for an
// Archimedean spiral (constant turn spacing) the inverse of the speed along the path, so the weights grow
// like the step between samples (~|k|^0.5 where the slew limits it, flat where the amplitude does).
#include <QTest>

#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/sequence/trajectory.hpp"

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
// Samples of every `keep_every`-th readout of a trajectory (angular undersampling of a spiral design).
Samples every_nth_readout(const Trajectory& t, int keep_every) {
  Samples s;
  s.dims = t.dims;
  for (int r = 0; r < t.readouts; r += keep_every)
    s.k.insert(s.k.end(), t.k.begin() + static_cast<std::ptrdiff_t>(r) * t.samples * t.dims,
               t.k.begin() + static_cast<std::ptrdiff_t>(r + 1) * t.samples * t.dims);
  s.d.assign(s.count(), {});
  return s;
}
// Sum of w over samples with a <= |k_xy| < b, over the ring area pi (b^2 - a^2).
double ring_fraction(const Samples& s, const std::vector<float>& w, double a, double b) {
  double sum = 0;
  for (std::size_t m = 0; m < s.count(); ++m) {
    const double r = std::hypot(s.k[m * s.dims], s.k[m * s.dims + 1]);
    if (r >= a && r < b) sum += w[m];
  }
  return sum / (M_PI * (b * b - a * a));
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
  // Voronoi cells of the integer lattice inside a disc are unit squares; a repeated point shares its cell; a
  // stack of two such planes (unit kz spacing) gives the same weights per plane.
  void voronoiCellsOfALattice() {
    for (int dims : {2, 3}) {
      Samples s;
      s.dims = dims;
      for (int z = dims == 3 ? -1 : 0; z <= 0; ++z)
        for (int y = -10; y <= 10; ++y)
          for (int x = -10; x <= 10; ++x) {
            if (x * x + y * y > 100) continue;
            for (int copy = 0; copy < (x == 0 && y == 0 ? 2 : 1); ++copy) {
              s.k.push_back(static_cast<float>(x)), s.k.push_back(static_cast<float>(y));
              if (dims == 3) s.k.push_back(static_cast<float>(z));
            }
          }
      s.d.assign(s.count(), {});
      const std::vector<float> w = density_voronoi(s);
      double worst_interior = 0;
      int origin_copies = 0;
      for (std::size_t m = 0; m < s.count(); ++m) {
        const double r = std::hypot(s.k[m * dims], s.k[m * dims + 1]);
        if (r == 0) {
          ++origin_copies;
          QCOMPARE(w[m], 0.5f);
        } else if (r < 8) {
          worst_interior = std::max(worst_interior, std::abs(w[m] - 1.0));
        } else {
          // Edge cells reach past the lattice's ragged rim to the clipping disc, never unbounded.
          QVERIFY2(w[m] > 0.3 && w[m] < 4, qPrintable(QString("edge cell area %1").arg(w[m])));
        }
      }
      QCOMPARE(origin_copies, dims == 3 ? 4 : 2);
      QVERIFY2(worst_interior < 1e-5, qPrintable(QString("interior cell area off by %1").arg(worst_interior)));
    }
    Samples bent;  // kz not on a few planes: not a stack
    bent.dims = 3;
    for (int m = 0; m < 64; ++m) bent.k.insert(bent.k.end(), {float(m % 8), float(m / 8), 0.1f * m});
    bent.d.assign(bent.count(), {});
    QVERIFY_THROWS_EXCEPTION(mrwb::InputError, density_voronoi(bent));
  }

  // Density weights of an Archimedean spiral against its analytic density: the weights of the samples in a
  // ring a <= |k| < b sum to the ring's area pi (b^2 - a^2). At Nyquist (4 interleaves) every ring from 1
  // cycle/FOV out within 3 % for Voronoi; 4 of 16 design interleaves (arms 4 cycles/FOV apart, wider than the
  // kernel) rings from 4 cycles/FOV out within 3 % and the centre disc |k| < 4 within 10 %. Pipe-Menon
  // printed beside it: it over-weights the undersampled centre (its weights follow density at kernel scale).
  void voronoiDensityMatchesSpiralRingArea() {
    const int n = 48;
    SpiralLimits lim;
    lim.fov_m = 0.128;
    for (int R : {1, 4}) {
      const Samples s = every_nth_readout(spiral_2d(n, 4 * R, 1.0, lim), R);
      const std::vector<float> wv = density_voronoi(s);
      const std::vector<float> wp = density_pipe_menon(Grid{2, n}, s, GriddingParams{});
      const double edges[] = {0, 1, 2, 4, 8, 12, 16, 20};
      for (int b = 0; b + 1 < 8; ++b) {
        const double v = ring_fraction(s, wv, edges[b], edges[b + 1]), p = ring_fraction(s, wp, edges[b], edges[b + 1]);
        qInfo("R = %d, ring [%g, %g) cycles/FOV: Voronoi %.3f, Pipe-Menon %.3f x the ring area", R, edges[b], edges[b + 1], v, p);
        if (edges[b] >= (R == 1 ? 1 : 4)) QVERIFY2(std::abs(v - 1) < 0.03, qPrintable(QString("Voronoi ring sum %1").arg(v)));
      }
      if (R == 4) {
        const double v = ring_fraction(s, wv, 0, 4), p = ring_fraction(s, wp, 0, 4);
        qInfo("R = 4, disc |k| < 4: Voronoi %.3f, Pipe-Menon %.3f x its area", v, p);
        QVERIFY2(std::abs(v - 1) < 0.10, qPrintable(QString("Voronoi centre disc sum %1").arg(v)));
      }
    }
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
