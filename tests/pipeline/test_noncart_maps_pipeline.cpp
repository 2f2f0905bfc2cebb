// recon.maps on a non-Cartesian scenario: the pipeline's cg reconstructs with the simulator's coils ("true"),
// ESPIRiT maps of the gridded k-space centre ("espirit", Uecker et al. 2014) or, with the field unset, its own
// low-resolution estimate exactly as before; recon_coil_maps is the one place that decides them; the field
// round-trips through the JSON and is refused where no reconstruction takes it.
#include <QTest>

#include <cmath>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/pipeline/recon_coil_maps.hpp"
#include "mrwb/recon/espirit_backend.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario.hpp"

using namespace mrwb;

namespace {

constexpr int kMatrix = 48, kCoils = 8;

// A muscle disc seen by 8 loop coils, radial with 36 spokes (about half of the ~75 a 48² matrix needs, π/2·48):
// the coil maps carry part of the unfolding.
Scenario radial(std::optional<std::string> maps) {
  Scenario s = mrwb::test::uniform_disc_scenario(kMatrix, 2);
  s.phantom.disc_radius_m = 0.35 * 0.128;
  s.sequence.fov_m = 0.128;
  s.sequence.trajectory = Trajectory::Radial;
  s.sequence.spokes = 36;
  s.coils.count = kCoils;
  s.recon.method = ReconMethod::Cg;
  s.recon.maps = std::move(maps);
  return s;
}

// RMS(|a| − |b|) / RMS(|b|): magnitudes, as the cg's own maps carry the coil images' phase and the true ones not.
void refused(const Scenario& s, const char* needle) {
  try {
    validate_scenario(s, "S.json");
    QFAIL(needle);
  } catch (const InputError& e) {
    const QString m(e.what());
    QVERIFY2(m.contains(needle) && m.contains("allowed") && !m.contains('\n'), e.what());
  }
}

}  // namespace

class TestNoncartMapsPipeline : public QObject {
  Q_OBJECT
 private slots:
  // Unset: the cg's own estimate, the image of reconstruct() without maps bit for bit (existing scenarios
  // unchanged). true: the simulator's coils, at least as close to the truth as the estimate; espirit within 1.5 dB
  // of true (the CLI's bar, test_cli).
  void cgTakesTheScenarioMaps() {
    const PipelineResult own = run_pipeline(radial(std::nullopt), {}, {});
    const PipelineResult truth_maps = run_pipeline(radial("true"), {}, {});
    const PipelineResult espirit = run_pipeline(radial("espirit"), {}, {});
    ReconOptions o;
    o.method = ReconMethod::Cg;
    o.backend = Backend::Cpu;
    o.noncart.iterations = radial(std::nullopt).recon.cg_iterations;
    o.noncart.lambda = radial(std::nullopt).recon.cg_lambda;
    const Image2D direct = reconstruct(own.raw, o, {}, {});
    QCOMPARE(direct.data.size(), own.recon.data.size());
    QVERIFY(direct.data == own.recon.data);

    const double d_true = magnitude_relative_l2(truth_maps.recon.data, own.recon.data),
                 d_esp = magnitude_relative_l2(espirit.recon.data, own.recon.data);
    qInfo("radial %d², %d coils, 36 spokes: PSNR own estimate %.2f dB, true maps %.2f dB, ESPIRiT %.2f dB; "
          "relative difference to the own estimate: true %.3e, ESPIRiT %.3e",
          kMatrix, kCoils, own.metrics.psnr_db, truth_maps.metrics.psnr_db, espirit.metrics.psnr_db, d_true, d_esp);
    QVERIFY(d_true > 1e-2);  // the maps reached the cg
    QVERIFY(d_esp > 1e-2);
    // Measured: own 30.42, true 33.12, ESPIRiT 32.76 dB.
    QVERIFY(truth_maps.metrics.psnr_db >= own.metrics.psnr_db);
    QVERIFY(espirit.metrics.psnr_db >= truth_maps.metrics.psnr_db - 1.5);
  }

  // recon_coil_maps decides them: unset gives none; true: the coils on the cg's grid with a root sum of squares
  // of 1; espirit: espirit_maps_noncart's on the CPU backend (the CUDA backend's are test_gpu_espirit's).
  void reconCoilMapsOfATrajectory() {
    const RawData raw = run_pipeline(radial(std::nullopt), {}, {}).raw;
    QVERIFY(recon_coil_maps(radial(std::nullopt), raw, Backend::Cpu).empty());
    const auto t = recon_coil_maps(radial("true"), raw, Backend::Cpu);
    const std::size_t plane = static_cast<std::size_t>(kMatrix) * kMatrix;
    QCOMPARE(t.size(), plane * kCoils);
    for (std::size_t i = 0; i < plane; i += 97) {
      double ss = 0;
      for (int c = 0; c < kCoils; ++c) ss += std::norm(t[c * plane + i]);
      QVERIFY(std::abs(ss - 1) < 1e-5);
    }
    const auto e = recon_coil_maps(radial("espirit"), raw, Backend::Cpu);
    QVERIFY(e == espirit_maps_noncart(raw, 0, EspiritParams{}, Backend::Cpu).maps);
    QCOMPARE(recon_coil_maps(radial("true"), raw, Backend::Cpu, 64).size(), static_cast<std::size_t>(64) * 64 * kCoils);
  }

  void mapsRoundTripAndRefusals() {
    const std::string unset = scenario_to_json_text(radial(std::nullopt));
    QVERIFY(unset.find("\"maps\"") == std::string::npos);  // files without the field keep their text
    QVERIFY(!scenario_from_json_text(unset, "S.json").recon.maps);
    for (const char* m : {"true", "espirit"}) {
      validate_scenario(radial(m), "S.json");  // accepted for a non-Cartesian cg
      const Scenario b = scenario_from_json_text(scenario_to_json_text(radial(m)), "S.json");
      QCOMPARE(QString::fromStdString(b.recon.maps.value_or("")), QString(m));
      QCOMPARE(b.sequence.trajectory, Trajectory::Radial);
      QCOMPARE(b.recon.method, ReconMethod::Cg);
    }
    refused(radial("estimated"), "recon.maps");
    Scenario stack = radial("true");
    stack.sequence.trajectory = Trajectory::StackOfSpirals;
    refused(stack, "recon.maps");
  }
};

QTEST_GUILESS_MAIN(TestNoncartMapsPipeline)
#include "test_noncart_maps_pipeline.moc"
