// Metrics of volumes (compare_volumes, metrics.hpp) and `mrwb compare` on 3-D files: PSNR, % error and NRMSE
// over every voxel, SSIM over 7×7×7 windows from 7 planes on, else the mean over the planes' 7×7 windows.
#include <QFileInfo>
#include <QTest>

#include <cmath>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "process_runner.hpp"

using namespace mrwb;

namespace {

// A smooth pattern with structure along every axis, and a copy with a bump and noise-like ripple added.
std::vector<float> pattern(int nx, int ny, int nz, bool perturbed) {
  std::vector<float> v(static_cast<std::size_t>(nx) * ny * nz);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double f = 1.0 + 0.5 * std::sin(0.3 * x) * std::cos(0.2 * y) + 0.3 * std::cos(0.5 * z + 0.1 * x);
        if (perturbed) f += 0.2 * std::exp(-((x - 12) * (x - 12) + (y - 9) * (y - 9) + (z - 5) * (z - 5)) / 8.0) +
                            0.05 * std::sin(1.7 * x + 2.3 * y + 3.1 * z);
        v[(static_cast<std::size_t>(z) * ny + y) * nx + x] = static_cast<float>(f);
      }
  return v;
}

std::vector<float> plane(const std::vector<float>& v, int nx, int ny, int z) {
  const std::size_t p = static_cast<std::size_t>(nx) * ny;
  return {v.begin() + static_cast<std::ptrdiff_t>(z * p), v.begin() + static_cast<std::ptrdiff_t>((z + 1) * p)};
}

ImageVolume as_volume(const std::vector<float>& m, int nx, int ny, int nz) {
  ImageVolume v;
  v.nx = nx;
  v.ny = ny;
  v.nz = nz;
  v.fov_x_m = v.fov_y_m = 0.064;
  v.fov_z_m = 0.016;
  v.data.assign(m.begin(), m.end());
  return v;
}

}  // namespace

class TestCompareVolumes : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const char* n) const { return dir_.filePath(n); }

 private slots:
  void identicalVolumes() {
    const auto a = pattern(24, 20, 9, false);
    const Metrics m = compare_volumes(a, a, 24, 20, 9);
    QCOMPARE(m.ssim, 1.0);
    QCOMPARE(m.percent_error, 0.0);
    QVERIFY(std::isinf(m.psnr_db));
  }

  // One plane is the 2-D comparison; the voxel statistics of a volume are those of all its voxels.
  // Against an all-zero reference no figure is defined (each divides by its peak, RMS or range): NaN, not
  // the 0 % error and NRMSE 0 that read as perfect; equal images stay perfect; a constant reference has no range.
  void referenceWithoutScaleGivesNoFigure() {
    const int n = 16;
    const std::vector<float> zero(n * n, 0.f), one(n * n, 1.f);
    std::vector<float> ramp(n * n);
    for (int i = 0; i < n * n; ++i) ramp[i] = static_cast<float>(i) / (n * n);
    const Metrics m = compare_images(ramp, zero, n, n);
    QVERIFY(std::isnan(m.psnr_db) && std::isnan(m.percent_error) && std::isnan(m.nrmse));
    const Metrics same = compare_images(zero, zero, n, n);
    QVERIFY(std::isinf(same.psnr_db) && same.percent_error == 0 && same.nrmse == 0);
    const Metrics flat = compare_images(ramp, one, n, n);
    QVERIFY(std::isfinite(flat.psnr_db) && std::isfinite(flat.percent_error) && std::isnan(flat.nrmse));
  }

  void onePlaneIsTheImageMetrics() {
    const auto a = pattern(24, 20, 1, true), b = pattern(24, 20, 1, false);
    const Metrics v = compare_volumes(a, b, 24, 20, 1), i = compare_images(a, b, 24, 20);
    QCOMPARE(v.ssim, i.ssim);
    QCOMPARE(v.psnr_db, i.psnr_db);
    QCOMPARE(v.percent_error, i.percent_error);
    QCOMPARE(v.nrmse, i.nrmse);
  }

  // Fewer than 7 planes: SSIM is the mean of the planes' 2-D SSIM (each plane has as many windows). SSIM's
  // constants follow the reference's range, so every reference plane is given the volume's: 0 and 3 in
  // two corner pixels.
  void thinVolumeAveragesThePlanes() {
    const int nx = 24, ny = 20, nz = 4;
    const auto a = pattern(nx, ny, nz, true);
    auto b = pattern(nx, ny, nz, false);
    for (int z = 0; z < nz; ++z) {
      b[static_cast<std::size_t>(z) * nx * ny] = 0.f;
      b[static_cast<std::size_t>(z) * nx * ny + 1] = 3.f;
    }
    double mean = 0;
    for (int z = 0; z < nz; ++z) mean += compare_images(plane(a, nx, ny, z), plane(b, nx, ny, z), nx, ny).ssim / nz;
    const Metrics m = compare_volumes(a, b, nx, ny, nz);
    qInfo("4 planes: SSIM %.6f, mean of the planes %.6f", m.ssim, mean);
    QVERIFY(std::abs(m.ssim - mean) <= 1e-12);
    QVERIFY(m.ssim < 0.999);
  }

  // From 7 planes on the windows are 7×7×7: a volume whose planes repeat one image gives (nearly) that
  // image's SSIM — the same means, variances in a ratio 7·48/342 on both sides (only C2 sees it) — while
  // a perturbation confined to one plane counts in every window through it, more than in the plane mean.
  void windowsSpanSevenPlanes() {
    const int nx = 24, ny = 20, nz = 8;
    const auto a2 = pattern(nx, ny, 1, true), b2 = pattern(nx, ny, 1, false);
    std::vector<float> a, b;
    for (int z = 0; z < nz; ++z) {
      a.insert(a.end(), a2.begin(), a2.end());
      b.insert(b.end(), b2.begin(), b2.end());
    }
    const Metrics m3 = compare_volumes(a, b, nx, ny, nz), m2 = compare_images(a2, b2, nx, ny);
    qInfo("repeated plane: 3-D SSIM %.6f, 2-D %.6f; PSNR %.4f / %.4f dB", m3.ssim, m2.ssim, m3.psnr_db, m2.psnr_db);
    QVERIFY(std::abs(m3.ssim - m2.ssim) <= 2e-3);
    QVERIFY(std::abs(m3.psnr_db - m2.psnr_db) <= 1e-9);
    QVERIFY(std::abs(m3.percent_error - m2.percent_error) <= 1e-9);

    std::vector<float> c = b;  // b with one plane (z = 3) perturbed
    const auto p = plane(a, nx, ny, 3);
    std::copy(p.begin(), p.end(), c.begin() + static_cast<std::ptrdiff_t>(3 * p.size()));
    double plane_mean = 0;
    for (int z = 0; z < nz; ++z) plane_mean += compare_images(plane(c, nx, ny, z), plane(b, nx, ny, z), nx, ny).ssim / nz;
    const Metrics one = compare_volumes(c, b, nx, ny, nz);
    qInfo("one plane perturbed: 3-D SSIM %.6f, mean of the planes %.6f", one.ssim, plane_mean);
    QVERIFY(one.ssim < plane_mean);
  }

  // `mrwb compare` on two .h5 volumes and a .cfl one: the metrics of compare_volumes, the error map of the
  // worst slice; a 2-D image against a volume is refused with both sizes.
  void cliComparesVolumes() {
    const int nx = 24, ny = 20, nz = 9;
    const auto a = pattern(nx, ny, nz, true), b = pattern(nx, ny, nz, false);
    write_image_volume(path("a.h5").toStdString(), as_volume(a, nx, ny, nz));
    write_image_volume(path("b.cfl").toStdString(), as_volume(b, nx, ny, nz));
    write_image_volume(path("flat.h5").toStdString(), as_volume(plane(b, nx, ny, 0), nx, ny, 1));
    const Metrics m = compare_volumes(a, b, nx, ny, nz);
    const auto r = mrwb_test::run_mrwb({"compare", "--image", path("a.h5"), "--reference", path("b.cfl"), "--error-map",
                                        path("e.png"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const auto j = nlohmann::json::parse(r.out.toStdString());
    qInfo("mrwb compare on 24x20x9: PSNR %.3f dB, SSIM %.5f, error map slice %d", j["psnr_db"].get<double>(),
          j["ssim"].get<double>(), j["error_map_slice"].get<int>());
    QVERIFY(std::abs(j["psnr_db"].get<double>() - m.psnr_db) <= 1e-6 * std::abs(m.psnr_db));
    QVERIFY(std::abs(j["ssim"].get<double>() - m.ssim) <= 1e-9);
    QCOMPARE(j["slices"].get<int>(), nz);
    QCOMPARE(j["error_map_slice"].get<int>(), 5);  // the bump is centred on z = 5
    QVERIFY(QFileInfo(path("e.png")).size() > 0);

    const auto bad = mrwb_test::run_mrwb({"compare", "--image", path("flat.h5"), "--reference", path("b.cfl")});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("24x20 differs from") && bad.err.contains("24x20x9"), qPrintable(bad.err));
    // An all-zero reference: no figure, one line naming it, no error map written.
    write_image_volume(path("zero.h5").toStdString(), as_volume(std::vector<float>(nx * ny * nz, 0.f), nx, ny, nz));
    const auto zero = mrwb_test::run_mrwb(
        {"compare", "--image", path("a.h5"), "--reference", path("zero.h5"), "--error-map", path("z.png"), "--json"});
    QCOMPARE(zero.code, 2);
    QVERIFY2(zero.err.contains("zero.h5: the reference is all zero") && zero.err.trimmed().count('\n') == 0,
             qPrintable(zero.err));
    QVERIFY(zero.out.isEmpty() && !QFileInfo::exists(path("z.png")));
  }
};

QTEST_GUILESS_MAIN(TestCompareVolumes)
#include "test_compare_volumes.moc"
