// espirit_maps_cuda (gpu/recon, ESPIRiT of Uecker et al. 2014) against the CPU reference espirit_maps on
// loop-coil data: maps within 1e-4 relative RMS (magnitudes, and complex values: both carry the same phase
// reference), eigenvalues likewise, the same kernels and crop; 8 and 32 coils, an odd size, readout
// oversampling; the backend choice (espirit_maps(raw, p, Backend)) and the coil-count refusal. SKIPs visibly
// without a CUDA device.
#include <QtTest>

#include <cmath>

#include "coil_test_object.hpp"
#include "input_error.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/espirit_backend.hpp"
#include "mrwb/recon/undersample.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/pipeline/register_backends.hpp"
#include "mrwb_gpu/recon/espirit_cuda.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;

namespace {

RawData loop_coil_raw(int coils, int nx, int ny, int R, bool noise) {
  const int n = std::max(nx, ny);
  const auto big = mrwb_test::coil_test_object(n);
  std::vector<cfloat> obj(static_cast<std::size_t>(nx) * ny);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) obj[static_cast<std::size_t>(y) * nx + x] = big[(y + (n - ny) / 2) * n + x + (n - nx) / 2];
  RawData raw = multicoil_raw(obj, loop_coil_sensitivities(coils, nx, ny, 0.2), coils, nx, ny, 0.2, 0.2 * ny / nx);
  if (noise) add_receiver_noise(raw, 0.02, 0.0);
  if (R > 1) undersample_cartesian(raw, R, 24);
  return raw;
}

// sqrt(sum |f(a_i) − f(b_i)|² / sum |f(b_i)|²).
template <class F>
// Over the voxels both keep (keep [y][x]; maps [coil][y][x]): a voxel cropped by one and kept by the other is
// counted apart (crop_differs), not as a map difference.
double rel_rms(const std::vector<cfloat>& a, const std::vector<cfloat>& b, const std::vector<bool>& keep, F f) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!keep[i % keep.size()]) continue;
    num += std::norm(f(a[i]) - f(b[i]));
    den += std::norm(f(b[i]));
  }
  return std::sqrt(num / den);
}

}  // namespace

class TestGpuEspirit : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { gpu::register_backends(); }  // as the executables do: espirit/cuda joins the registry
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  void matchesCpu_data() {
    QTest::addColumn<int>("coils");
    QTest::addColumn<int>("nx");
    QTest::addColumn<int>("ny");
    QTest::addColumn<int>("R");
    QTest::addColumn<int>("recon_nx");  // 0: no readout oversampling
    QTest::addColumn<bool>("noise");
    QTest::newRow("8 coils 96x96 R 2") << 8 << 96 << 96 << 2 << 0 << false;
    QTest::newRow("8 coils 77x61 odd, noise") << 8 << 77 << 61 << 1 << 0 << true;
    QTest::newRow("32 coils 128x128 R 3, noise") << 32 << 128 << 128 << 3 << 0 << true;
    QTest::newRow("32 coils 256x256, noise") << 32 << 256 << 256 << 1 << 0 << true;
    QTest::newRow("8 coils 128x64 oversampled readout") << 8 << 128 << 64 << 1 << 64 << false;
  }
  void matchesCpu() {
    QFETCH(int, coils);
    QFETCH(int, nx);
    QFETCH(int, ny);
    QFETCH(int, R);
    QFETCH(int, recon_nx);
    QFETCH(bool, noise);
    RawData raw = loop_coil_raw(coils, nx, ny, R, noise);
    raw.recon_nx = recon_nx;
    const EspiritMaps cpu = espirit_maps(raw, EspiritParams{});
    gpu::EspiritCudaTiming t;
    const EspiritMaps dev = gpu::espirit_maps_cuda(raw, EspiritParams{}, &t);
    QCOMPARE(dev.nx, cpu.nx);
    QCOMPARE(dev.ny, cpu.ny);
    QCOMPARE(dev.coils, cpu.coils);
    QCOMPARE(dev.kernels, cpu.kernels);
    const std::size_t plane = static_cast<std::size_t>(cpu.nx) * cpu.ny;
    int crop_differs = 0;
    std::vector<bool> both(plane);
    double ev_num = 0, ev_den = 0, ev_max = 0;
    for (std::size_t i = 0; i < plane; ++i) {
      const double d = dev.eigenvalue[i] - cpu.eigenvalue[i];
      ev_num += d * d;
      ev_den += static_cast<double>(cpu.eigenvalue[i]) * cpu.eigenvalue[i];
      ev_max = std::max(ev_max, std::abs(d));
      const bool kept_dev = std::abs(dev.maps[i]) > 0 || std::abs(dev.maps[plane + i]) > 0,
                 kept_cpu = std::abs(cpu.maps[i]) > 0 || std::abs(cpu.maps[plane + i]) > 0;
      crop_differs += kept_dev != kept_cpu;
      both[i] = kept_dev && kept_cpu;
    }
    const double mag = rel_rms(dev.maps, cpu.maps, both, [](cfloat v) { return cfloat(std::abs(v)); }),
                 cplx = rel_rms(dev.maps, cpu.maps, both, [](cfloat v) { return v; }), ev = std::sqrt(ev_num / ev_den);
    qInfo("%d coils %dx%d R %d: %d kernels; CUDA vs CPU relative RMS |maps| %.2e, complex %.2e, eigenvalue %.2e (max "
          "|diff| %.1e); crop differs at %d voxels; device: calibration %.2f ms, maps %.2f ms",
          coils, nx, ny, R, dev.kernels, mag, cplx, ev, ev_max, crop_differs, t.calibrate_ms, t.maps_ms);
    QVERIFY(mag <= 1e-4);
    QVERIFY(cplx <= 1e-4);
    QVERIFY(ev <= 1e-4);
    // Voxels with an eigenvalue within float error of crop may fall either side.
    QVERIFY(crop_differs <= static_cast<int>(plane / 1000));
  }

  // The backend choice: auto takes CUDA here, cpu the reference; both the same maps.
  void backendChoice() {
    const RawData raw = loop_coil_raw(8, 64, 64, 2, false);
    const EspiritMaps a = espirit_maps(raw, EspiritParams{}, Backend::Auto),
                      c = espirit_maps(raw, EspiritParams{}, Backend::Cpu),
                      g = gpu::espirit_maps_cuda(raw, EspiritParams{});
    const std::vector<bool> every(static_cast<std::size_t>(64) * 64, true);
    QVERIFY(rel_rms(a.maps, g.maps, every, [](cfloat v) { return v; }) <= 1e-6);
    QVERIFY(rel_rms(a.maps, c.maps, every, [](cfloat v) { return v; }) <= 1e-4);
  }

  void refusesMoreThan32Coils() {
    const RawData raw = loop_coil_raw(33, 48, 48, 1, false);
    const QString e = test::input_error([&] { gpu::espirit_maps_cuda(raw, EspiritParams{}); });
    QVERIFY2(e.contains("33 coils") && e.contains("allowed: 1 .. 32") && !e.contains('\n'), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestGpuEspirit)
#include "test_gpu_espirit.moc"
