// The end-to-end pipeline of the GUI and scripts/run on undersampled multi-coil data: the simulator
// skips the lines an acceleration R leaves out (ACS block kept), GRAPPA restores them.
#include <QTest>

#include <map>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/pipeline/pulseq_simulation.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "numeric.hpp"
#include "sanitizer_scale.hpp"

using namespace mrwb;

class TestPipeline : public QObject {
  Q_OBJECT
  static Scenario base() {
    Scenario s = mrwb::test::cpu_preset("straight_vessel", 64, 100);
    s.coils.count = 8;  // loop coils
    return s;
  }
  // base() with `coils` coils, fully sampled: the reference several cases compare with, run once per process.
  static const PipelineResult& fully_sampled(int coils) {
    static std::map<int, PipelineResult> runs;
    auto it = runs.find(coils);
    if (it == runs.end()) {
      Scenario s = base();
      s.coils.count = coils;
      it = runs.emplace(coils, run_pipeline(s, {}, {})).first;
    }
    return it->second;
  }

 private slots:
  // recon.method sense: the pipeline unfolds with the simulator's own coil maps (SENSE, Pruessmann et al.
  // 1999) and lands far closer to the truth than the zero-filled FFT of the same R = 2 data, as close as GRAPPA.
  void senseWithTheSimulatorsMaps() {
    Scenario s = mrwb::test::cpu_preset("straight_vessel", 64, 50);
    s.coils.count = 8;
    s.sequence.acceleration = 2;
    s.sequence.acs_lines = 24;
    auto psnr = [&](ReconMethod m) {
      Scenario t = s;
      t.recon.method = m;
      return run_pipeline(t, {}, {}).metrics.psnr_db;
    };
    const double sense = psnr(ReconMethod::Sense), fft = psnr(ReconMethod::Fft), grappa = psnr(ReconMethod::Grappa);
    Scenario full = s;
    full.sequence.acceleration = 1;
    const double ceiling = run_pipeline(full, {}, {}).metrics.psnr_db;  // every line: Gibbs ringing is the limit
    qInfo("R = 2, 8 loop coils, 64^2: SENSE %.2f dB, GRAPPA %.2f dB, zero-filled FFT %.2f dB; every line %.2f dB", sense,
          grappa, fft, ceiling);
    QVERIFY(sense > fft + 4);
    QVERIFY(sense > grappa - 1);
    QVERIFY(sense > ceiling - 1.5);
    // R above the coils cannot be unfolded: the scenario says so before any simulation.
    s.recon.method = ReconMethod::Sense;
    s.coils.count = 1;
    try {
      run_pipeline(s, {}, {});
      QFAIL("SENSE at R = 2 with one coil");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("recon.method = sense with sequence.acceleration = 2 (allowed: 1 .. coils.count = 1"),
               e.what());
    }
  }

  // The first scenario a newcomer runs (the GUI's start, scripts/run's phantoms/default.json) shows flow:
  // along the vessel's axis, the blood where it enters the field of view is at least twice as bright as
  // where it leaves (each TR saturates it further), brighter than the still muscle, and brighter than the
  // same blood held still (inflow enhancement, the contrast of time-of-flight angiography). Under the sanitizer
  // at matrix 64 (2 mm pixels, the same field of view, flow and TR): the points compared are in metres.
  void defaultScenarioShowsInflowEnhancement() {
    const Scenario shipped = load_scenario(MRWB_SOURCE_DIR "/phantoms/default.json");
    QCOMPARE(scenario_to_json_text(shipped), scenario_to_json_text(scenario_preset("default")));
    QVERIFY(shipped.flow.enabled);
    Scenario s = shipped;
    s.backend = Backend::Cpu;
    s.sequence.matrix = test::full_or_sanitized(s.sequence.matrix, 64);
    Scenario still = s;
    still.flow.enabled = false;
    const PipelineResult flowing = run_pipeline(s, {}, {}), held = run_pipeline(still, {}, {});
    const int n = flowing.truth.nx;
    const double dx = s.sequence.fov_m / n, a = s.phantom.vessel_angle_deg * M_PI / 180;
    // Mean |Mxy| over the 3x3 pixels around the point d metres along the axis (x right, y up, 0 at the centre).
    auto along = [&](const Image2D& img, double d) {
      const auto m = img.magnitude();
      const int cx = static_cast<int>(std::lround(d * std::cos(a) / dx)) + n / 2;
      const int cy = static_cast<int>(std::lround(d * std::sin(a) / dx)) + n / 2;
      double sum = 0;
      for (int y = cy - 1; y <= cy + 1; ++y)
        for (int x = cx - 1; x <= cx + 1; ++x) sum += m[static_cast<std::size_t>(y) * n + x];
      return sum / 9;
    };
    const double lo = along(flowing.truth, -0.045), hi = along(flowing.truth, 0.045);
    const double inflow = std::max(lo, hi), outflow = std::min(lo, hi);
    // Muscle: 30 mm off the axis, inside the disc.
    const auto m = flowing.truth.magnitude();
    const int mx = n / 2 - static_cast<int>(std::lround(0.03 * std::sin(a) / dx));
    const int my = n / 2 + static_cast<int>(std::lround(0.03 * std::cos(a) / dx));
    const double muscle = m[static_cast<std::size_t>(my) * n + mx];
    const double still_blood = along(held.truth, lo >= hi ? -0.045 : 0.045);
    qInfo("default scenario along the vessel: entering %.4g, leaving %.4g (ratio %.2f), muscle %.4g, the same "
          "blood still %.4g (enhancement %.2f); recon vs truth %.2f dB",
          inflow, outflow, inflow / outflow, muscle, still_blood, inflow / still_blood, flowing.metrics.psnr_db);
    QVERIFY(inflow >= 2 * outflow);
    QVERIFY(inflow > muscle);
    QVERIFY(inflow >= 1.5 * still_blood);
  }

  // What the user designs is what is simulated: the scenario's sequence exported as Pulseq, read back and
  // played (`mrwb simulate --seq`) gives the k-space of simulating the scenario itself (under the sanitizer at
  // 64², the same sequence of fewer lines).
  void exportedSequenceSimulatesTheSame_data() {
    QTest::addColumn<int>("type");
    QTest::newRow("spoiled_gre") << static_cast<int>(SequenceType::SpoiledGre);
    QTest::newRow("spin_echo") << static_cast<int>(SequenceType::SpinEcho);
  }
  void exportedSequenceSimulatesTheSame() {
    QFETCH(int, type);
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = test::full_or_sanitized(s.sequence.matrix, 64);
    s.sequence.type = static_cast<SequenceType>(type);
    s.sequence.dummy_scans = 20;
    if (s.sequence.type == SequenceType::SpinEcho) {
      s.sequence.TE_s = 0.02;
      s.sequence.TR_s = 0.1;
    }
    auto engine = make_simulation_engine(Backend::Cpu);
    const SimulationResult direct = simulate(s, *engine, {}, {});
    const seq::BlockSequence file =
        seq::parse_pulseq(seq::pulseq_text(seq::scenario_blocks(s.sequence).seq), "exported.seq");
    const ImportedSequenceRun imported = simulate_imported_sequence(s, file, *engine, {}, {});
    QCOMPARE(imported.segments.size(), std::size_t{1});
    const RawData& a = direct.raw;
    const RawData& b = imported.segments.front();
    QCOMPARE(b.nx, a.nx);
    QCOMPARE(b.ny, a.ny);
    const double diff = test::rel_rms(b.kspace, a.kspace);
    qInfo("%s: scenario vs exported .seq, k-space relative RMS %.2e", QTest::currentDataTag(), diff);
    QVERIFY(diff <= 1e-6);
  }

  // The run reports how the sequence's blocks were played (sequence.fidelity, "auto" resolved); under the sanitizer
  // on a 32² image.
  void runNamesTheFidelityPlayed() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = test::full_or_sanitized(s.sequence.matrix, 32);
    s.sequence.dummy_scans = 10;
    s.backend = Backend::Cpu;
    QCOMPARE(run_pipeline(s, {}, {}).sequence_played, std::string("hard RF, gradient moments, ideal spoiling"));
    s.sequence.fidelity.rf = RfFidelity::Shaped;
    s.sequence.fidelity.spoiling = SpoilingFidelity::Gradients;
    QCOMPARE(run_pipeline(s, {}, {}).sequence_played,
             std::string("shaped RF, gradient moments, spoiler gradients and RF spoiling"));
    s.sequence.type = SequenceType::Bssfp;
    s.sequence.fidelity = {};
    s.sequence.TE_s = s.sequence.TR_s = 0;  // its shortest, TE = TR/2
    QCOMPARE(played_fidelity_text(s.sequence), std::string("shaped RF, gradient moments, balanced (no spoiling)"));
  }

  void grappaRestoresSkippedLines() {
    const PipelineResult& full = fully_sampled(base().coils.count);
    Scenario acc = base();
    acc.sequence.acceleration = 2;
    acc.sequence.acs_lines = 24;
    acc.recon.method = ReconMethod::Grappa;
    const PipelineResult g = run_pipeline(acc, {}, {});
    acc.recon.method = ReconMethod::Fft;
    const PipelineResult zf = run_pipeline(acc, {}, {});
    int acquired = 0;
    for (int l = 0; l < g.raw.ny; ++l) acquired += (g.raw.flags(l) & kLineAcquired) != 0;
    QCOMPARE(acquired, 32 + 12);  // every second line + the 12 odd ACS lines
    QCOMPARE(g.raw.accel_R, 2);
    const auto ref = full.recon.magnitude();
    const Metrics mg = compare_images(g.recon.magnitude(), ref, 64, 64);
    const Metrics mz = compare_images(zf.recon.magnitude(), ref, 64, 64);
    qInfo("simulated 8 loop coils, R = 2, 24 ACS, vs fully sampled SoS: GRAPPA %.2f dB (%.2f %%), zero-filled FFT %.2f dB",
          mg.psnr_db, mg.percent_error, mz.psnr_db);
    QVERIFY(mg.psnr_db >= 40.0);
    QVERIFY(mg.psnr_db >= mz.psnr_db + 10.0);
  }

  // Accuracy per R on simulated data (the issue's table): default phantom, 64 x 64, 24 ACS lines,
  // 8 and 32 loop coils, improved 4x5 kernel, against the fully sampled root sum of squares.
  void grappaAccuracyPerR_data() {
    QTest::addColumn<int>("coils");
    QTest::addColumn<int>("R");
    for (int c : {8, 32})
      for (int R : {2, 3, 4}) QTest::addRow("%d coils R=%d", c, R) << c << R;
  }
  void grappaAccuracyPerR() {
    QFETCH(int, coils);
    QFETCH(int, R);
    Scenario s = base();
    s.coils.count = coils;
    const PipelineResult& full = fully_sampled(coils);
    s.sequence.acceleration = R;
    s.sequence.acs_lines = 24;
    s.recon.method = ReconMethod::Grappa;
    const PipelineResult g = run_pipeline(s, {}, {});
    const Metrics m = compare_images(g.recon.magnitude(), full.recon.magnitude(), 64, 64);
    qInfo("simulated, %d coils, R = %d, 24 ACS: GRAPPA vs fully sampled PSNR %.2f dB, %.2f %% error; vs truth %.2f dB",
          coils, R, m.psnr_db, m.percent_error, g.metrics.psnr_db);
    // Bars: 40 dB at R = 2 and 3; R = 4 with a 64-line matrix is near the g-factor limit of a ring of
    // loops along one direction: 30 dB.
    QVERIFY(m.psnr_db >= (R == 4 ? 30.0 : 40.0));
  }

  void grappaNeedsEnoughCalibrationLines() {
    Scenario s = base();
    s.sequence.acceleration = 3;
    s.sequence.acs_lines = 8;
    s.recon.method = ReconMethod::Grappa;
    try {
      validate_scenario(s, "S.json");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("at least (K_PE - 1)·R + 1 = 10"), e.what());
    }
  }

  void scenarioJsonKeepsAccelerationAndRecon() {
    Scenario s = base();
    s.sequence.acceleration = 4;
    s.sequence.acs_lines = 32;
    s.recon.method = ReconMethod::Grappa;
    s.recon.grappa_lambda = 1e-3;
    const Scenario b = scenario_from_json_text(scenario_to_json_text(s), "S.json");
    QCOMPARE(b.sequence.acceleration, 4);
    QCOMPARE(b.sequence.acs_lines, 32);
    QCOMPARE(b.recon.method, ReconMethod::Grappa);
    QCOMPARE(b.recon.grappa_lambda, 1e-3);
  }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "test_pipeline.moc"
