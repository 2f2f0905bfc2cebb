// g-factor maps by pseudo-multiple replicas (pipeline/gfactor_replica.hpp) with the reconstructions on CUDA:
// the same replicas (same seeds) through sense/cuda (CG-SENSE on Poisson-disc lines) and cs/cuda give the maps
// the CPU reconstructors give, within what float rounding of each replica's image leaves in its noise.
// SKIPs visibly without a CUDA device.
#include <QTest>

#include <cmath>

#include "coil_test_object.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/pipeline/gfactor_replica.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/pipeline/register_backends.hpp"

using namespace mrwb;

class TestGpuGfactor : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { gpu::register_backends(); }
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  void replicasOnCudaMatchTheCpu_data() {
    QTest::addColumn<int>("method");
    QTest::newRow("sense (CG-SENSE)") << int(ReconMethod::Sense);
    QTest::newRow("cs") << int(ReconMethod::Cs);
  }
  void replicasOnCudaMatchTheCpu() {
    QFETCH(int, method);
    const int n = 64, coils = 8;
    const auto maps = loop_coil_sensitivities(coils, n, n, 0.2);
    RawData raw = multicoil_raw(mrwb_test::coil_test_object(n), maps, coils, n, n, 0.2, 0.2);
    raw.line_flags = poisson_disc_lines(n, 3, 12, 1);
    for (int l = 0; l < n; ++l)
      if (!(raw.line_flags[l] & kLineAcquired))
        for (int c = 0; c < coils; ++c)
          for (int x = 0; x < n; ++x) raw.at(c, l, x) = {};
    raw.accel_R = 3;
    ReconOptions o;
    o.method = ReconMethod(method);
    o.sense.maps = maps;
    o.sense.cg.iterations = 20;
    o.cs.iterations = 40;
    ReplicaGfactorOptions r;
    r.replicas = 24;
    o.backend = Backend::Cpu;
    const GfactorMap cpu = pseudo_replica_gfactor(raw, o, r);
    o.backend = Backend::Cuda;
    const GfactorMap cuda = pseudo_replica_gfactor(raw, o, r);
    double num = 0, den = 0, mean_cpu = 0, mean_cuda = 0;
    int both = 0, one = 0;
    for (std::size_t i = 0; i < cpu.g.size(); ++i) {
      if ((cpu.g[i] > 0) != (cuda.g[i] > 0)) ++one;
      if (cpu.g[i] > 0 && cuda.g[i] > 0) {
        num += (cuda.g[i] - cpu.g[i]) * (cuda.g[i] - cpu.g[i]);
        den += cpu.g[i] * cpu.g[i];
        mean_cpu += cpu.g[i];
        mean_cuda += cuda.g[i];
        ++both;
      }
    }
    const double rel = std::sqrt(num / den);
    qInfo("%s, Poisson-disc R = 3, 24 replicas: g CUDA vs CPU relative RMS %.2e over %d pixels (%d reported by one only); "
          "mean g CPU %.4f, CUDA %.4f",
          to_string(o.method).data(), rel, both, one, mean_cpu / both, mean_cuda / both);
    QVERIFY(both > n * n / 4);
    QVERIFY(one <= n * n / 100);
    QVERIFY(rel < 1e-2);
  }
};

QTEST_GUILESS_MAIN(TestGpuGfactor)
#include "test_gpu_gfactor.moc"
