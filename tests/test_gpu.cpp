// CUDA twins against their CPU references. Every case SKIPs visibly when no CUDA device is present.
#include <QtTest>

#include <cmath>
#include <random>

#include "mrwb/bloch_cell_ops.hpp"
#include "mrwb/recon_fft.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/simulation_engine.hpp"
#include "mrwb_gpu/cuda_simulation_engine.hpp"
#include "mrwb_gpu/register_backends.hpp"

using namespace mrwb;

namespace {
double rel_rms(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += std::norm(std::complex<double>(a[i]) - std::complex<double>(b[i]));
    den += std::norm(std::complex<double>(b[i]));
  }
  return std::sqrt(num / den);
}
}  // namespace

class TestGpu : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  // One Bloch step on 1M random cells: device vs host within 2 ulp-ish (1e-6 absolute, |M| <= 1).
  void blochStepMatchesCpu() {
    const std::size_t n = 1 << 20;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f), p(0.f, 1.f);
    std::vector<bloch::Mag> m(n);
    std::vector<float> pd(n), omE1(n), e2(n), c(n), s(n);
    for (std::size_t i = 0; i < n; ++i) {
      m[i] = {u(rng), u(rng), u(rng)};
      pd[i] = p(rng);
      omE1[i] = p(rng);  // 1 − E1
      e2[i] = p(rng);
      const float th = 10 * u(rng);
      c[i] = std::cos(th);
      s[i] = std::sin(th);
    }
    auto cpu = m;
    for (std::size_t i = 0; i < n; ++i) bloch::precess_relax(cpu[i], pd[i], omE1[i], e2[i], c[i], s[i]);
    gpu::precess_relax_on_device(m, pd, omE1, e2, c, s);
    float worst = 0;
    for (std::size_t i = 0; i < n; ++i)
      worst = std::max({worst, std::abs(m[i].Mx - cpu[i].Mx), std::abs(m[i].My - cpu[i].My), std::abs(m[i].Mz - cpu[i].Mz)});
    qInfo("Bloch step, %zu cells: max |GPU - CPU| = %.3g", n, worst);
    QVERIFY(worst <= 1e-6f);
  }

  // The whole spoiled-GE simulation of the default scenario: k-space and truth within 1e-4 relative RMS.
  void engineMatchesCpu() {
    Scenario s = scenario_preset("default");
    CpuSimulationEngine cpu;
    auto cuda = gpu::make_cuda_simulation_engine();
    const SimulationResult a = simulate(s, cpu, {}, {});
    const SimulationResult b = simulate(s, *cuda, {}, {});
    const double dk = rel_rms(b.raw.kspace, a.raw.kspace);
    const double dt = rel_rms(b.truth.data, a.truth.data);
    qInfo("default scenario: CPU %.3f s, CUDA %.3f s; k-space rel. RMS diff %.3g, truth %.3g", a.seconds, b.seconds,
          dk, dt);
    QVERIFY(dk <= 1e-4);
    QVERIFY(dt <= 1e-4);
  }

  void cancelStopsTheGpuRun() {
    Scenario s = scenario_preset("default");
    s.sequence.dummy_scans = 20000;
    auto cuda = gpu::make_cuda_simulation_engine();
    CancelToken token;
    token.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, simulate(s, *cuda, {}, token));
  }
};

QTEST_GUILESS_MAIN(TestGpu)
#include "test_gpu.moc"
