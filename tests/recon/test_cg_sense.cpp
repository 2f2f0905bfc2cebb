// CG-SENSE (recon/cg_sense.hpp; Pruessmann et al. 2001) on the simulator's loop coils: the Cartesian SENSE
// operator is the project's k-space convention on the unitary scale and passes the adjoint test; on the
// regular comb at R = 2 CG-SENSE equals sense_unfold (the same least-squares problem); with a random
// variable-density line pattern and no noise it converges to the object; bad input is refused.
#include <QTest>

#include <cmath>
#include <random>

#include "adjoint_check.hpp"
#include "input_error.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/cg_sense.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb/recon/undersample.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"
#include "numeric.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

constexpr int kN = 60, kCoils = 8;
constexpr double kFov = 0.2;

// The object of test_sense: an ellipse with three discs and a phase ramp.
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

double relative_rms(const std::vector<cfloat>& a, const std::vector<cfloat>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    num += std::norm(cdouble(a[i] - ref[i]));
    den += std::norm(cdouble(ref[i]));
  }
  return std::sqrt(num / den);
}

}  // namespace

class TestCgSense : public QObject {
  Q_OBJECT
 private slots:
  // E x is multicoil_raw's k-space / sqrt(N) on the acquired lines, zero elsewhere; <E x, k> = <x, E^H k>;
  // E^H E = E^H (E .), also for an odd size (the centring without index rolls).
  void operatorConventionAndAdjoint() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
    raw.line_flags = random_lines(kN, 3.0, 8, 4);
    const CartesianSenseOperator E(kN, kN, kCoils, maps, line_mask(raw));
    const auto k = E.forward(object());
    const float s = 1.0f / kN;
    double err = 0, ref = 0;
    for (int c = 0; c < kCoils; ++c)
      for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x) {
          const cfloat want = (raw.flags(y) & kLineAcquired) ? raw.at(c, y, x) * s : cfloat();
          err += std::norm(cdouble(k[raw.index(c, y, x)] - want));
          ref += std::norm(cdouble(want));
        }
    const double conv = std::sqrt(err / ref);
    for (int n : {kN, 45}) {
      const auto m = loop_coil_sensitivities(kCoils, n, n, kFov);
      std::vector<float> mask(std::size_t(n) * n);
      std::mt19937 rng(9);
      for (auto& v : mask) v = float(rng() % 2);
      const CartesianSenseOperator A(n, n, kCoils, m, mask);
      const std::size_t nv = std::size_t(n) * n;
      const double adj = mrwb::test::check_adjoint([&](const std::vector<cfloat>& v) { return A.forward(v); },
                                                   [&](const std::vector<cfloat>& d) { return A.adjoint(d); }, nv,
                                                   nv * kCoils, 1);
      const auto x = mrwb::test::complex_noise(nv, 1);
      std::vector<cfloat> q;
      A.normal(x, q);
      const double nrm = relative_rms(q, A.adjoint(A.forward(x)));
      qInfo("%dx%d: <Ex, k> vs <x, E^H k> relative %.2e; E^H E x vs E^H(E x) relative RMS %.2e", n, n, adj, nrm);
      QVERIFY(adj < 1e-5);
      QVERIFY(nrm < 1e-5);
    }
    qInfo("E x vs multicoil_raw / sqrt(N) on the acquired lines: relative RMS %.2e", conv);
    QVERIFY(conv < 1e-5);
  }

  void equalsSenseUnfoldOnTheComb() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
    undersample_cartesian(raw, 2, 0);  // the comb only: the data sense_unfold uses
    const SenseResult s = sense_unfold(raw, maps);
    CgSenseParams p;
    p.iterations = 100;
    p.tolerance = 1e-7;
    CgSenseReport rep;
    const Image2D cg = cg_sense(raw, maps, p, &rep);
    const double diff = relative_rms(cg.data, s.image.data), err = relative_rms(cg.data, object());
    const Image2D a = reconstruct_cg_sense(raw, maps, p), b = reconstruct_sense(raw, maps);
    const double weighted = relative_rms(a.data, b.data);
    qInfo("R = 2 comb, 8 loop coils, %dx%d: CG-SENSE after %d iterations (residual %.1e) vs sense_unfold relative "
          "RMS %.2e (coil-weighted images %.2e); vs the object %.2e", kN, kN, rep.iterations, rep.relative_residual,
          diff, weighted, err);
    QVERIFY(diff < 1e-4);
    QVERIFY(weighted < 1e-4);
    QVERIFY(err < 1e-4);
  }

  void convergesWithARandomMask() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
    raw.line_flags = poisson_disc_lines(kN, 2.0, 8, 11);
    for (int c = 0; c < kCoils; ++c)
      for (int y = 0; y < kN; ++y)
        if (!(raw.flags(y) & kLineAcquired))
          for (int x = 0; x < kN; ++x) raw.at(c, y, x) = {};
    CgSenseParams p;
    p.iterations = 300;
    p.tolerance = 1e-6;
    CgSenseReport rep;
    int calls = 0;
    const Image2D im = cg_sense(raw, maps, p, &rep, [&](double, std::string_view) { ++calls; });
    const double err = relative_rms(im.data, object());
    qInfo("variable-density Poisson-disc lines, R = 2 (30 of 60, 8 ACS), no noise: %d iterations, residual %.1e, relative "
          "RMS error vs the object %.2e (residual after 10: %.1e)", rep.iterations, rep.relative_residual, err,
          rep.residuals.size() > 9 ? rep.residuals[9] : -1.0);
    QVERIFY(err < 1e-3);
    QCOMPARE(calls, rep.iterations);
  }

  void cancels() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
    CancelToken cancel;
    bool thrown = false;
    try {
      cg_sense(raw, maps, {}, nullptr, [&](double, std::string_view) { cancel.cancel(); }, cancel);
    } catch (const Cancelled&) {
      thrown = true;
    }
    QVERIFY(thrown);
  }

  void refusals() {
    const auto maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const RawData raw = multicoil_raw(object(), maps, kCoils, kN, kN, kFov, kFov);
    CgSenseParams bad;
    bad.lambda = -1;
    QString m = mrwb::test::input_error([&] { cg_sense(raw, maps, bad); });
    QVERIFY2(m.contains("lambda = -1") && m.contains("allowed: >= 0"), qPrintable(m));
    m = mrwb::test::input_error([&] { cg_sense(raw, std::vector<cfloat>(maps.begin(), maps.begin() + kN * kN), {}); });
    QVERIFY2(m.contains("maps hold 3600") && m.contains("8 x 60 x 60"), qPrintable(m));
    CgSenseParams zero;
    zero.iterations = 0;
    m = mrwb::test::input_error([&] { cg_sense(raw, maps, zero); });
    QVERIFY2(m.contains("iterations = 0") && m.contains("allowed"), qPrintable(m));
  }
};

QTEST_GUILESS_MAIN(TestCgSense)
#include "test_cg_sense.moc"
