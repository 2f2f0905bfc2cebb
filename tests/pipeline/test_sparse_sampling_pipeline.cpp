// Variable-density undersampling in a scenario (sequence.undersampling) and the methods that reconstruct it
// from the simulator's raw data: the simulated lines are the pattern's; SENSE runs CG-SENSE off the regular
// comb; compressed sensing (Lustig et al. 2007) with the simulator's or ESPIRiT's coil maps (recon.maps);
// the fields round-trip through the JSON and are refused where they do not apply.
#include <QTest>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"

using namespace mrwb;

namespace {

Scenario sparse(const std::string& pattern, int R, int acs) {
  Scenario s = mrwb::test::cpu_preset("straight_vessel", 64, 50);
  s.coils.count = 8;  // loop coils
  s.sequence.acceleration = R;
  s.sequence.acs_lines = acs;
  s.sequence.undersampling = pattern;
  return s;
}

double psnr(Scenario s, ReconMethod m) {
  s.recon.method = m;
  return run_pipeline(s, {}, {}).metrics.psnr_db;
}

void refused(const Scenario& s, const char* needle) {
  try {
    validate_scenario(s, "S.json");
    QFAIL(needle);
  } catch (const InputError& e) {
    QVERIFY2(QString(e.what()).contains(needle), e.what());
  }
}

}  // namespace

class TestSparseSamplingPipeline : public QObject {
  Q_OBJECT
 private slots:
  // The simulator acquires exactly the pattern's lines (and flags the ACS block as calibration).
  void simulatedLinesAreThePattern_data() {
    QTest::addColumn<QString>("pattern");
    QTest::newRow("random") << "random";
    QTest::newRow("poisson_disc") << "poisson_disc";
  }
  void simulatedLinesAreThePattern() {
    QFETCH(QString, pattern);
    Scenario s = sparse(pattern.toStdString(), 4, 16);
    s.sequence.undersampling_seed = 7;
    const RawData raw = run_pipeline(s, {}, {}).raw;
    const auto want = pattern == "random" ? random_lines(64, 4, 16, 7) : poisson_disc_lines(64, 4, 16, 7);
    QCOMPARE(static_cast<int>(raw.line_flags.size()), 64);
    int acquired = 0;
    for (int l = 0; l < 64; ++l) {
      QCOMPARE(bool(raw.line_flags[l] & kLineAcquired), bool(want[l] & kLineAcquired));
      QCOMPARE(bool(raw.line_flags[l] & kLineCalibration), bool(want[l] & kLineCalibration));
      acquired += (raw.line_flags[l] & kLineAcquired) != 0;
      if (!(raw.line_flags[l] & kLineAcquired))
        for (int x = 0; x < raw.nx; ++x) QCOMPARE(raw.at(0, l, x), std::complex<float>{});
    }
    QCOMPARE(acquired, 16);
    QCOMPARE(raw.accel_R, 4);
  }

  // Poisson-disc R = 4 from the simulator (its receiver noise included): CG-SENSE above the zero-filled FFT, CS
  // (default lambda, on BART's data scale) above CG-SENSE with either regulariser. The 3 dB margin is
  // test_compressed_sensing's, on a piecewise-smooth object.
  void csAndCgSenseOnPoissonDisc() {
    Scenario s = sparse("poisson_disc", 4, 16);
    s.recon.cg_iterations = 30;
    const double fft = psnr(s, ReconMethod::Fft), cgsense = psnr(s, ReconMethod::Sense);
    s.recon.cs_regularizer = "l1-wavelet";
    const double l1 = psnr(s, ReconMethod::Cs);
    s.recon.cs_regularizer = "tv";
    s.recon.cs_iterations = 500;  // tv: CG steps in all, as BART's pics -i
    const double tv = psnr(s, ReconMethod::Cs);
    qInfo("Poisson-disc R = 4, 16 ACS, 8 coils, 64^2 vessel: zero-filled %.2f dB, CG-SENSE (30 it.) %.2f dB, CS L1-wavelet "
          "%.2f dB, CS TV %.2f dB", fft, cgsense, l1, tv);
    QVERIFY(cgsense > fft);
    QVERIFY(l1 > cgsense);
    QVERIFY(tv > cgsense);
  }

  // recon.maps espirit: the maps from the 24 ACS lines unfold as well as the simulator's own (within 1 dB).
  void espiritMapsAsGoodAsTrue() {
    Scenario s = sparse("regular", 2, 24);
    s.recon.maps = "true";
    const double truth_maps = psnr(s, ReconMethod::Sense);
    s.recon.maps = "espirit";
    const double espirit = psnr(s, ReconMethod::Sense);
    qInfo("SENSE R = 2, 24 ACS, 8 coils: true maps %.2f dB, ESPIRiT maps %.2f dB", truth_maps, espirit);
    QVERIFY(std::abs(espirit - truth_maps) < 1.0);
    s.sequence.acs_lines = 0;
    s.recon.method = ReconMethod::Sense;
    try {
      run_pipeline(s, {}, {});
      QFAIL("ESPIRiT without calibration lines");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("calibration region"), e.what());
    }
  }

  void fieldsRoundTripAndRefusals() {
    Scenario s = sparse("poisson_disc", 3, 12);
    s.sequence.undersampling_seed = 42;
    s.recon.method = ReconMethod::Cs;
    s.recon.maps = "espirit";
    s.recon.cs_regularizer = "tv";
    s.recon.cs_lambda = 0.02;
    s.recon.cs_iterations = 70;
    const Scenario b = scenario_from_json_text(scenario_to_json_text(s), "S.json");
    QCOMPARE(QString::fromStdString(b.sequence.undersampling), QString("poisson_disc"));
    QCOMPARE(b.sequence.undersampling_seed, 42);
    QCOMPARE(b.recon.method, ReconMethod::Cs);
    QCOMPARE(QString::fromStdString(b.recon.maps.value_or("")), QString("espirit"));
    QCOMPARE(QString::fromStdString(b.recon.cs_regularizer), QString("tv"));
    QCOMPARE(b.recon.cs_lambda, 0.02);
    QCOMPARE(b.recon.cs_iterations, 70);
    // Defaults are not written: files without the fields keep their text.
    const std::string plain = scenario_to_json_text(mrwb::test::cpu_preset("straight_vessel"));
    QVERIFY(plain.find("undersampling") == std::string::npos && plain.find("cs_lambda") == std::string::npos);

    Scenario g = sparse("random", 2, 24);
    g.recon.method = ReconMethod::Grappa;
    refused(g, "recon.method = grappa needs sequence.undersampling = regular");
    Scenario bad = sparse("spiral", 2, 8);
    refused(bad, "sequence.undersampling");
    Scenario r1 = sparse("random", 1, 0);
    refused(r1, "sequence.acceleration >= 2");
    Scenario acs = sparse("random", 4, 20);  // 16 lines acquired in all
    refused(acs, "sequence.acs_lines");
    Scenario lam = sparse("random", 2, 8);
    lam.recon.cs_lambda = -1;
    refused(lam, "recon.cs_lambda");
    Scenario reg = sparse("random", 2, 8);
    reg.recon.cs_regularizer = "l2";
    refused(reg, "recon.cs_regularizer");
    Scenario maps = sparse("random", 2, 8);
    maps.recon.maps = "estimated";
    refused(maps, "recon.maps");
  }
};

QTEST_GUILESS_MAIN(TestSparseSamplingPipeline)
#include "test_sparse_sampling_pipeline.moc"
