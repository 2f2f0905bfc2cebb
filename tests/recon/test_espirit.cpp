// ESPIRiT maps (recon/espirit.hpp; Uecker et al. 2014): against `bart ecalib` on BART's own phantom (magnitude
// within 5 % over the object), against the simulator's true loop-coil maps, SENSE at R = 2 with them, and the
// refusals. MRWB_ESPIRIT_TIMING=1 adds a 256² x 32-coil timing beside `bart ecalib -m1`.
#include <QElapsedTimer>
#include <QTest>

#include "process_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "input_error.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/espirit.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb/recon/undersample.hpp"

using namespace mrwb;
using mrwb_test::run_program;
using cfloat = std::complex<float>;

namespace {

bool bart_available() { return run_program("bart", {"version"}).code == 0; }

// sqrt(sum (|a| − |b|)² / sum |b|²) over the coils at the voxels of `mask` ([y][x]); maps [coil][y][x].
double magnitude_rms(const std::vector<cfloat>& a, const std::vector<cfloat>& b, const std::vector<bool>& mask, int coils) {
  const std::size_t plane = mask.size();
  double num = 0, den = 0;
  for (int c = 0; c < coils; ++c)
    for (std::size_t i = 0; i < plane; ++i)
      if (mask[i]) {
        const double d = std::abs(a[c * plane + i]) - std::abs(b[c * plane + i]);
        num += d * d;
        den += std::norm(b[c * plane + i]);
      }
  return std::sqrt(num / den);
}

// The same on the complex values after the common phase of the coils is removed, per voxel (ESPIRiT maps are
// defined up to it) or once for the whole map (what is left is the phase normalisation's difference).
double phase_free_rms(const std::vector<cfloat>& a, const std::vector<cfloat>& b, const std::vector<bool>& mask, int coils,
                      bool per_voxel = true) {
  using cd = std::complex<double>;
  const std::size_t plane = mask.size();
  auto rotation = [&](std::size_t i0, std::size_t i1) {
    cd z = 0;
    for (std::size_t i = i0; i < i1; ++i)
      if (mask[i])
        for (int c = 0; c < coils; ++c) z += cd(a[c * plane + i]) * std::conj(cd(b[c * plane + i]));
    return std::abs(z) > 0 ? std::conj(z) / std::abs(z) : cd(1);
  };
  const cd global = rotation(0, plane);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < plane; ++i) {
    if (!mask[i]) continue;
    const cd rot = per_voxel ? rotation(i, i + 1) : global;
    for (int c = 0; c < coils; ++c) {
      num += std::norm(cd(a[c * plane + i]) * rot - cd(b[c * plane + i]));
      den += std::norm(b[c * plane + i]);
    }
  }
  return std::sqrt(num / den);
}

bool nonzero(const std::vector<cfloat>& maps, std::size_t plane, int coils, std::size_t i) {
  for (int c = 0; c < coils; ++c)
    if (std::abs(maps[c * plane + i]) > 0) return true;
  return false;
}

// An ellipse with a brighter and a darker disc and a gentle phase ramp.
constexpr int kN = 96, kCoils = 8;
constexpr double kFov = 0.2;
std::vector<cfloat> object() {
  std::vector<cfloat> im(kN * kN);
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      const double u = (x - kN / 2) / (0.40 * kN), v = (y - kN / 2) / (0.33 * kN);
      if (u * u + v * v > 1) continue;
      double m = 1;
      if (std::hypot(x - 36, y - 50) < 8) m = 1.8;
      if (std::hypot(x - 60, y - 44) < 6) m = 0.5;
      im[y * kN + x] = std::polar(static_cast<float>(m), static_cast<float>(0.015 * (x + y)));
    }
  return im;
}

}  // namespace

class TestEspirit : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* n) const { return dir_.filePath(n).toStdString(); }
  QString qpath(const char* n) const { return dir_.filePath(n); }

 private slots:
  // BART's analytic phantom seen by its 8 coils: our maps against `bart ecalib -m1 -r 24 -k 6` (its defaults
  // -t 0.001, -c 0.8) over the object (the coils' root sum of squares above 10 % of its maximum, both maps
  // nonzero). The product's bar: relative RMS of the magnitudes <= 5 %.
  void matchesBartEcalib() {
    if (!bart_available()) QSKIP("bart not installed (`bart version` failed)");
    QCOMPARE(run_program("bart", {"phantom", "-x", "128", "-s", "8", "-k", qpath("k")}).code, 0);
    const auto r = run_program("bart", {"ecalib", "-m1", "-r", "24", "-k", "6", qpath("k"), qpath("maps"), qpath("ev")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const RawData raw = read_raw_cfl(path("k"));
    QCOMPARE(raw.ncoils, 8);
    const CflArray bart = read_cfl(path("maps"));  // [x][y][z][coil], x fastest: our [coil][y][x]
    const CflArray bart_ev = read_cfl(path("ev"));
    QCOMPARE(bart.size(), static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils);

    const EspiritMaps ours = espirit_maps(raw, EspiritParams{});
    QCOMPARE(ours.nx, raw.nx);
    QCOMPARE(ours.ny, raw.ny);
    const std::size_t plane = static_cast<std::size_t>(raw.nx) * raw.ny;
    const Image2D rss = reconstruct_fft(raw);
    float peak = 0;
    for (const auto& v : rss.data) peak = std::max(peak, std::abs(v));
    std::vector<bool> mask(plane);
    // BART runs 30 orthogonal iterations from the first coil's unit vector: where the top two eigenvalues are
    // close it stops short of the top eigenvalue, which ours reaches; elsewhere the two agree.
    int inside = 0, ev_same = 0;
    double ev_below = 0;
    for (std::size_t i = 0; i < plane; ++i) {
      mask[i] = std::abs(rss.data[i]) > 0.1f * peak && nonzero(ours.maps, plane, 8, i) && nonzero(bart.data, plane, 8, i);
      if (!mask[i]) continue;
      ++inside;
      const double d = ours.eigenvalue[i] - std::abs(bart_ev.data[i]);
      ev_below = std::max(ev_below, -d);
      ev_same += std::abs(d) < 1e-4;
    }
    const double mag = magnitude_rms(ours.maps, bart.data, mask, 8), cplx = phase_free_rms(ours.maps, bart.data, mask, 8),
                 global = phase_free_rms(ours.maps, bart.data, mask, 8, false);
    qInfo("BART phantom 128^2, 8 coils: %d voxels over the object; relative RMS vs bart ecalib: |maps| %.3f %%, "
          "complex with the per-voxel phase removed %.3f %%, with one global phase removed %.3f %%; eigenvalue within "
          "1e-4 of BART's at %.2f %% of the voxels, nowhere below it by more than %.1e; %d kernels kept",
          inside, 100 * mag, 100 * cplx, 100 * global, 100.0 * ev_same / inside, ev_below, ours.kernels);
    QVERIFY(inside > static_cast<int>(plane / 10));
    QVERIFY(mag <= 0.05);
    // The eigenvalue is BART's (so crop means the same) but where BART has not converged.
    QVERIFY(ev_same >= 0.95 * inside);
    QVERIFY(ev_below < 1e-5);
  }

  // The simulator's loop coils on an ellipse, R = 2 with 24 ACS lines: the maps from the ACS block against the
  // true maps divided by their root sum of squares (magnitudes over the object), and SENSE with them.
  void recoversLoopCoilsAndUnfolds() {
    const auto truth = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    const auto obj = object();
    RawData raw = multicoil_raw(obj, truth, kCoils, kN, kN, kFov, kFov);
    undersample_cartesian(raw, 2, 24);
    const EspiritMaps esp = espirit_maps(raw, EspiritParams{});
    const std::size_t plane = static_cast<std::size_t>(kN) * kN;
    std::vector<float> rss(plane);
    std::vector<cfloat> normalised(truth.size());
    std::vector<bool> mask(plane);
    for (std::size_t i = 0; i < plane; ++i) {
      double s = 0;
      for (int c = 0; c < kCoils; ++c) s += std::norm(truth[c * plane + i]);
      rss[i] = static_cast<float>(std::sqrt(s));
      for (int c = 0; c < kCoils; ++c) normalised[c * plane + i] = truth[c * plane + i] / rss[i];
      mask[i] = std::abs(obj[i]) > 0;
    }
    int uncropped = 0, inside = 0;
    for (std::size_t i = 0; i < plane; ++i)
      if (mask[i]) ++inside, uncropped += nonzero(esp.maps, plane, kCoils, i);
    const double mag = magnitude_rms(esp.maps, normalised, mask, kCoils), cplx = phase_free_rms(esp.maps, normalised, mask, kCoils);

    const SenseResult with_true = sense_unfold(raw, truth), with_esp = sense_unfold(raw, esp.maps);
    // ESPIRiT's maps are the true ones / rss (up to a phase per voxel): SENSE returns rho · rss.
    double num_e = 0, num_t = 0, den = 0;
    for (std::size_t i = 0; i < plane; ++i)
      if (mask[i]) {
        const double ref = std::abs(obj[i]);
        num_e += std::pow(std::abs(with_esp.image.data[i]) / rss[i] - ref, 2);
        num_t += std::norm(with_true.image.data[i] - obj[i]);
        den += ref * ref;
      }
    const double sense_esp = std::sqrt(num_e / den), sense_true = std::sqrt(num_t / den);
    qInfo("loop coils %d^2, %d coils, R = 2, 24 ACS lines: %d/%d object voxels kept; maps vs true/rss: |.| %.3f %%, "
          "complex (per-voxel phase removed) %.3f %%; SENSE |rho| relative RMS over the object: ESPIRiT maps %.3f %%, "
          "true maps %.2e %%",
          kN, kCoils, uncropped, inside, 100 * mag, 100 * cplx, 100 * sense_esp, 100 * sense_true);
    QCOMPARE(uncropped, inside);
    QVERIFY(mag < 0.01);
    QVERIFY(sense_esp < 0.003);
    QVERIFY(sense_true < 1e-4);
  }

  // Readout oversampling (recon_nx = nx/2): the maps are those of the encoded grid, cropped as reconstruct_fft
  // crops the image.
  void cropsReadoutOversampling() {
    const auto truth = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    RawData raw = multicoil_raw(object(), truth, kCoils, kN, kN, kFov, kFov);
    const EspiritMaps full = espirit_maps(raw, EspiritParams{});
    raw.recon_nx = kN / 2;
    const EspiritMaps cropped = espirit_maps(raw, EspiritParams{});
    const Image2D image = reconstruct_fft(raw);
    QCOMPARE(cropped.nx, image.nx);
    QCOMPARE(cropped.ny, image.ny);
    const std::size_t plane = static_cast<std::size_t>(kN) * kN, half = plane / 2;
    int differ = 0;
    for (int c = 0; c < kCoils; ++c)
      for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN / 2; ++x)
          differ += cropped.maps[c * half + y * (kN / 2) + x] != full.maps[c * plane + y * kN + x + kN / 4];
    QCOMPARE(differ, 0);
  }

  void refusals() {
    const auto truth = loop_coil_sensitivities(kCoils, kN, kN, kFov);
    RawData raw = multicoil_raw(object(), truth, kCoils, kN, kN, kFov, kFov);
    RawData no_acs = raw;
    undersample_cartesian(no_acs, 2, 0);
    QString e = test::input_error([&] { espirit_maps(no_acs, EspiritParams{}); });
    QVERIFY2(e.contains("calibration region") && e.contains("allowed") && e.contains("got 1") && !e.contains('\n'),
             qPrintable(e));
    EspiritParams crop;
    crop.crop = 1.5;
    e = test::input_error([&] { espirit_maps(raw, crop); });
    QVERIFY2(e.contains("crop") && e.contains("[0, 1]"), qPrintable(e));
    EspiritParams kernel;
    kernel.kernel_size = 30;
    e = test::input_error([&] { espirit_maps(raw, kernel); });
    QVERIFY2(e.contains("kernel_size") && e.contains("[2, calib_size = 24]"), qPrintable(e));
    RawData radial = raw;
    radial.traj_dims = 2;
    radial.traj.assign(static_cast<std::size_t>(raw.nx) * raw.ny * 2, 0.f);
    e = test::input_error([&] { espirit_maps(radial, EspiritParams{}); });
    QVERIFY2(e.contains("non-Cartesian"), qPrintable(e));
  }

  // 256² x 32 loop coils, -r 24 -k 6: our time beside `bart ecalib -m1` (files written first, not timed for us;
  // bart's time includes reading and writing them). Only with MRWB_ESPIRIT_TIMING=1.
  void timingBesideBart() {
    if (qEnvironmentVariableIntValue("MRWB_ESPIRIT_TIMING") != 1) QSKIP("set MRWB_ESPIRIT_TIMING=1 to time");
    if (!bart_available()) QSKIP("bart not installed (`bart version` failed)");
    constexpr int n = 256, coils = 32;
    std::vector<cfloat> disc(n * n);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        if (std::hypot((x - n / 2) / 0.42, (y - n / 2) / 0.36) < n / 2) disc[y * n + x] = 1.0f + 0.3f * ((x / 16 + y / 16) % 2);
    RawData raw = multicoil_raw(disc, loop_coil_sensitivities(coils, n, n, kFov), coils, n, n, kFov, kFov);
    // Receiver noise (image SNR ~ 50 at the object's mean coil signal) as in a scan: it sets how many kernels
    // pass -t 0.001, and so the work.
    add_receiver_noise(raw, 0.3, 0.0);
    write_raw_cfl(path("k256"), "", raw);
    QElapsedTimer t;
    t.start();
    const EspiritMaps ours = espirit_maps(raw, EspiritParams{});
    const double ours_s = t.nsecsElapsed() * 1e-9;
    t.restart();
    const auto r = run_program("bart", {"ecalib", "-m1", "-r", "24", "-k", "6", qpath("k256"), qpath("m256")});
    const double bart_s = t.nsecsElapsed() * 1e-9;
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const CflArray bart = read_cfl(path("m256"));
    const std::size_t plane = static_cast<std::size_t>(n) * n;
    std::vector<bool> mask(plane);
    const long object = std::count_if(disc.begin(), disc.end(), [](cfloat v) { return std::abs(v) > 0; });
    for (std::size_t i = 0; i < plane; ++i)
      mask[i] = std::abs(disc[i]) > 0 && nonzero(ours.maps, plane, coils, i) && nonzero(bart.data, plane, coils, i);
    const double mag = magnitude_rms(ours.maps, bart.data, mask, coils);
    qInfo("256^2 x 32 coils, -r 24 -k 6: ours %.3f s (%d kernels), bart ecalib -m1 %.3f s, ratio %.2f; |maps| vs bart "
          "%.3f %% over %d voxels",
          ours_s, ours.kernels, bart_s, ours_s / bart_s, 100 * mag, static_cast<int>(std::count(mask.begin(), mask.end(), true)));
    QVERIFY(std::count(mask.begin(), mask.end(), true) > 0.9 * object);
    QVERIFY(mag <= 0.05);
  }
};

QTEST_GUILESS_MAIN(TestEspirit)
#include "test_espirit.moc"
