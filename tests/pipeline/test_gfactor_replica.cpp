// g-factor maps by pseudo-multiple replicas (pipeline/gfactor_replica.hpp; Robson et al. 2008) of any
// reconstruction: at R = 1 the FFT and GRAPPA read g = 1 (the analytic fully sampled noise checked); GRAPPA's
// g is >= 1 over the object at R = 2, 3; SENSE's replica g agrees with its analytic g (Pruessmann et al.
// 1999, eq. 23) within 5 % over the object at R = 2, 3, 4; a cancel stops the replicas; bad options are refused.
// Under the sanitizer GRAPPA's g >= 1 is checked on fewer replicas (sanitizer_scale.hpp), with the bound their
// noisier estimate allows.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "coil_test_object.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/pipeline/gfactor_replica.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb/recon/undersample.hpp"
#include "sanitizer_scale.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;

namespace {

constexpr int kN = 60, kCoils = 8;  // 60 lines: R = 2, 3 and 4 divide them
constexpr double kFov = 0.2;

std::vector<cfloat> object() { return mrwb_test::coil_test_object(kN); }

// Pixels well inside the object (two pixels from its edge), where every method has signal.
std::vector<bool> interior() {
  const auto obj = object();
  std::vector<bool> in(obj.size(), false);
  for (int y = 2; y < kN - 2; ++y)
    for (int x = 2; x < kN - 2; ++x) {
      bool all = true;
      for (int dy = -2; dy <= 2 && all; ++dy)
        for (int dx = -2; dx <= 2 && all; ++dx) all = std::abs(obj[(y + dy) * kN + x + dx]) > 0;
      in[y * kN + x] = all;
    }
  return in;
}

RawData coil_data(const std::vector<cfloat>& maps, int R, int acs) {
  RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
  if (R > 1) undersample_cartesian(raw, R, acs);
  return raw;
}

struct Stats {
  double mean = 0, min = 1e9, max = 0;
  int n = 0, unreported = 0;
};
Stats over_interior(const std::vector<float>& g) {
  const auto in = interior();
  Stats s;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!in[i]) continue;
    if (g[i] == 0) {
      ++s.unreported;
      continue;
    }
    s.mean += g[i];
    s.min = std::min(s.min, double(g[i]));
    s.max = std::max(s.max, double(g[i]));
    ++s.n;
  }
  s.mean /= std::max(1, s.n);
  return s;
}

ReconOptions method(ReconMethod m) {
  ReconOptions o;
  o.method = m;
  o.backend = Backend::Cpu;
  return o;
}

}  // namespace

class TestGfactorReplica : public QObject {
  Q_OBJECT
 private slots:
  // At R = 1 the replicas measure the fully sampled noise itself: g = 1 (the analytic sigma_1 is right).
  void fullySampledReadsOne_data() {
    QTest::addColumn<int>("m");
    QTest::newRow("fft") << int(ReconMethod::Fft);
    QTest::newRow("grappa") << int(ReconMethod::Grappa);
  }
  void fullySampledReadsOne() {
    QFETCH(int, m);
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    ReplicaGfactorOptions r;
    r.replicas = 200;
    const GfactorMap g = pseudo_replica_gfactor(coil_data(maps, 1, 0), method(ReconMethod(m)), r);
    const Stats s = over_interior(g.g);
    qInfo("R = 1, %s: g over the object mean %.4f (%d pixels), %.4f .. %.4f; expected spread of one pixel +-%.1f %%",
          to_string(ReconMethod(m)).data(), s.mean, s.n, s.min, s.max, 100 / std::sqrt(2.0 * r.replicas));
    QCOMPARE(s.unreported, 0);
    QVERIFY(std::abs(s.mean - 1) < 0.01);
  }

  // GRAPPA (Griswold et al. 2002) only adds noise to the acquired lines' own: g >= 1 over the object. Each pixel's
  // g is estimated from the replicas' sample standard deviation, of relative standard error 1 / sqrt(2 (replicas -
  // 1)): 2.2 % at the 1000 replicas of the optimised build, where the lowest pixel reads 1.007 at R = 2 and the
  // bound is g itself, 1. The sanitizer's 200 (a fifth of the time, each replica a GRAPPA calibration) have 5.0 %,
  // and the lowest of the object's 1521 pixels reads some 3 standard errors below its true g (0.945 at R = 2); there
  // the bound is 1 less 4.5 standard errors (0.774), which a pixel of true g = 1 falls below with a chance of
  // 3.4e-6 (Gaussian tail), one of 1521 with 0.5 %. The mean over the object, a sum of 1521 estimates, stays bound
  // above 1.01 at either count (1.107 and 1.106 at R = 2).
  void grappaAtLeastOne_data() {
    QTest::addColumn<int>("R");
    QTest::newRow("R=2") << 2;
    QTest::newRow("R=3") << 3;
  }
  void grappaAtLeastOne() {
    QFETCH(int, R);
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    ReplicaGfactorOptions r;
    r.replicas = mrwb::test::full_or_sanitized(1000, 200);
    const double lowest = mrwb::test::sanitized() ? 1 - 4.5 / std::sqrt(2.0 * (r.replicas - 1)) : 1.0;
    const GfactorMap g = pseudo_replica_gfactor(coil_data(maps, R, 24), method(ReconMethod::Grappa), r);
    const Stats s = over_interior(g.g);
    qInfo("GRAPPA R = %d, 24 ACS lines (net R %.3f), %d replicas: g over the object mean %.4f, %.4f .. %.4f (bound "
          "%.3f; %d pixels, %d below SNR %g)", R, g.R, r.replicas, s.mean, s.min, s.max, lowest, s.n, s.unreported,
          k_replica_min_snr);
    QCOMPARE(s.unreported, 0);
    QVERIFY(s.min >= lowest);
    QVERIFY(s.mean > 1.01);
  }

  // Robson et al. 2008's pseudo-multiple replica against SENSE's analytic g: mean over the object within 5 %.
  void senseMatchesAnalytic_data() {
    QTest::addColumn<int>("R");
    QTest::newRow("R=2") << 2;
    QTest::newRow("R=3") << 3;
    QTest::newRow("R=4") << 4;
  }
  void senseMatchesAnalytic() {
    QFETCH(int, R);
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const RawData under = coil_data(maps, R, 0);  // the comb alone: lines off it SENSE would leave unused
    ReconOptions o = method(ReconMethod::Sense);
    o.sense.maps = maps;
    ReplicaGfactorOptions r;
    r.replicas = 300;
    const GfactorMap g = pseudo_replica_gfactor(under, o, r);
    const SenseResult analytic = sense_unfold(under, maps);
    const auto in = interior();
    double a = 0, p = 0;
    int n = 0;
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i] && g.g[i] > 0) a += analytic.gfactor[i], p += g.g[i], ++n;
    a /= n;
    p /= n;
    qInfo("SENSE R = %d: mean g over the object analytic %.4f, pseudo-replica (%d replicas) %.4f (%+.2f %%)", R, a,
          r.replicas, p, 100 * (p / a - 1));
    QVERIFY(n > 1000);
    QVERIFY(std::abs(p / a - 1) < 0.05);
  }

  // A cancel while the replicas run (they share the CPU's threads) ends the map with Cancelled, every thread
  // stopped, and the progress reported never passes the replicas done.
  void cancelsBetweenReplicas() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const RawData raw = coil_data(maps, 2, 24);
    ReplicaGfactorOptions r;
    r.replicas = 10000;
    CancelToken cancel;
    double last = 0;
    bool cancelled = false;
    try {
      pseudo_replica_gfactor(raw, method(ReconMethod::Grappa), r,
                             [&](double f, std::string_view) {
                               QVERIFY(f >= last && f <= 1.0);
                               last = f;
                               if (f >= 0.002) cancel.cancel();
                             },
                             cancel);
    } catch (const Cancelled&) {
      cancelled = true;
    }
    qInfo("cancelled at %.4f of %d replicas", last, r.replicas);
    QVERIFY(cancelled);
    QVERIFY(last >= 0.002 && last < 0.5);
  }

  void refusesBadOptions() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const RawData raw = coil_data(maps, 2, 24);
    auto refused = [&](ReplicaGfactorOptions r, const RawData& d, const char* needle) {
      try {
        pseudo_replica_gfactor(d, method(ReconMethod::Grappa), r);
        QFAIL(needle);
      } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(needle) && QString(e.what()).contains("allowed"), e.what());
      }
    };
    ReplicaGfactorOptions one;
    one.replicas = 1;
    refused(one, raw, "2 .. 10000");
    ReplicaGfactorOptions neg;
    neg.noise_sigma = -1;
    refused(neg, raw, ">= 0");
    RawData radial = raw;
    radial.traj.assign(static_cast<std::size_t>(raw.nx) * raw.ny * 2, 0.0f);
    radial.traj_dims = 2;
    refused({}, radial, "Cartesian");
  }
};

QTEST_GUILESS_MAIN(TestGfactorReplica)
#include "test_gfactor_replica.moc"
