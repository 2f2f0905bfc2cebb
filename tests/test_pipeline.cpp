// The end-to-end pipeline of the GUI and scripts/run on undersampled multi-coil data: the simulator
// skips the lines an acceleration R leaves out (ACS block kept), GRAPPA restores them.
#include <QtTest>

#include "mrwb/errors.hpp"
#include "mrwb/metrics.hpp"
#include "mrwb/pipeline.hpp"
#include "mrwb/scenario.hpp"

using namespace mrwb;

class TestPipeline : public QObject {
  Q_OBJECT
  static Scenario base() {
    Scenario s = scenario_preset("default");
    s.sequence.matrix = 64;
    s.sequence.dummy_scans = 100;
    s.coils.count = 8;  // loop coils
    s.backend = "cpu";
    return s;
  }

 private slots:
  void grappaRestoresSkippedLines() {
    const PipelineResult full = run_pipeline(base(), {}, {});
    Scenario acc = base();
    acc.sequence.acceleration = 2;
    acc.sequence.acs_lines = 24;
    acc.recon.method = "grappa";
    const PipelineResult g = run_pipeline(acc, {}, {});
    acc.recon.method = "fft";
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

  void grappaNeedsEnoughCalibrationLines() {
    Scenario s = base();
    s.sequence.acceleration = 3;
    s.sequence.acs_lines = 8;
    s.recon.method = "grappa";
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
    s.recon.method = "grappa";
    s.recon.grappa_lambda = 1e-3;
    const Scenario b = scenario_from_json_text(scenario_to_json_text(s), "S.json");
    QCOMPARE(b.sequence.acceleration, 4);
    QCOMPARE(b.sequence.acs_lines, 32);
    QCOMPARE(b.recon.method, std::string("grappa"));
    QCOMPARE(b.recon.grappa_lambda, 1e-3);
  }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "test_pipeline.moc"
