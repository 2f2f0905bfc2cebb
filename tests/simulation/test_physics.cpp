// Physics against analytic results: the Ernst steady state of a spoiled gradient echo, and the FFT
// reconstruction of a simulated uniform disc against its ground truth.
#include <QTest>

#include <cmath>
#include <random>

#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "numeric.hpp"

using namespace mrwb;

namespace {

using mrwb::test::ernst_signal;

// A uniform static object filling the whole grid. Kept here: test_pulseq's uniform_phantom(n, fov) is alike
// but places the grid by cell index and leaves the velocity arrays empty, and core's uniform_phantom centres
// the cells, so sharing one would move these cells.
CellPhantom uniform_object(int n, double fov_m, float PD, float T1, float T2) {
  CellPhantom ph;
  ph.nx = ph.ny = n;
  ph.cell_size_m = fov_m / n;
  ph.x0_m = ph.y0_m = -0.5 * fov_m;  // any placement: the object is uniform
  ph.cells_per_voxel = 1;
  const std::size_t c = ph.size();
  ph.PD.assign(c, PD);
  ph.T1_s.assign(c, T1);
  ph.T2_s.assign(c, T2);
  ph.dB_T.assign(c, 0.f);
  ph.type.assign(c, static_cast<std::uint8_t>(CellType::Stationary));
  ph.ux.assign(c, 0.f);
  ph.uy.assign(c, 0.f);
  return ph;
}

}  // namespace

class TestPhysics : public QObject {
  Q_OBJECT
 private slots:
  // A design change shows in the image: lowering the gradient limits from 32 mT/m, 130 T/m/s to 10 mT/m,
  // 20 T/m/s lengthens the slice rephaser, the prephaser and the ramps, so the minimum TE the scenario reports (its blocks, validated_sequence)
  // rises; simulated at each minimum TE, the echo of a tissue whose T2 stands for T2* (no field
  // inhomogeneity within a cell) falls by exp(-dTE/T2*), within 1 %.
  void gradientLimitMovesTheEcho() {
    try {
      gradientLimitMovesTheEchoBody();
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
  }

  void ernstSteadyState_data() {
    QTest::addColumn<double>("flip_deg");
    QTest::addColumn<double>("TR_s");
    QTest::newRow("5deg TR10ms") << 5.0 << 0.010;
    QTest::newRow("20deg TR10ms") << 20.0 << 0.010;
    QTest::newRow("Ernst angle TR50ms") << std::acos(std::exp(-0.05 / 1.008)) * 180 / M_PI << 0.050;
    QTest::newRow("90deg TR200ms") << 90.0 << 0.200;
  }
  // S = M0·sin(a)·(1 − E1)/(1 − cos(a)·E1)·E2 within 1 %, read at k = 0 (sample at TE of line ky = 0).
  void ernstSteadyState() {
    QFETCH(double, flip_deg);
    QFETCH(double, TR_s);
    const float PD = 0.79f, T1 = 1.008f, T2 = 0.044f;  // skeletal muscle, 1.5 T
    SequenceSpec seq;
    seq.matrix = 16;
    seq.fov_m = 0.1;
    seq.TR_s = TR_s;
    seq.TE_s = 0.004;
    seq.flip_angle_deg = flip_deg;
    seq.bandwidth_Hz_per_pixel = 1000;
    // Dummy TRs: the approach to steady state decays as (cos a · E1)^n; take 10^-4 of it.
    const double q = std::cos(flip_deg * M_PI / 180) * std::exp(-TR_s / T1);
    seq.dummy_scans = static_cast<int>(std::ceil(std::log(1e-4) / std::log(q)));
    const auto ph = uniform_object(16, seq.fov_m, PD, T1, T2);
    const auto prog = build_sequence_program(seq);
    std::vector<std::complex<float>> samples(prog.readouts * prog.nx), truth(ph.size());
    CpuSimulationEngine engine(2);
    engine.run(ph, prog, samples, truth, {}, {});

    const double expected = ernst_signal(PD, flip_deg * M_PI / 180, TR_s, seq.TE_s, T1, T2);
    const double k0 = std::abs(samples[(prog.ny / 2) * prog.nx + prog.nx / 2]) / ph.size();
    const double cell = std::abs(truth[0]);
    qInfo("flip %.2f deg TR %.0f ms: Ernst %.6f, simulated k=0 %.6f (%.4f %%), cell %.6f", flip_deg, TR_s * 1e3,
          expected, k0, 100 * (k0 - expected) / expected, cell);
    QVERIFY(std::abs(k0 - expected) <= 0.01 * expected);
    QVERIFY(std::abs(cell - expected) <= 0.01 * expected);
  }

  // Spin echo: strong off-resonance (random, up to ±2 µT) dephases the spins; the 180° pulse at TE/2
  // refocuses them, so the echo at TE is M0·exp(−TE/T2) within 1 % (TR = 10 s ≈ 10 T1: full recovery).
  // A gradient echo of the same object at the same TE loses most of it (the check can fail).
  void spinEchoRefocusesOffResonance() {
    const float PD = 0.79f, T1 = 1.008f, T2 = 0.044f;
    auto ph = uniform_object(16, 0.1, PD, T1, T2);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-2e-6f, 2e-6f);
    for (auto& b : ph.dB_T) b = u(rng);
    SequenceSpec seq;
    seq.type = SequenceType::SpinEcho;
    seq.matrix = 16;
    seq.fov_m = 0.1;
    seq.TR_s = 10.0;
    seq.TE_s = 0.02;
    seq.bandwidth_Hz_per_pixel = 1000;
    seq.dummy_scans = 0;
    const auto prog = build_sequence_program(seq);
    std::vector<std::complex<float>> samples(prog.readouts * prog.nx), truth(ph.size());
    CpuSimulationEngine(2).run(ph, prog, samples, truth, {}, {});
    const double expected = PD * std::exp(-seq.TE_s / T2);
    const double echo = std::abs(samples[(prog.ny / 2) * prog.nx + prog.nx / 2]) / ph.size();
    qInfo("spin echo: echo %.6f, M0·exp(-TE/T2) %.6f (%.4f %%)", echo, expected, 100 * (echo - expected) / expected);
    QVERIFY(std::abs(echo - expected) <= 0.01 * expected);

    seq.type = SequenceType::SpoiledGre;
    seq.flip_angle_deg = 90;
    const auto ge = build_sequence_program(seq);
    std::vector<std::complex<float>> ge_samples(ge.readouts * ge.nx);
    CpuSimulationEngine(2).run(ph, ge, ge_samples, truth, {}, {});
    const double ge_echo = std::abs(ge_samples[(ge.ny / 2) * ge.nx + ge.nx / 2]) / ph.size();
    qInfo("gradient echo of the same object: %.6f", ge_echo);
    QVERIFY(ge_echo < 0.5 * expected);
  }

  // Eight loop coils: each coil image is the object times its sensitivity, so the root sum of squares of
  // the coil images equals |M| · sqrt(Σ_c |s_c|²) — checked at the disc centre against the Ernst value.
  void multiCoilSumOfSquaresFollowsSensitivities() {
    Scenario s = scenario_preset("uniform_disc");
    s.coils.count = 8;
    s.coils.arrangement = "uniform";  // Σ|s_c|² = 1 everywhere
    CpuSimulationEngine engine;
    const SimulationResult r = simulate(s, engine, {}, {});
    QCOMPARE(r.raw.ncoils, 8);
    const Image2D sos = reconstruct_fft(r.raw);
    const Metrics m = compare_images(sos.magnitude(), r.truth.magnitude(), sos.nx, sos.ny);
    qInfo("8 uniform coils: SoS vs truth PSNR %.2f dB", m.psnr_db);
    QVERIFY(m.psnr_db >= 40.0);
  }

  // Without dummy scans the first line is far from the steady state: the check above can fail.
  void transientIsNotSteadyState() {
    SequenceSpec seq;
    seq.matrix = 16;
    seq.fov_m = 0.1;
    seq.TR_s = 0.01;
    seq.TE_s = 0.004;
    seq.flip_angle_deg = 20;
    seq.bandwidth_Hz_per_pixel = 1000;
    seq.dummy_scans = 0;
    const auto ph = uniform_object(8, seq.fov_m, 0.79f, 1.008f, 0.044f);
    const auto prog = build_sequence_program(seq);
    std::vector<std::complex<float>> samples(prog.readouts * prog.nx), truth(ph.size());
    CpuSimulationEngine(1).run(ph, prog, samples, truth, {}, {});
    const double first = std::abs(samples[prog.nx / 2]) / ph.size();
    const double expected = ernst_signal(0.79, 20 * M_PI / 180, 0.01, 0.004, 1.008, 0.044);
    QVERIFY(first > 1.5 * expected);  // the first excitation sees the full M0
  }

  // FFT reconstruction of a simulated uniform disc matches the truth (Mxy at TE per voxel), PSNR >= 40 dB.
  // One cell per voxel (the preset): the sampled object is exactly representable on the image grid.
  void uniformDiscFftPsnr() {
    Scenario s = scenario_preset("uniform_disc");
    QCOMPARE(s.phantom.cells_per_voxel, 1);
    s.backend = Backend::Cpu;
    CpuSimulationEngine engine;
    const SimulationResult r = simulate(s, engine, {}, {});
    const Image2D img = reconstruct_fft(r.raw);
    const Metrics m = compare_images(img.magnitude(), r.truth.magnitude(), img.nx, img.ny);
    qInfo("uniform disc %dx%d, %d cells/voxel: PSNR %.2f dB, error %.3f %%, SSIM %.4f", img.nx, img.ny,
          s.phantom.cells_per_voxel, m.psnr_db, m.percent_error, m.ssim);
    QVERIFY(m.psnr_db >= 40.0);
  }

  // With sub-voxel cells the sharp rim rings (Gibbs) against the voxel-averaged truth; the PSNR is
  // reported, and the image scale must still be physical: the mean over the disc interior is the Ernst
  // value within 1 % (ringing averages out; the rim is excluded).
  void subVoxelDiscKeepsErnstScale_data() {
    QTest::addColumn<int>("cells_per_voxel");
    QTest::newRow("1 cell/voxel") << 1;
    QTest::newRow("2 cells/voxel") << 2;
    QTest::newRow("4 cells/voxel") << 4;
  }
  void subVoxelDiscKeepsErnstScale() {
    QFETCH(int, cells_per_voxel);
    Scenario s = scenario_preset("uniform_disc");
    s.phantom.cells_per_voxel = cells_per_voxel;
    CpuSimulationEngine engine;
    const SimulationResult r = simulate(s, engine, {}, {});
    const Image2D img = reconstruct_fft(r.raw);
    const auto& q = s.sequence;
    const double expected = ernst_signal(0.79, q.flip_angle_deg * M_PI / 180, q.TR_s, q.TE_s, 1.008, 0.044);
    const double voxel = q.fov_m / q.matrix, inner = s.phantom.disc_radius_m - 4 * voxel;
    double sum = 0;
    int count = 0;
    for (int y = 0; y < img.ny; ++y)
      for (int x = 0; x < img.nx; ++x) {
        const double rx = (x - img.nx / 2) * voxel, ry = (y - img.ny / 2) * voxel;
        if (rx * rx + ry * ry < inner * inner) {
          sum += std::abs(img.data[y * img.nx + x]);
          ++count;
        }
      }
    const double mean = sum / count;
    const Metrics m = compare_images(img.magnitude(), r.truth.magnitude(), img.nx, img.ny);
    qInfo("disc, %d cells/voxel: interior mean %.6f vs Ernst %.6f (%.3f %%); PSNR vs voxel truth %.2f dB",
          cells_per_voxel, mean, expected, 100 * (mean - expected) / expected, m.psnr_db);
    QVERIFY(std::abs(mean - expected) <= 0.01 * expected);
  }
 private:
  void gradientLimitMovesTheEchoBody() {
    Scenario s;
    s.phantom.preset = "uniform_disc";
    s.phantom.disc_radius_m = 0.05;
    s.sequence.matrix = 32;
    s.sequence.fov_m = 0.128;
    s.sequence.TR_s = 0.05;
    s.sequence.dummy_scans = 200;
    s.sequence.bandwidth_Hz_per_pixel = 250;
    s.sequence.slice_thickness_m = 0.01;  // its 1 ms sinc selects within 10 mT/m
    s.backend = Backend::Cpu;
    const double T2star_s = tissue_1p5T(s.phantom.background_tissue, "test").T2_s;
    double te[2], echo[2];
    const double limits_mT_per_m[2] = {32, 10}, slew_T_per_m_per_s[2] = {130, 20};
    for (int i = 0; i < 2; ++i) {
      s.sequence.max_grad_mT_per_m = limits_mT_per_m[i];
      s.sequence.max_slew_T_per_m_per_s = slew_T_per_m_per_s[i];
      SequenceSpec shortest = s.sequence;
      shortest.TE_s = 0;  // the builder's minimum
      te[i] = seq::scenario_blocks(shortest, "test").min_TE_s;
      s.sequence.TE_s = te[i];
      const seq::BuiltSequence built = validated_sequence(s, "test");
      QVERIFY(std::abs(built.TE_s - te[i]) < 1e-9);
      CpuSimulationEngine engine;
      const RawData raw = simulate(s, built, engine, {}, {}).raw;
      echo[i] = std::abs(raw.at(0, raw.ny / 2, raw.nx / 2));  // k = 0: the echo of the whole object
    }
    const double expected = std::exp(-(te[1] - te[0]) / T2star_s), measured = echo[1] / echo[0];
    qInfo("minimum TE %.3f ms at 32 mT/m and 130 T/m/s, %.3f ms at 10 mT/m and 20 T/m/s; echo ratio %.5f, exp(-dTE/T2*) %.5f (T2* %.0f ms)", te[0] * 1e3,
          te[1] * 1e3, measured, expected, T2star_s * 1e3);
    QVERIFY(1 - expected >= 0.02);  // a change twice the tolerance or more
    QVERIFY(std::abs(measured / expected - 1) <= 0.01);
    // The old TE is now below the minimum: refused, naming the field and the minimum.
    s.sequence.TE_s = te[0];
    try {
      validate_scenario(s, "s.json");
      QFAIL("TE below the minimum accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("TE_s") && QString(e.what()).contains("minimum"), e.what());
    }
  }

};

QTEST_GUILESS_MAIN(TestPhysics)
#include "test_physics.moc"
