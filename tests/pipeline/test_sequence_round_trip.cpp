// What the user designs is what is simulated, for every sequence family: the scenario's blocks exported as
// Pulseq, read back and played give the k-space of simulating the scenario itself (relative RMS <= 1e-6 on
// the CPU). 2-D families go through `mrwb simulate --seq`'s path (simulate_imported_sequence, the file's
// own labels and gradients); multi-slice and 3-D slabs through the volume simulation of the imported blocks.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "fixtures.hpp"
#include "sanitizer_scale.hpp"
#include "sequence_families.hpp"
#include "numeric.hpp"
#include "mrwb/pipeline/phase_contrast.hpp"
#include "mrwb/pipeline/pulseq_simulation.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/volume_simulation.hpp"

using namespace mrwb;

namespace {

// Relative RMS of b against a over the lines both hold (an accelerated file ends at its last acquired line).
double rel_rms_common(const RawData& a, const RawData& b) {
  double num = 0, den = 0;
  const int planes = a.slices * a.partitions;
  for (int c = 0; c < a.ncoils; ++c)
    for (int p = 0; p < planes; ++p)
      for (int l = 0; l < a.ny; ++l)
        for (int i = 0; i < a.nx; ++i) {
          const std::size_t ia = ((static_cast<std::size_t>(c) * planes + p) * a.ny + l) * a.nx + i;
          const std::complex<float> va = a.kspace[ia];
          const std::complex<float> vb = l < b.ny ? b.kspace[((static_cast<std::size_t>(c) * planes + p) * b.ny + l) * b.nx + i]
                                                  : std::complex<float>{};
          num += std::norm(std::complex<double>(vb) - std::complex<double>(va));
          den += std::norm(std::complex<double>(va));
        }
  return den > 0 ? std::sqrt(num / den) : INFINITY;
}

}  // namespace

class TestSequenceRoundTrip : public QObject {
  Q_OBJECT
 private slots:
  void exportImportSimulateIsTheScenario_data() {
    QTest::addColumn<QString>("family");
    for (const std::string& f : test::sequence_family_names()) QTest::newRow(f.c_str()) << QString::fromStdString(f);
  }
  void exportImportSimulateIsTheScenario() {
    QFETCH(QString, family);
    try {
      roundTrip(family);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
  }

  // Following the RF phase (bSSFP's 0/180° alternation) is a change of frame: the same samples with the
  // spins rotated about z as without, demodulated afterwards, for still and for flowing spins (the
  // rotation commutes with precession, relaxation and transport, and leaves the free intervals as they are).
  void followingTheRfPhaseIsAFrameChange() {
    const Scenario s = test::sequence_family_scenario("bssfp", MRWB_SOURCE_DIR);
    const seq::BuiltSequence built = validated_sequence(s, "scenario");
    CellPhantom moving = build_phantom(s);
    CellPhantom still = moving;
    std::fill(still.ux.begin(), still.ux.end(), 0.f);
    std::fill(still.uy.begin(), still.uy.end(), 0.f);
    for (const CellPhantom* ph : {&still, &moving}) {
      std::vector<std::complex<float>> out[2];
      for (int follow = 0; follow < 2; ++follow) {
        seq::ConversionOptions o = scenario_conversion(s.sequence);
        o.follow_rf_phase = follow;
        const seq::ProgramConversion c = seq::to_sequence_program(built.seq, o);
        CpuSimulationEngine engine;
        std::vector<std::complex<float>> truth(ph->size());
        out[follow].resize(static_cast<std::size_t>(c.program.readouts) * c.program.nx);
        engine.run(*ph, c.program, {}, out[follow], truth, {}, {});
        seq::demodulate(c, out[follow], 1);
      }
      const double d = test::rel_rms(out[1], out[0]);
      qInfo("%s: followed vs demodulated afterwards, relative RMS %.2e", ph == &still ? "still" : "flowing", d);
      QVERIFY(d <= 1e-6);
    }
  }

 private:
  void roundTrip(const QString& family) {
    Scenario s = test::sequence_family_scenario(family.toStdString(), MRWB_SOURCE_DIR);
    // Phase contrast plays its waveforms time-stepped with flow, which the sanitizer slows tenfold: there at
    // matrix 16, the same sequence of fewer lines.
    if (s.sequence.type == SequenceType::PhaseContrast)
      s.sequence.matrix = test::full_or_sanitized(s.sequence.matrix, std::min(s.sequence.matrix, 16));
    const seq::BuiltSequence built = validated_sequence(s, "scenario");
    seq::BuiltSequence imported = built;  // TE / TR / report as built; the blocks from the file
    imported.seq = seq::parse_pulseq(seq::pulseq_text(built.seq), "exported.seq");
    QCOMPARE(imported.seq.blocks.size(), built.seq.blocks.size());
    auto engine = make_simulation_engine(Backend::Cpu);
    std::vector<RawData> direct, played;
    if (is_volume_scenario(s)) {
      const CellPhantom ph = build_phantom(s);
      direct.push_back(simulate_volume(s, built, ph, *engine, {}, {}).raw);
      played.push_back(simulate_volume(s, imported, ph, *engine, {}, {}).raw);
    } else if (s.sequence.type == SequenceType::PhaseContrast) {
      direct = simulate_phase_contrast(s, built, *engine, {}, {}).segments;
      played = simulate_imported_sequence(s, imported.seq, *engine, {}, {}).segments;
    } else {
      direct.push_back(simulate(s, built, *engine, {}, {}).raw);
      played = simulate_imported_sequence(s, imported.seq, *engine, {}, {}).segments;
    }
    QCOMPARE(played.size(), direct.size());
    double worst = 0, worst_k = 0;
    for (std::size_t g = 0; g < direct.size(); ++g) {
      const RawData &a = direct[g], &b = played[g];
      QCOMPARE(b.nx, a.nx);
      QVERIFY(b.ny <= a.ny && b.ny >= a.ny - s.sequence.acceleration);
      QCOMPARE(b.traj.size(), a.traj.size());
      for (std::size_t i = 0; i < a.traj.size(); ++i) worst_k = std::max(worst_k, double(std::abs(a.traj[i] - b.traj[i])));
      worst = std::max(worst, rel_rms_common(a, b));
    }
    qInfo("%s (%s): %zu segment(s) of %d x %d, k-space relative RMS %.2e, trajectory max |dk| %.2e cycles/FOV",
          qPrintable(family), played_fidelity_text(s.sequence).c_str(), direct.size(), direct[0].ny, direct[0].nx, worst, worst_k);
    QVERIFY2(worst <= 1e-6, qPrintable(QString("relative RMS %1").arg(worst)));
    QVERIFY(worst_k <= 1e-4);
  }
};

QTEST_GUILESS_MAIN(TestSequenceRoundTrip)
#include "test_sequence_round_trip.moc"
