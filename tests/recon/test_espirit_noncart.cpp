// ESPIRiT from non-Cartesian data (espirit_maps_noncart; Uecker et al. 2014 on a gridded k-space centre):
// radial loop-coil data of a known object, the maps against the true maps divided by their root sum of
// squares, CG-SENSE with them against CG-SENSE with the true maps, and the refusals.
#include <QTest>

#include <cmath>

#include "coil_test_object.hpp"
#include "input_error.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/espirit.hpp"
#include "mrwb/recon/noncart_coil_raw.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/sequence/trajectory.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

constexpr int kN = 64, kCoils = 8, kSpokes = 96;
constexpr double kFov = 0.2;

// kSpokes spokes of 2·kN samples of each coil image s_c · object.
RawData radial_raw(const std::vector<cfloat>& obj, const std::vector<cfloat>& sens) {
  const noncart::Trajectory t = noncart::radial_2d(kN, kSpokes, 2 * kN, false);
  return noncart::multicoil_raw_noncart(obj, sens, kN, kCoils, t.k, t.readouts, t.samples, kFov);
}

// Relative RMS over the object of the CG image's magnitude against |object| · rss (the image CG-SENSE
// gives with maps of root sum of squares 1).
double cg_error(const RawData& raw, const std::vector<cfloat>& maps, const std::vector<cfloat>& obj,
                const std::vector<double>& rss) {
  const noncart::Samples s = noncart::samples_from_raw(raw);
  NoncartParams p;
  p.iterations = 20;
  const noncart::CgResult r = noncart::reconstruct_cg_cpu(noncart::Grid{2, kN}, s, p, noncart::Precision::Single, maps);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < obj.size(); ++i)
    if (std::abs(obj[i]) > 0) {
      const double ref = std::abs(obj[i]) * rss[i];
      num += std::pow(std::abs(r.image[i]) - ref, 2);
      den += ref * ref;
    }
  return std::sqrt(num / den);
}

}  // namespace

class TestEspiritNoncart : public QObject {
  Q_OBJECT
 private slots:
  void recoversLoopCoilsFromRadialData() {
    const auto truth = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const auto obj = mrwb_test::coil_test_object(kN);
    const RawData raw = radial_raw(obj, truth);
    const EspiritMaps esp = espirit_maps_noncart(raw, 0, EspiritParams{});
    QCOMPARE(esp.nx, kN);  // default_matrix of spokes reaching ±n/2
    QCOMPARE(esp.ny, kN);
    const std::size_t plane = static_cast<std::size_t>(kN) * kN;
    std::vector<double> rss(plane);
    std::vector<cfloat> normalised(truth.size());
    double num = 0, den = 0;
    int inside = 0, kept = 0;
    for (std::size_t i = 0; i < plane; ++i) {
      for (int c = 0; c < kCoils; ++c) rss[i] += std::norm(truth[c * plane + i]);
      rss[i] = std::sqrt(rss[i]);
      for (int c = 0; c < kCoils; ++c) normalised[c * plane + i] = truth[c * plane + i] / static_cast<float>(rss[i]);
      if (std::abs(obj[i]) == 0) continue;
      ++inside;
      kept += esp.eigenvalue[i] > EspiritParams{}.crop;
      for (int c = 0; c < kCoils; ++c) {
        num += std::pow(std::abs(esp.maps[c * plane + i]) - std::abs(normalised[c * plane + i]), 2);
        den += std::norm(normalised[c * plane + i]);
      }
    }
    const double mag = std::sqrt(num / den);
    const double cg_true = cg_error(raw, normalised, obj, rss), cg_esp = cg_error(raw, esp.maps, obj, rss);
    const double db = 20 * std::log10(cg_esp / cg_true);
    qInfo("radial %d^2, %d spokes, %d coils: %d/%d object voxels kept, %d kernels; |maps| vs true/rss relative RMS "
          "over the object %.3f %%; CG-SENSE 20 it. |rho| error: true maps %.3f %%, ESPIRiT %.3f %% (%+.2f dB)",
          kN, kSpokes, kCoils, kept, inside, esp.kernels, 100 * mag, 100 * cg_true, 100 * cg_esp, db);
    QCOMPARE(kept, inside);
    QVERIFY(mag < 0.015);  // measured 0.60 %
    QVERIFY(db < 1.0);
  }

  void refusals() {
    const auto truth = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const RawData radial = radial_raw(mrwb_test::coil_test_object(kN), truth);
    QString e = test::input_error([&] { espirit_maps_noncart(radial, 16, EspiritParams{}); });
    QVERIFY2(e.contains("calib_size 24") && e.contains("allowed") && !e.contains('\n'), qPrintable(e));
    RawData cartesian = radial;
    cartesian.traj.clear();
    e = test::input_error([&] { espirit_maps_noncart(cartesian, 0, EspiritParams{}); });
    QVERIFY2(e.contains("Cartesian") && e.contains("allowed"), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestEspiritNoncart)
#include "test_espirit_noncart.moc"
