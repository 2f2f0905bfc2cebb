// Every sequence family's scenario simulated by the CUDA engine and by the CPU reference: the same raw
// data (relative RMS <= 1e-4), through the same validated blocks and conversion. SKIPs without a device.
#include <QTest>

#include "numeric.hpp"
#include "sequence_families.hpp"
#include "mrwb/pipeline/phase_contrast.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/volume_simulation.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"

using namespace mrwb;

namespace {

std::vector<RawData> simulate_family(const Scenario& s, const seq::BuiltSequence& built, SimulationEngine& engine) {
  if (is_volume_scenario(s)) return {simulate_volume(s, built, build_phantom(s), engine, {}, {}).raw};
  if (s.sequence.type == SequenceType::PhaseContrast) return simulate_phase_contrast(s, built, engine, {}, {}).segments;
  return {simulate(s, built, engine, {}, {}).raw};
}

}  // namespace

class TestGpuFamilies : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  void cudaMatchesCpuForEveryFamily_data() {
    QTest::addColumn<QString>("family");
    for (const std::string& f : test::sequence_family_names()) QTest::newRow(f.c_str()) << QString::fromStdString(f);
  }
  void cudaMatchesCpuForEveryFamily() {
    QFETCH(QString, family);
    const Scenario s = test::sequence_family_scenario(family.toStdString(), MRWB_SOURCE_DIR);
    const seq::BuiltSequence built = validated_sequence(s, "scenario");
    CpuSimulationEngine cpu;
    const auto cuda = gpu::make_cuda_simulation_engine();
    const std::vector<RawData> a = simulate_family(s, built, cpu), b = simulate_family(s, built, *cuda);
    QCOMPARE(b.size(), a.size());
    double worst = 0;
    for (std::size_t g = 0; g < a.size(); ++g) {
      QCOMPARE(b[g].kspace.size(), a[g].kspace.size());
      worst = std::max(worst, test::rel_rms(b[g].kspace, a[g].kspace));
    }
    qInfo("%s (%s): CUDA vs CPU k-space relative RMS %.2e", qPrintable(family), played_fidelity_text(s.sequence).c_str(), worst);
    QVERIFY2(worst <= 1e-4, qPrintable(QString("relative RMS %1").arg(worst)));
  }
};

QTEST_GUILESS_MAIN(TestGpuFamilies)
#include "test_gpu_families.moc"
