// The simulator on non-Cartesian spoiled GE (radial, golden-angle radial, spiral): the program plays the
// trajectory's k-space positions, the scenario fields validate, and gridding / CG of the simulated data
// against the simulator's truth (% error and PSNR per method and precision).
#include <QTest>

#include <cmath>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/sequence/noncart_design.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "numeric.hpp"

using namespace mrwb;

namespace {

using mrwb::test::mag;

Scenario disc_scenario(Trajectory trajectory, int matrix) {
  Scenario s = mrwb::test::uniform_disc_scenario(matrix, 2);
  s.name = "noncart-" + name_of(trajectory);
  s.phantom.disc_radius_m = 0.3 * 0.128;
  s.sequence.fov_m = 0.128;
  s.sequence.trajectory = trajectory;
  s.recon.method = ReconMethod::Cg;
  return s;
}

// Gridding as magnitudes: Kaiser-Bessel with Pipe-Menon density (GriddingParams defaults), or the density and
// interpolation kernel named (the kernel's weights computed with the default Kaiser-Bessel kernel).
std::vector<float> gridding_magnitude(const noncart::Grid& g, const noncart::Samples& s,
                                      const std::string& density = "pipe-menon", const std::string& kernel = "kaiser-bessel") {
  noncart::GriddingParams gp;
  gp.density = density;
  const auto w = noncart::density_compensation(g, s, gp);
  gp.kernel = kernel;
  return mag(noncart::gridding_recon(g, s.k.data(), s.d.data(), s.count(), w, gp));
}

// Stone et al. 2008's fair comparison for gridding: the magnitude image scaled by the least-squares factor
// <|g|, truth> / <|g|, |g|> to the truth's scale before the metrics. Kept here: test_cli_recon_density's
// scale_matched multiplies by the ratio (v · (gt / gg), 1 when gg = 0), this one divides last (v · gt / gg),
// which rounds differently.
std::vector<float> scale_matched(std::vector<float> image, const std::vector<float>& truth) {
  double gt = 0, gg = 0;
  for (std::size_t i = 0; i < image.size(); ++i) gt += double(image[i]) * truth[i], gg += double(image[i]) * image[i];
  for (float& v : image) v = static_cast<float>(v * gt / gg);
  return image;
}

void expect_input_error(const Scenario& s, const char* needle) {
  try {
    validate_scenario(s, "s.json");
    QFAIL(qPrintable(QString("no error, expected one naming ") + needle));
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.find(needle) == std::string::npos || msg.find('\n') != std::string::npos)
      QFAIL(qPrintable(QString::fromStdString("message '" + msg + "' should name " + needle)));
  }
}

}  // namespace

class TestSimNoncart : public QObject {
  Q_OBJECT
 private slots:
  // The program the simulator plays is the conversion of the scenario's blocks: the k-space position at
  // every Readout sample (the sum of the gradient moments since the excitation) is the trajectory the
  // gradients play (1e-9 relative) and the design's within the raster's bar (radial exact to 1e-4
  // cycles/FOV; spiral: dt² · slew · FOV / 4, the piecewise-linear raster's second-difference term), and
  // each echo sample (k = 0) falls on the TE the blocks were built for.
  void programPlaysTheTrajectory() {
    for (const Trajectory traj : {Trajectory::Radial, Trajectory::GoldenRadial, Trajectory::Spiral}) {
      Scenario sc = disc_scenario(traj, 32);
      sc.sequence.dummy_scans = 2;
      const seq::BuiltSequence built = validated_sequence(sc, "test");
      const seq::ProgramConversion c = scenario_program(sc.sequence, built);
      const SequenceProgram& p = c.program;
      const noncart::Trajectory t = noncart_trajectory(sc.sequence);
      const int echo = noncart_echo_sample(sc.sequence);
      const double fov = sc.sequence.fov_m;
      double kx = 0, ky = 0, t_since_rf = 0, played = 0, design = 0, worst_te = 0, kmax = 0;
      std::size_t sample = 0;
      for (const SeqEvent& e : p.events) {
        // Excitations reset k (the refocusing 180° pairs of a followed RF phase do not occur: ideal spoiling).
        if (e.kind == EventKind::Rf && e.flip_rad < M_PI - 1e-9) kx = ky = t_since_rf = 0;
        if (e.kind == EventKind::Free) kx += e.dk_x, ky += e.dk_y, t_since_rf += e.dt_s;
        if (e.kind != EventKind::Readout) continue;
        for (int j = 0; j < e.n_samples; ++j, ++sample) {
          QVERIFY(sample < t.count());
          played = std::max({played, std::abs(kx - c.kx[sample]), std::abs(ky - c.ky[sample])});
          kmax = std::max({kmax, std::abs(c.kx[sample]), std::abs(c.ky[sample])});
          design = std::max({design, std::abs(kx * fov - t.k[2 * sample]), std::abs(ky * fov - t.k[2 * sample + 1])});
          if (static_cast<int>(sample % t.samples) == echo) worst_te = std::max(worst_te, std::abs(t_since_rf - built.TE_s));
          kx += e.dk_x, ky += e.dk_y, t_since_rf += e.dt_s;
        }
      }
      const bool spiral = traj == Trajectory::Spiral;
      const double dt = built.seq.sys.grad_raster_s;
      const double bar = spiral ? dt * dt * built.seq.sys.max_slew_Hz_per_m_per_s * fov / 4 : 1e-4;
      qInfo("%s: %d readouts x %d samples, program nx %d, %d Readout events; k vs played %.2g (relative %.2g), vs design "
            "%.2g cycles/FOV (bar %.2g); echo time error %.2g s", name_of(traj).c_str(), t.readouts, t.samples, p.nx,
            p.readouts, played, played / kmax, design, bar, worst_te);
      QCOMPARE(sample, t.count());
      QCOMPARE(c.per_sample_readouts, spiral);  // radial: one Readout event per spoke
      QVERIFY(played <= 1e-9 * kmax);
      QVERIFY(design <= bar);
      QVERIFY(worst_te < 1e-9);
      // The TE delay is a whole number of block-raster steps: the scenario's TE to half a step.
      QVERIFY(std::abs(built.TE_s - sc.sequence.TE_s) <= 0.5 * built.seq.sys.block_raster_s + 1e-12);
    }
  }

  void scenarioFieldsValidateAndRoundTrip() {
    Scenario s = disc_scenario(Trajectory::Spiral, 64);
    s.sequence.interleaves = 24;
    const Scenario back = scenario_from_json_text(scenario_to_json_text(s), "rt.json");
    QCOMPARE(back.sequence.trajectory, Trajectory::Spiral);
    QCOMPARE(back.sequence.interleaves, 24);
    QCOMPARE(scenario_to_json_text(back), scenario_to_json_text(s));
    try {  // an unknown trajectory is refused where the file is read, with the allowed names
      scenario_from_json_text(R"({"format": "mrwb-scenario", "version": 1, "sequence": {"trajectory": "rosette"}})", "r.json");
      QFAIL("trajectory rosette accepted");
    } catch (const InputError& e) {
      QCOMPARE(std::string(e.what()), std::string("r.json: sequence.trajectory = 'rosette' is not allowed (allowed: cartesian, "
                                                  "radial, golden_radial, spiral, stack_of_spirals)"));
    }
    Scenario bad = s;
    bad.sequence.interleaves = 300;
    expect_input_error(bad, "sequence.interleaves");
    bad = disc_scenario(Trajectory::Radial, 64), bad.sequence.spokes = -1;
    expect_input_error(bad, "sequence.spokes");
    Scenario under = s;
    under.sequence.interleaves = 4, under.sequence.design_interleaves = 16;
    QCOMPARE(scenario_from_json_text(scenario_to_json_text(under), "u.json").sequence.design_interleaves, 16);
    bad = under, bad.sequence.design_interleaves = 3;  // fewer than the acquired interleaves
    expect_input_error(bad, "sequence.design_interleaves");
    bad = disc_scenario(Trajectory::Radial, 64), bad.sequence.design_interleaves = 16;
    expect_input_error(bad, "sequence.design_interleaves");
    bad = s, bad.recon.method = ReconMethod::Fft;
    expect_input_error(bad, "recon.method");
    bad = s, bad.sequence.acceleration = 2;
    expect_input_error(bad, "acceleration");
    bad = s, bad.sequence.TR_s = 0.0045;  // the spiral readout after TE does not fit
    expect_input_error(bad, "sequence.TR_s");
    bad = disc_scenario(Trajectory::Cartesian, 64), bad.recon.method = ReconMethod::Cg;
    expect_input_error(bad, "recon.method");
    // spokes on a Cartesian scenario is an error in the file, not silently dropped.
    try {
      scenario_from_json_text(R"({"format": "mrwb-scenario", "version": 1, "sequence": {"spokes": 10}})", "c.json");
      QFAIL("spokes accepted with a Cartesian trajectory");
    } catch (const InputError& e) {
      QVERIFY(std::string(e.what()).find("sequence.spokes") != std::string::npos);
    }
  }

  // Simulated radial and spiral data of a uniform disc: CG (CPU.DP, CPU.SP) and gridding against the
  // simulator's truth (Mxy at TE per voxel). The raw data carry the trajectory and the voxel-area scale, so
  // no rescaling is applied before the comparison.
  // 48^2 keeps the suite to seconds; docs/benchmarks.md has the 64^2 table of the same comparison.
  void reconstructsSimulatedData() {
    const int n = 48;
    for (const Trajectory traj : {Trajectory::Radial, Trajectory::Spiral}) {
      const Scenario sc = disc_scenario(traj, n);
      CpuSimulationEngine engine;
      const SimulationResult sim = simulate_noncart(sc, engine, {}, {});
      QVERIFY(!sim.raw.cartesian());
      const noncart::Samples s = noncart::samples_from_raw(sim.raw);
      const noncart::Grid g{2, n};
      const std::vector<float> truth = sim.truth.magnitude();
      NoncartParams p;
      p.operators = CgOperators::Exact;  // the exact sums of Stone et al. 2008, Eqs. 3-4
      p.iterations = 20;
      const auto dp = noncart::reconstruct_cg_cpu(g, s, p, noncart::Precision::Double);
      const auto sp = noncart::reconstruct_cg_cpu(g, s, p, noncart::Precision::Single);
      const std::vector<float> grid = gridding_magnitude(g, s);
      const Metrics mdp = compare_images(mag(dp.image), truth, n, n);
      const Metrics msp = compare_images(mag(sp.image), truth, n, n);
      const Metrics mg = compare_images(grid, truth, n, n);
      qInfo("%s %d^2, %zu samples: CG CPU.DP %.2f %% / %.2f dB, CPU.SP %.2f %% / %.2f dB, gridding %.2f %% / %.2f dB", name_of(traj).c_str(), n,
            s.count(), mdp.percent_error, mdp.psnr_db, msp.percent_error, msp.psnr_db, mg.percent_error, mg.psnr_db);
      QVERIFY(std::abs(mdp.psnr_db - msp.psnr_db) < 0.1);  // single precision costs under 0.1 dB
      // Scale and geometry right (a half-voxel shift, a flip or a wrong scale give tens of %), and the
      // iterative method below gridding as in Stone et al. 2008 Fig. 6.
      QVERIFY(mdp.percent_error < 6.0);
      QVERIFY(mdp.percent_error < mg.percent_error);
      QVERIFY(mg.percent_error < 15.0);
    }
  }

  // Angular undersampling of the spiral (Stone et al. 2008's case is heavily undersampled: 284,592 samples for 2^21
  // voxels). 4 interleaves of a readout designed for 4R interleaves at Nyquist, R = 1 .. 4, 48^2 disc:
  // gridding (Pipe-Menon density) and CG (CPU.DP, 20 iterations) % error against the simulator's truth,
  // gridding scaled to the truth as Stone et al. 2008 did (its unscaled figure is printed too).
  // Asserted: each R acquires R-fold fewer samples (within the slew-limited start of each readout, 15 %), and
  // CG is below gridding at every R. Bar fixed from Stone et al. 2008's "about three times lower % error" (42 % vs
  // 12-13 %, noisy 47 % vs 16 %): at R = 4 gridding's % error at least 2.5 times CG's. Measured 1.15 (the
  // ratio falls from 1.5 at R = 1 as both alias); kept as an expected failure so the miss stays visible and
  // an improvement that meets the bar turns into an XPASS (a failure) prompting removal of the marker.
  // Also held to the bar at R = 4: Voronoi density (the spiral centre's area right), and the papers' own
  // baseline, bilinear interpolation gridding (Kirk & Hwu, PMPP ch. 14: "simple bilinear interpolation
  // gridding" of the same Fig. 6 data). Against that baseline Stone et al. 2008's shape holds at Nyquist
  // (R = 1: asserted >= 2.5, measured 2.52, a thin margin); under undersampling aliasing dominates every
  // method and bilinear gridding, whose missing deapodisation damps the aliased high frequencies, ends below
  // CG at R = 4 (ratio 0.89). All of that is CG with W = identity, lambda 0. With Stone et al. 2008's own W
  // (anatomically constrained: the edges of a reference scan in another contrast) the shape appears at
  // R = 4: measured 5.46 % vs gridding's 45.0 % (8.25x; bilinear 6.41x); asserted >= 2.5x.
  void undersampledSpiralCgVersusGridding() {
    const int n = 48, interleaves = 4;
    double ratio_at_4 = 0, ratio_voronoi_at_4 = 0, ratio_bilinear_at_1 = 0, ratio_bilinear_at_4 = 0, ratio_anatomical_at_4 = 0;
    std::size_t nyquist_samples = 0, previous_samples = 0;
    for (int R = 1; R <= 4; ++R) {
      Scenario sc = disc_scenario(Trajectory::Spiral, n);
      sc.sequence.interleaves = interleaves;
      sc.sequence.design_interleaves = R * interleaves;
      sc.sequence.TR_s = 0.02;  // room for the 4-interleave Nyquist readout
      validate_scenario(sc, "undersampled.json");
      CpuSimulationEngine engine;
      const SimulationResult sim = simulate_noncart(sc, engine, {}, {});
      const noncart::Samples s = noncart::samples_from_raw(sim.raw);
      const noncart::Grid g{2, n};
      const std::vector<float> truth = sim.truth.magnitude();
      NoncartParams p;
      p.operators = CgOperators::Exact;  // the exact sums of Stone et al. 2008, Eqs. 3-4
      p.iterations = 20;
      const auto cg = noncart::reconstruct_cg_cpu(g, s, p, noncart::Precision::Double);
      const std::vector<float> grid = gridding_magnitude(g, s);
      const Metrics mc = compare_images(mag(cg.image), truth, n, n);
      const Metrics mg_raw = compare_images(grid, truth, n, n);
      const Metrics mg = compare_images(scale_matched(grid, truth), truth, n, n);
      const double ratio = mg.percent_error / mc.percent_error;
      qInfo("spiral %d^2, %d of %d design interleaves (R = %d), %zu samples: gridding %.2f %% / %.2f dB (unscaled %.2f %%), "
            "CG %.2f %% / %.2f dB, ratio %.2f", n, interleaves, R * interleaves, R, s.count(), mg.percent_error, mg.psnr_db,
            mg_raw.percent_error, mc.percent_error, mc.psnr_db, ratio);
      if (R == 1) nyquist_samples = s.count();
      QVERIFY(R == 1 || s.count() < previous_samples);
      QVERIFY(static_cast<double>(s.count()) * R <= 1.15 * nyquist_samples);
      previous_samples = s.count();
      QVERIFY(mc.percent_error < mg.percent_error);
      const Metrics mv = compare_images(scale_matched(gridding_magnitude(g, s, "voronoi"), truth), truth, n, n);
      const Metrics mb = compare_images(scale_matched(gridding_magnitude(g, s, "pipe-menon", "bilinear"), truth), truth, n, n);
      qInfo("  R = %d: gridding with Voronoi density %.2f %% (ratio %.2f), bilinear gridding %.2f %% (ratio %.2f)", R,
            mv.percent_error, mv.percent_error / mc.percent_error, mb.percent_error, mb.percent_error / mc.percent_error);
      QVERIFY(mc.percent_error < mv.percent_error);
      if (R == 1) ratio_bilinear_at_1 = mb.percent_error / mc.percent_error;
      if (R == 4) {
        // Stone et al. 2008's own W (anatomically constrained, its ref. [14]): differences cut at the edges of a
        // reference scan of the same phantom in another contrast (flip 60 instead of 20 degrees: the
        // simulator's truth of that scan), lambda_rel 10 = 10 M phi^2, CPU.DP 20 iterations.
        Scenario ref_sc = sc;
        ref_sc.sequence.flip_angle_deg = 60;
        CpuSimulationEngine ref_engine;
        NoncartParams pa = p;
        pa.regularizer = "anatomical";
        pa.prior = simulate_noncart(ref_sc, ref_engine, {}, {}).truth.magnitude();
        pa.lambda = 10.0 * static_cast<double>(s.count()) * g.phi() * g.phi();
        const auto ca = noncart::reconstruct_cg_cpu(g, s, pa, noncart::Precision::Double);
        const Metrics ma = compare_images(mag(ca.image), truth, n, n);
        ratio_anatomical_at_4 = mg.percent_error / ma.percent_error;
        qInfo("  R = 4: CG with the anatomical W (reference: flip 60) %.2f %% / %.2f dB: gridding / CG %.2f, bilinear "
              "gridding / CG %.2f", ma.percent_error, ma.psnr_db, ratio_anatomical_at_4, mb.percent_error / ma.percent_error);
        ratio_at_4 = ratio;
        ratio_voronoi_at_4 = mv.percent_error / mc.percent_error;
        ratio_bilinear_at_4 = mb.percent_error / mc.percent_error;
      }
    }
    QVERIFY2(ratio_bilinear_at_1 >= 2.5, qPrintable(QString("bilinear gridding / CG at R = 1: %1").arg(ratio_bilinear_at_1)));
    QVERIFY2(ratio_anatomical_at_4 >= 2.5,
             qPrintable(QString("gridding / CG with the anatomical W at R = 4: %1").arg(ratio_anatomical_at_4)));
    QEXPECT_FAIL("", "with W = identity Stone et al. 2008's ~3x is not reproduced on the simulator's "
                     "undersampled spiral (1.15 at R = 4)", Continue);
    QVERIFY2(ratio_at_4 >= 2.5, qPrintable(QString("gridding / CG %% error at R = 4: %1 (bar 2.5)").arg(ratio_at_4)));
    QEXPECT_FAIL("", "not with Voronoi density either (1.35 at R = 4)", Continue);
    QVERIFY2(ratio_voronoi_at_4 >= 2.5, qPrintable(QString("Voronoi gridding / CG at R = 4: %1").arg(ratio_voronoi_at_4)));
    QEXPECT_FAIL("", "nor against the seeds' bilinear gridding (0.89 at R = 4)", Continue);
    QVERIFY2(ratio_bilinear_at_4 >= 2.5, qPrintable(QString("bilinear gridding / CG at R = 4: %1").arg(ratio_bilinear_at_4)));
  }

  // 3-D: a stack of spirals (partition encode as dk_z) played on a slab of the disc (the CPU engine's 3-D
  // cells), reconstructed as a 16^3 volume by CG (CPU.SP, exact) and gridding against the simulator's voxel
  // truth. Geometry and scale right (no rescaling), and CG below gridding (W = identity: 13.2 % vs 14.8 %);
  // with Stone et al. 2008's anatomical W (reference: a flip-60 scan's truth) 5.35 %, 2.77x below gridding.
  void stackOfSpiralsVolume() {
    const int n = 16;
    Scenario sc = disc_scenario(Trajectory::StackOfSpirals, n);
    sc.sequence.interleaves = 4;
    sc.phantom.slab_thickness_m = 6 * sc.sequence.fov_m / n;  // 6 voxels of 12 cells, centred
    CpuSimulationEngine engine;
    const NoncartVolumeSimulation sim = simulate_noncart_volume(sc, engine, {}, {});
    QCOMPARE(sim.result.raw.traj_dims, 3);
    const noncart::Samples s = noncart::samples_from_raw(sim.result.raw);
    QCOMPARE(s.dims, 3);
    const noncart::Grid g{3, n};
    std::vector<float> truth(sim.truth.data.size());
    for (std::size_t i = 0; i < truth.size(); ++i) truth[i] = std::abs(sim.truth.data[i]);
    NoncartParams p;
    p.operators = CgOperators::Exact;  // the exact sums of Stone et al. 2008, Eqs. 3-4
    p.iterations = 20;
    const auto cg = noncart::reconstruct_cg_cpu(g, s, p, noncart::Precision::Single);
    const std::vector<float> grid = gridding_magnitude(g, s);
    const Metrics mc = compare_images(mag(cg.image), truth, n, n * n);
    const Metrics mg = compare_images(grid, truth, n, n * n);
    qInfo("stack of spirals %d^3 (%d partitions x 4 interleaves, %zu samples), slab of 6 voxels: CG %.2f %% / %.2f dB, "
          "gridding %.2f %% / %.2f dB", n, n, s.count(), mc.percent_error, mc.psnr_db, mg.percent_error, mg.psnr_db);
    const Metrics mv = compare_images(gridding_magnitude(g, s, "voronoi"), truth, n, n * n);
    qInfo("  gridding with Voronoi density (per partition): %.2f %% / %.2f dB", mv.percent_error, mv.psnr_db);
    QVERIFY(mc.percent_error < 20.0);  // a slab shifted by a voxel in z or a wrong 3-D scale: > 40 %
    QVERIFY(mc.percent_error < mg.percent_error);
    // Stone et al. 2008's anatomical W on the volume: the reference is the simulator's voxel truth of a flip-60 scan.
    Scenario ref_sc = sc;
    ref_sc.sequence.flip_angle_deg = 60;
    CpuSimulationEngine ref_engine;
    const ImageVolume ref = simulate_noncart_volume(ref_sc, ref_engine, {}, {}).truth;
    p.regularizer = "anatomical";
    for (const auto& v : ref.data) p.prior.push_back(std::abs(v));
    p.lambda = 10.0 * static_cast<double>(s.count()) * g.phi() * g.phi();
    const Metrics ma = compare_images(mag(noncart::reconstruct_cg_cpu(g, s, p, noncart::Precision::Single).image), truth, n, n * n);
    qInfo("  CG with the anatomical W (reference: flip 60): %.2f %% / %.2f dB, gridding / CG %.2f", ma.percent_error, ma.psnr_db,
          mg.percent_error / ma.percent_error);
    QVERIFY(ma.percent_error < mc.percent_error);
    QVERIFY(ma.percent_error * 2.5 <= mg.percent_error);  // the paper's shape (bar 2.5 as above): measured 2.77
  }

  // The pipeline (GUI, scripts/run) on a radial scenario with recon.method cg.
  void pipelineReconstructsRadialScenario() {
    Scenario sc = disc_scenario(Trajectory::Radial, 32);
    const PipelineResult r = run_pipeline(sc, {}, {});
    qInfo("pipeline radial 32^2 cg: %.2f %% error, PSNR %.2f dB", r.metrics.percent_error, r.metrics.psnr_db);
    QCOMPARE(r.raw.trajectory_type, std::string("radial"));
    QVERIFY(r.metrics.percent_error < 15.0);
  }
};

QTEST_GUILESS_MAIN(TestSimNoncart)
#include "test_sim_noncart.moc"
