// espirit_maps_cuda / espirit_from_calibration_cuda (gpu/recon, ESPIRiT of Uecker et al. 2014) against the CPU
// reference on loop-coil data: maps within 1e-4 relative RMS (magnitudes, and complex values: both carry the
// same phase reference) over the voxels both keep, eigenvalues likewise, the same kernels and crop; 8 to 64
// coils (cusolverDnCheevjBatched up to 32, cusolverDnXsyevBatched beyond, and both at 32), an odd size, readout
// oversampling; radial data through the backend choice (espirit_maps_noncart(raw, matrix, p, Backend)); the
// Jacobi solver's coil-count refusal. SKIPs visibly without a CUDA device.
#include <QTest>

#include <cmath>

#include "coil_test_object.hpp"
#include "input_error.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/espirit_backend.hpp"
#include "mrwb/recon/fft_layout.hpp"
#include "mrwb/recon/noncart_coil_raw.hpp"
#include "mrwb/recon/undersample.hpp"
#include "mrwb/sequence/trajectory.hpp"
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

// CUDA maps against the CPU's: the same grid, coils and kernels (QCOMPARE), then relative RMS of |maps|, of the
// complex maps and of the eigenvalues within 1e-4, and the crop differing at no more than 0.1 % of the voxels
// (an eigenvalue within float error of crop may fall either side).
void verify_agreement(const EspiritMaps& dev, const EspiritMaps& cpu, const char* what, const gpu::EspiritCudaTiming& t) {
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
  qInfo("%s: %d coils %dx%d, %d kernels; CUDA vs CPU relative RMS |maps| %.2e, complex %.2e, eigenvalue %.2e (max "
        "|diff| %.1e); crop differs at %d voxels; device: calibration %.2f ms, maps %.2f ms",
        what, cpu.coils, cpu.nx, cpu.ny, dev.kernels, mag, cplx, ev, ev_max, crop_differs, t.calibrate_ms, t.maps_ms);
  QVERIFY(mag <= 1e-4);
  QVERIFY(cplx <= 1e-4);
  QVERIFY(ev <= 1e-4);
  QVERIFY(crop_differs <= static_cast<int>(plane / 1000));
}

}  // namespace

class TestGpuEspirit : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { gpu::register_backends(); }  // as the executables do: espirit/cuda joins the registry
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  // espirit_maps_cuda's default solver: Jacobi up to 32 coils, XSYEV batched for 48 and 64.
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
    QTest::newRow("48 coils 128x128 R 2, noise") << 48 << 128 << 128 << 2 << 0 << true;
    QTest::newRow("64 coils 256x256, noise") << 64 << 256 << 256 << 1 << 0 << true;
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
    verify_agreement(dev, cpu, QTest::currentDataTag(), t);
  }

  // At 32 coils both batched solvers run: each within the bar of the CPU (their times in the log).
  void bothSolversMatchCpu() {
    const RawData raw = loop_coil_raw(32, 128, 128, 1, true);
    const EspiritParams p;
    const EspiritMaps cpu = espirit_maps(raw, p);
    const EspiritBlock b = espirit_calibration_block(raw, p);
    const FftLayout l = fft_layout(raw);
    for (const auto& [solver, name] : {std::pair{gpu::EspiritCudaSolver::Jacobi, "cheevjBatched"},
                                       std::pair{gpu::EspiritCudaSolver::Syev, "XsyevBatched"}}) {
      gpu::EspiritCudaTiming t;
      const EspiritMaps dev = gpu::espirit_from_calibration_cuda(b, l.Nx, l.Ny, p, solver, &t);
      verify_agreement(dev, cpu, name, t);
    }
  }

  // Radial data: the gridded centre reaches the CUDA backend through espirit_maps_noncart's backend choice.
  void noncartMatchesCpu_data() {
    QTest::addColumn<int>("coils");
    QTest::addColumn<int>("n");
    QTest::newRow("radial 8 coils 64x64") << 8 << 64;
    QTest::newRow("radial 48 coils 128x128") << 48 << 128;
  }
  void noncartMatchesCpu() {
    QFETCH(int, coils);
    QFETCH(int, n);
    const noncart::Trajectory t = noncart::radial_2d(n, 3 * n / 2, 2 * n, false);
    const RawData raw = noncart::multicoil_raw_noncart(mrwb_test::coil_test_object(n), loop_coil_sensitivities(coils, n, n, 0.2),
                                                       n, coils, t.k, t.readouts, t.samples, 0.2);
    const EspiritMaps cpu = espirit_maps_noncart(raw, 0, EspiritParams{}, Backend::Cpu),
                      dev = espirit_maps_noncart(raw, 0, EspiritParams{}, Backend::Cuda),
                      automatic = espirit_maps_noncart(raw, 0, EspiritParams{}, Backend::Auto);
    QCOMPARE(cpu.nx, n);
    verify_agreement(dev, cpu, QTest::currentDataTag(), {});
    const std::vector<bool> every(static_cast<std::size_t>(n) * n, true);
    QVERIFY(rel_rms(automatic.maps, dev.maps, every, [](cfloat v) { return v; }) <= 1e-6);
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

  void jacobiRefusesMoreThan32Coils() {
    const RawData raw = loop_coil_raw(33, 48, 48, 1, false);
    const EspiritBlock b = espirit_calibration_block(raw, EspiritParams{});
    const QString e = test::input_error(
        [&] { gpu::espirit_from_calibration_cuda(b, 48, 48, EspiritParams{}, gpu::EspiritCudaSolver::Jacobi); });
    QVERIFY2(e.contains("33 coils") && e.contains("allowed: 1 .. 32") && !e.contains('\n'), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestGpuEspirit)
#include "test_gpu_espirit.moc"
