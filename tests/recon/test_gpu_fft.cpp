// fft/cuda against core's FFTW reconstruction (reconstruct_fft): within 1e-5 relative RMS on one coil and
// on several (root sum of squares), with zero-filling around an asymmetric echo and partial-Fourier lines,
// readout oversampling cropped, odd sizes, and noise prewhitening. SKIPs visibly without a CUDA device.
#include <QTest>

#include <cmath>
#include <random>

#include "grappa_test_data.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/pipeline/register_backends.hpp"
#include "mrwb_gpu/recon/fft_cuda.hpp"
#include "numeric.hpp"

using namespace mrwb;

namespace {

// Random complex k-space of nx x ny x ncoils (the transform must hold for any data, not only images).
RawData random_raw(int ncoils, int nx, int ny, unsigned seed) {
  RawData raw;
  raw.nx = nx;
  raw.ny = ny;
  raw.ncoils = ncoils;
  raw.fov_x_m = 0.24 * nx / 64;
  raw.fov_y_m = 0.24 * ny / 64;
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  raw.kspace.resize(raw.kspace_size());
  for (auto& v : raw.kspace) v = {g(rng), g(rng)};
  return raw;
}

}  // namespace

class TestGpuFft : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { gpu::register_backends(); }  // as the executables do: fft/cuda joins the registry
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  void matchesCpu_data() {
    QTest::addColumn<int>("ncoils");
    QTest::addColumn<int>("nx");
    QTest::addColumn<int>("ny");
    QTest::addColumn<int>("center_sample");  // -1: nx / 2
    QTest::addColumn<int>("center_line");
    QTest::addColumn<int>("recon_nx");       // 0: no readout crop
    QTest::addColumn<bool>("noise");
    QTest::newRow("1 coil 64x64") << 1 << 64 << 64 << -1 << -1 << 0 << false;
    QTest::newRow("1 coil 256x192 asymmetric echo") << 1 << 256 << 192 << 100 << -1 << 0 << false;
    QTest::newRow("8 coils 128x96 partial Fourier lines") << 8 << 128 << 96 << -1 << 30 << 0 << false;
    QTest::newRow("8 coils 256x128 oversampled readout") << 8 << 256 << 128 << -1 << -1 << 128 << false;
    QTest::newRow("4 coils 63x45 odd") << 4 << 63 << 45 << -1 << -1 << 0 << false;
    QTest::newRow("16 coils 128x128 prewhitened") << 16 << 128 << 128 << -1 << -1 << 0 << true;
  }
  void matchesCpu() {
    QFETCH(int, ncoils);
    QFETCH(int, nx);
    QFETCH(int, ny);
    QFETCH(int, center_sample);
    QFETCH(int, center_line);
    QFETCH(int, recon_nx);
    QFETCH(bool, noise);
    RawData raw = random_raw(ncoils, nx, ny, 7u + nx + ny);
    raw.center_sample = center_sample;
    raw.center_line = center_line;
    raw.recon_nx = recon_nx;
    if (noise) {  // correlated coil noise, so the prewhitening mixes the coils
      std::mt19937 rng(3);
      std::normal_distribution<float> g;
      raw.noise_samples = 256;
      raw.noise.resize(static_cast<std::size_t>(ncoils) * raw.noise_samples);
      for (int s = 0; s < raw.noise_samples; ++s) {
        const std::complex<float> common(g(rng), g(rng));
        for (int c = 0; c < ncoils; ++c)
          raw.noise[static_cast<std::size_t>(c) * raw.noise_samples + s] = 0.5f * common + std::complex<float>(g(rng), g(rng));
      }
    }
    const Image2D cpu = reconstruct_fft(raw);
    const Image2D dev = gpu::reconstruct_fft_cuda(raw);
    QCOMPARE(dev.nx, cpu.nx);
    QCOMPARE(dev.ny, cpu.ny);
    QCOMPARE(dev.fov_x_m, cpu.fov_x_m);
    QCOMPARE(dev.fov_y_m, cpu.fov_y_m);
    const double e = test::rel_rms(dev.data, cpu.data);
    qInfo("%s: CUDA vs FFTW relative RMS %.3g (%dx%d image)", QTest::currentDataTag(), e, cpu.nx, cpu.ny);
    QVERIFY2(e <= 1e-5, qPrintable(QString("relative RMS %1 > 1e-5").arg(e)));
  }

  // The phantom through the registry: --method fft --backend cuda is the device path, and matches.
  void registryRunsTheDevicePath() {
    const RawData raw = grappa_test::phantom_raw(8, 128, 128);
    ReconOptions o;
    o.method = ReconMethod::Fft;
    o.backend = Backend::Cuda;
    auto r = make_reconstructor(ReconMethod::Fft, Backend::Cuda);
    QCOMPARE(QString::fromStdString(r->name()), QString("fft/cuda"));
    const Image2D dev = r->reconstruct(raw, o, {}, {});
    const double e = test::rel_rms(dev.data, reconstruct_fft(raw).data);
    qInfo("phantom, 8 coils: CUDA vs FFTW relative RMS %.3g", e);
    QVERIFY(e <= 1e-5);
  }

  void cartesianOnly() {
    RawData raw = random_raw(1, 16, 16, 1);
    raw.traj_dims = 2;
    raw.traj.assign(2 * 16 * 16, 0.f);
    QVERIFY_THROWS_EXCEPTION(InputError, gpu::reconstruct_fft_cuda(raw));
  }
};

QTEST_GUILESS_MAIN(TestGpuFft)
#include "test_gpu_fft.moc"
