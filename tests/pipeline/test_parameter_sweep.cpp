// run_sweep (pipeline/parameter_sweep.hpp) on the reconstruction's own parameters: CG iterations and the
// Tikhonov lambda are scenario fields (recon.cg_iterations, recon.cg_lambda) that the pipeline passes to
// the CG, so a sweep over them changes the image the way conjugate gradients do on least squares
// (Stone et al. 2008): the error against the truth falls over the first iterations. Without recon.method
// = cg they act on nothing, and the sweep says so before any run.
#include <QTest>

#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/pipeline/parameter_sweep.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_field.hpp"

using namespace mrwb;

class TestParameterSweep : public QObject {
  Q_OBJECT
 private slots:
  void cgIterationsSweepConverges() {
    Scenario s = load_scenario(MRWB_SOURCE_DIR "/phantoms/teaching_spiral_gridding_vs_cg.json");
    s.backend = Backend::Cpu;
    QCOMPARE(s.recon.method, ReconMethod::Cg);
    QCOMPARE(s.recon.cg_iterations, 20);  // the file leaves it out: the default
    const std::vector<double> iterations = {1, 3, 10};
    const SweepResult r = run_sweep(s, "recon.cg_iterations", iterations, {}, {}, {});
    QCOMPARE(r.points.size(), iterations.size());
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      QCOMPARE(r.points[i].value, iterations[i]);
      qInfo("CG %d iterations: PSNR %.2f dB, %.2f %% error", int(iterations[i]), r.points[i].metrics.psnr_db,
            r.points[i].metrics.percent_error);
    }
    // Each point ran its own iteration count: the error falls from 1 to 3 to 10 iterations.
    QVERIFY(r.points[1].metrics.percent_error < r.points[0].metrics.percent_error - 1.0);
    QVERIFY(r.points[2].metrics.percent_error < r.points[1].metrics.percent_error);
    // The same as a plain run of the scenario with that field set.
    const PipelineResult three = run_pipeline(scenario_with_field(s, "recon.cg_iterations", 3, "test"), {}, {});
    QCOMPARE(three.metrics.psnr_db, r.points[1].metrics.psnr_db);
  }

  void cgLambdaReachesTheCg() {
    Scenario s = load_scenario(MRWB_SOURCE_DIR "/phantoms/teaching_spiral_gridding_vs_cg.json");
    s.backend = Backend::Cpu;
    const SweepResult r = run_sweep(s, "recon.cg_lambda", {0.0, 1.0}, {}, {}, {});
    QCOMPARE(r.points.size(), std::size_t(2));
    qInfo("CG lambda 0: %.2f dB; lambda 1: %.2f dB", r.points[0].metrics.psnr_db, r.points[1].metrics.psnr_db);
    QVERIFY(std::abs(r.points[0].metrics.psnr_db - r.points[1].metrics.psnr_db) > 0.1);  // lambda reached the CG
  }

  void cgFieldsNeedTheCgMethod() {
    Scenario s = scenario_preset("default");  // FFT
    try {
      run_sweep(s, "recon.cg_iterations", {5, 10}, {}, {}, {});
      QFAIL("a CG field swept with recon.method = fft");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("recon.method = cg (it is fft)"), e.what());
    }
  }

  // The fields are read, range-checked and written like every scenario field.
  void cgFieldsInTheScenarioFile() {
    Scenario s = scenario_preset("default");
    s.recon.cg_iterations = 7;
    s.recon.cg_lambda = 0.0025;
    const Scenario back = scenario_from_json_text(scenario_to_json_text(s), "round trip");
    QCOMPARE(back.recon.cg_iterations, 7);
    QCOMPARE(back.recon.cg_lambda, 0.0025);
    QCOMPARE(scenario_field_value(s, "recon.cg_iterations"), 7.0);
    for (const auto& [field, value, range] : {std::tuple{"recon.cg_iterations", 0.0, "[1, 10000]"},
                                              std::tuple{"recon.cg_lambda", -0.1, "[0, 1]"}}) {
      try {
        scenario_with_field(s, field, value, "s.json");
        QFAIL("out of range accepted");
      } catch (const InputError& e) {
        const QString m = e.what();
        QVERIFY2(m.startsWith("s.json") && m.contains(field) && m.contains(range), e.what());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestParameterSweep)
#include "test_parameter_sweep.moc"
