// Radial and spiral spoiled GRE as Pulseq: the exported file's gradients reproduce the simulator's
// trajectory, stay within the limits, survive write -> read, simulate like the direct non-Cartesian path,
// and `mrwb simulate` / `mrwb sequence` agree on the minimum TE.
#include <QTest>

#include <cmath>
#include <complex>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/pipeline/pulseq_simulation.hpp"
#include "mrwb/recon/reconstructor.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_noncart_blocks.hpp"
#include "mrwb/sequence/noncart_design.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "numeric.hpp"

using namespace mrwb;
using namespace mrwb::seq;

namespace {

using mrwb::test::mag;
using mrwb::test::uniform_disc_scenario;

SequenceSpec noncart_spec(const QString& trajectory, int matrix) {
  SequenceSpec q;
  q.trajectory = parse_trajectory(trajectory.toStdString()).value();
  q.matrix = matrix;
  q.TE_s = 0;  // the minimum
  q.TR_s = 0;
  q.dummy_scans = 2;
  if (q.trajectory == Trajectory::Radial) q.spokes = 24;
  if (q.trajectory == Trajectory::StackOfSpirals) q.interleaves = 4;
  return q;
}

bool is_spiral(const SequenceSpec& q) { return q.trajectory == Trajectory::Spiral || q.trajectory == Trajectory::StackOfSpirals; }

// Largest |G| and |dG/dt| over the corner points of every gradient (edges of arbitrary waveforms included).
// Two oblique readouts (gx and gy on) whose ADCs differ in length by one sample.
std::string two_adcs_seq() {
  return "[VERSION]\nmajor 1\nminor 4\nrevision 0\n\n[DEFINITIONS]\nAdcRasterTime 1e-07\nBlockDurationRaster 1e-05\n"
         "GradientRasterTime 1e-05\nRadiofrequencyRasterTime 1e-06\nFOV 0.2 0.2 0.005\n\n[BLOCKS]\n1 100 0 1 1 0 1 0\n"
         "2 100 0 1 1 0 2 0\n\n[TRAP]\n1 1000 10 900 10 0\n\n[ADC]\n1 32 10000 10 0 0\n2 33 10000 10 0 0\n";
}

void gradient_extremes(const BlockSequence& s, double& gmax, double& smax) {
  gmax = smax = 0;
  for (const Block& b : s.blocks)
    for (const auto* g : {&b.gx, &b.gy, &b.gz}) {
      if (!*g) continue;
      const auto p = (*g)->points(s.sys.grad_raster_s);
      for (std::size_t i = 0; i < p.size(); ++i) {
        gmax = std::max(gmax, std::abs(p[i].second));
        if (i > 0 && p[i].first > p[i - 1].first)
          smax = std::max(smax, std::abs(p[i].second - p[i - 1].second) / (p[i].first - p[i - 1].first));
      }
    }
}

// The scenario's own non-Cartesian simulation and the one of its exported .seq, played on the same phantom.
struct ImportedVsDirect {
  RawData direct, imported;
  double max_dk = 0;   // largest trajectory difference [cycles/FOV]
  double k_rel = 0;    // relative L2 difference of the k-space samples
};
ImportedVsDirect simulate_both_ways(const Scenario& s) {
  validate_scenario(s, "scenario");
  auto engine = make_simulation_engine(Backend::Cpu);
  ImportedVsDirect r;
  r.direct = simulate_noncart(s, *engine, {}, {}).raw;
  const BlockSequence file = parse_pulseq(pulseq_text(scenario_blocks(s.sequence, "scenario").seq), "exported.seq");
  r.imported = simulate_imported_sequence(s, file, *engine, {}, {}).segments.front();
  const RawData& a = r.direct;
  const RawData& b = r.imported;
  if (b.traj.size() != a.traj.size() || b.kspace.size() != a.kspace.size()) return r;  // the callers' QCOMPAREs fail
  for (std::size_t i = 0; i < a.traj.size(); ++i) r.max_dk = std::max(r.max_dk, static_cast<double>(std::abs(a.traj[i] - b.traj[i])));
  r.k_rel = mrwb::test::rel_l2<float>(b.kspace, a.kspace);  // terms in float, as complex<float> arithmetic gives them
  return r;
}

}  // namespace

class TestPulseqNoncart : public QObject {
  Q_OBJECT
 private slots:
  void exportedTrajectoryIsTheSimulators_data() {
    QTest::addColumn<QString>("trajectory");
    QTest::addColumn<int>("minor");
    QTest::newRow("radial 1.5") << "radial" << 5;
    QTest::newRow("golden_radial 1.4") << "golden_radial" << 4;
    QTest::newRow("spiral 1.5") << "spiral" << 5;
    QTest::newRow("spiral 1.4") << "spiral" << 4;
    QTest::newRow("stack_of_spirals 1.5") << "stack_of_spirals" << 5;
  }
  // The k of every ADC sample, integrated from the gradients of the file read back, against
  // noncart_trajectory. Radial plays the design exactly (bar: text precision, 1e-4 cycles/FOV). Spiral:
  // raster value i is the design's step (k[i+1] − k[i]) / dt, and the piecewise-linear waveform's integral
  // to edge j differs from k[j] by dt/8 · (second differences at both ends) <= dt² · slew · FOV / 4.
  void exportedTrajectoryIsTheSimulators() {
    QFETCH(QString, trajectory);
    QFETCH(int, minor);
    const SequenceSpec q = noncart_spec(trajectory, 32);
    const BuiltSequence b = scenario_blocks(q, "test");
    const BlockSequence r = parse_pulseq(pulseq_text(b.seq, minor), "noncart.seq");
    ConversionOptions o;
    o.rf_step_s = 1.0;
    const ProgramConversion c = to_sequence_program(r, o);
    const noncart::Trajectory t = noncart_trajectory(q);
    QCOMPARE(c.adc_count, t.readouts);
    QCOMPARE(static_cast<std::size_t>(c.kx.size()), t.count());
    const double dt = r.sys.grad_raster_s;
    const bool spiral = is_spiral(q);
    const double bar = spiral ? dt * dt * b.seq.sys.max_slew_Hz_per_m_per_s * q.fov_m / 4 : 1e-4;
    double dev = 0;
    for (std::size_t i = 0; i < t.count(); ++i) {
      const double k[3] = {c.kx[i] * q.fov_m, c.ky[i] * q.fov_m, c.kz[i] * q.fov_m};
      for (int d = 0; d < t.dims; ++d) dev = std::max(dev, std::abs(k[d] - t.k[i * t.dims + d]));
      if (t.dims == 2) dev = std::max(dev, std::abs(k[2]));  // 2-D: the slice rephaser brings kz back to 0
    }
    qInfo("%s: max |k(file) - k(simulator)| = %.3g cycles/FOV over %zu samples (bar %.3g)", qPrintable(trajectory), dev,
          t.count(), bar);
    QVERIFY2(dev <= bar, qPrintable(QString("deviation %1 cycles/FOV > %2").arg(dev).arg(bar)));
    // TE as derived from the file (excitation centre to the k = 0 sample) is the builder's.
    QVERIFY2(std::abs(c.TE_s - b.TE_s) < 1e-6, qPrintable(QString("TE %1 vs %2").arg(c.TE_s).arg(b.TE_s)));
    QVERIFY(b.min_TE_s > 0 && b.min_TR_s > b.min_TE_s);
  }

  void writeReadGivesTheSameEvents_data() {
    QTest::addColumn<QString>("trajectory");
    QTest::addColumn<int>("minor");
    QTest::newRow("golden_radial 1.5") << "golden_radial" << 5;
    QTest::newRow("spiral 1.5") << "spiral" << 5;
    QTest::newRow("spiral 1.4") << "spiral" << 4;
  }
  void writeReadGivesTheSameEvents() {
    QFETCH(QString, trajectory);
    QFETCH(int, minor);
    const SequenceSpec spec = noncart_spec(trajectory, 32);
    const BuiltSequence b = scenario_blocks(spec, "test");
    const std::string text = pulseq_text(b.seq, minor);
    const BlockSequence r = parse_pulseq(text, "noncart.seq");
    QVERIFY(text.find("[GRADIENTS]") != std::string::npos || !is_spiral(spec));
    QCOMPARE(r.blocks.size(), b.seq.blocks.size());
    QVERIFY(std::abs(r.sys.grad_raster_s - b.seq.sys.grad_raster_s) < 1e-12);
    const double dt = b.seq.sys.grad_raster_s;
    int arbitrary = 0;
    for (std::size_t i = 0; i < r.blocks.size(); ++i) {
      const Block &x = b.seq.blocks[i], &y = r.blocks[i];
      QVERIFY(std::abs(x.duration_s - y.duration_s) < 1e-9);
      const std::optional<Gradient>* gx[3] = {&x.gx, &x.gy, &x.gz};
      const std::optional<Gradient>* gy[3] = {&y.gx, &y.gy, &y.gz};
      for (int a = 0; a < 3; ++a) {
        QCOMPARE(gx[a]->has_value(), gy[a]->has_value());
        if (!*gx[a]) continue;
        const Gradient &G = **gx[a], &H = **gy[a];
        QCOMPARE(static_cast<int>(G.type), static_cast<int>(H.type));
        QVERIFY(std::abs(G.duration_s(dt) - H.duration_s(dt)) < 1e-9);
        // Every corner within 1e-6 of the peak (the shapes are written with 9 digits).
        const auto p = G.points(dt), q = H.points(dt);
        QCOMPARE(q.size(), p.size());
        for (std::size_t k = 0; k < p.size(); ++k) {
          QVERIFY(std::abs(p[k].first - q[k].first) < 1e-9);
          QVERIFY2(std::abs(p[k].second - q[k].second) <= 1e-6 * std::abs(G.amplitude_Hz_per_m),
                   qPrintable(QString("block %1 axis %2 point %3").arg(i).arg(a).arg(k)));
        }
        arbitrary += G.type == Gradient::Type::Arbitrary;
      }
      QCOMPARE(x.adc.has_value(), y.adc.has_value());
      if (x.adc) {
        QCOMPARE(y.adc->num_samples, x.adc->num_samples);
        QVERIFY(std::abs(y.adc->dwell_s - x.adc->dwell_s) < 1e-12);
        QVERIFY(std::abs(y.adc->delay_s - x.adc->delay_s) < 1e-9);
        QVERIFY(std::abs(std::remainder(y.adc->phase_rad - x.adc->phase_rad, 2 * M_PI)) < 1e-6);
      }
    }
    QCOMPARE(arbitrary > 0, is_spiral(spec));
  }

  // The spiral readout within the design's 40 mT/m and 150 T/m/s at every corner, edges included; a lower
  // slew limit than the design is refused with the block, the axis and the allowed range.
  void spiralWaveformWithinTheLimits() {
    const SequenceSpec q = noncart_spec("spiral", 64);
    const BuiltSequence b = scenario_blocks(q, "test");
    double gmax = 0, smax = 0;
    gradient_extremes(b.seq, gmax, smax);
    qInfo("spiral 64: max |G| %.2f mT/m (limit %.0f), max slew %.1f T/m/s (limit %.0f)", gmax / gamma_Hz_per_T * 1e3,
          b.seq.sys.max_grad_Hz_per_m / gamma_Hz_per_T * 1e3, smax / gamma_Hz_per_T,
          b.seq.sys.max_slew_Hz_per_m_per_s / gamma_Hz_per_T);
    QVERIFY(gmax <= b.seq.sys.max_grad_Hz_per_m * (1 + 1e-9));
    QVERIFY(smax <= b.seq.sys.max_slew_Hz_per_m_per_s * (1 + 1e-9));
    QVERIFY2(smax > 0.8 * b.seq.sys.max_slew_Hz_per_m_per_s, "the design uses the slew it is allowed");
    SystemLimits slow = scenario_system_limits(q);
    slow.max_slew_Hz_per_m_per_s = 0.7 * smax;
    try {
      scenario_blocks(q, "slow.json", slow);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("slow.json: readout 0: block") && QString(e.what()).contains("slew rate") &&
                   QString(e.what()).contains("allowed: <="), e.what());
    }
  }

  // One minimum TE: a scenario a hair above the builder's minimum is accepted by validate_scenario (mrwb
  // simulate) and by scenario_blocks (mrwb sequence); a hair below, refused by both.
  void simulateAndSequenceAgreeOnTheMinimumTE_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("trajectory");
    QTest::newRow("spoiled_gre cartesian") << "spoiled_gre" << "cartesian";
    QTest::newRow("spin_echo cartesian") << "spin_echo" << "cartesian";
    QTest::newRow("spoiled_gre radial") << "spoiled_gre" << "radial";
    QTest::newRow("spoiled_gre spiral") << "spoiled_gre" << "spiral";
  }
  void simulateAndSequenceAgreeOnTheMinimumTE() {
    QFETCH(QString, type);
    QFETCH(QString, trajectory);
    Scenario s;
    s.sequence.type = parse_sequence_type(type.toStdString()).value();
    s.sequence.trajectory = parse_trajectory(trajectory.toStdString()).value();
    s.sequence.matrix = 32;
    s.sequence.TR_s = 0.1;
    if (s.sequence.trajectory != Trajectory::Cartesian) s.recon.method = ReconMethod::Gridding;
    SequenceSpec q = s.sequence;
    q.TE_s = 0;
    const double te_min = scenario_blocks(q, "test").min_TE_s;
    qInfo("%s %s: minimum TE %.4f ms", qPrintable(type), qPrintable(trajectory), te_min * 1e3);
    for (double step : {20e-6, -20e-6}) {
      s.sequence.TE_s = te_min + step;
      bool simulate_ok = true, sequence_ok = true;
      try {
        validate_scenario(s, "scenario");
      } catch (const InputError&) {
        simulate_ok = false;
      }
      try {
        scenario_blocks(s.sequence, "scenario: sequence");
      } catch (const InputError& e) {
        sequence_ok = false;
        QVERIFY2(QString(e.what()).contains("TE_s"), e.what());
      }
      QCOMPARE(simulate_ok, step > 0);
      QCOMPARE(sequence_ok, step > 0);
    }
  }

  // The exported radial .seq played on the scenario's phantom gives the raw data of the direct radial
  // simulation, which plays the same blocks: same k (within 1e-4 cycles/FOV, the file's text precision),
  // same samples to 1e-6 relative L2; the gridding images then agree to PSNR >= 40 dB.
  void importedRadialSimulatesLikeTheDirectPath() {
    Scenario s = uniform_disc_scenario(32, 2);
    s.sequence.trajectory = Trajectory::Radial;
    s.sequence.spokes = 48;
    s.sequence.dummy_scans = 20;
    s.sequence.TE_s = 0.004;
    s.sequence.TR_s = 0.012;
    s.recon.method = ReconMethod::Gridding;
    const ImportedVsDirect both = simulate_both_ways(s);
    const RawData& a = both.direct;
    const RawData& b = both.imported;
    QCOMPARE(b.nx, a.nx);
    QCOMPARE(b.ny, a.ny);
    QCOMPARE(b.traj_dims, 2);
    QCOMPARE(b.traj.size(), a.traj.size());
    const double kdev = both.max_dk, rel = both.k_rel;
    ReconOptions o;
    o.method = ReconMethod::Gridding;
    const Image2D ia = make_reconstructor(ReconMethod::Gridding, Backend::Cpu)->reconstruct(a, o, {}, {});
    const Image2D ib = make_reconstructor(ReconMethod::Gridding, Backend::Cpu)->reconstruct(b, o, {}, {});
    const Metrics m = compare_images(mag(ib.data), mag(ia.data), ia.nx, ia.ny);
    const double p = m.psnr_db;
    qInfo("imported radial vs direct: max |dk| %.2g cycles/FOV, k-space rel. L2 error %.3g %%, gridding PSNR %.1f dB, "
          "image error %.3g %%", kdev, rel * 100, p, m.percent_error);
    QVERIFY(kdev <= 1e-4);
    QVERIFY2(rel <= 1e-6, qPrintable(QString("k-space error %1").arg(rel)));
    QVERIFY2(p >= 40, qPrintable(QString("PSNR %1 dB").arg(p)));
  }

  // The exported stack of spirals played on a 3-D slab gives the raw data of the direct simulation, which
  // plays the same blocks (the z scale of the samples included, with 2 cells per voxel): same k to the
  // file's text precision, same samples to 1e-6 relative L2.
  void importedStackOfSpiralsSimulatesLikeTheDirectPath_data() {
    QTest::addColumn<int>("cells_per_voxel");
    QTest::newRow("1 cell per voxel") << 1;
    QTest::newRow("2 cells per voxel (z scale)") << 2;
  }
  void importedStackOfSpiralsSimulatesLikeTheDirectPath() {
    QFETCH(int, cells_per_voxel);
    Scenario s = uniform_disc_scenario(16, cells_per_voxel);
    s.phantom.slab_thickness_m = 0.032;
    s.sequence.trajectory = Trajectory::StackOfSpirals;
    s.sequence.fov_m = 0.128;
    s.sequence.interleaves = 4;
    s.sequence.dummy_scans = 2;
    s.recon.method = ReconMethod::Gridding;
    const ImportedVsDirect both = simulate_both_ways(s);
    const RawData& a = both.direct;
    const RawData& b = both.imported;
    QCOMPARE(b.nx, a.nx);
    QCOMPARE(b.ny, a.ny);
    QCOMPARE(b.traj_dims, 3);
    QCOMPARE(b.traj.size(), a.traj.size());
    const double kdev = both.max_dk, rel = both.k_rel;
    qInfo("imported stack of spirals vs direct: max |dk| %.3g cycles/FOV, k-space rel. L2 error %.3g", kdev, rel);
    QVERIFY(kdev <= 1e-4);
    QVERIFY2(rel <= 1e-6, qPrintable(QString("k-space error %1").arg(rel)));
  }
  // Found by fuzz/fuzz_pulseq: the trajectory of ADCs of 32 and 33 samples was refused without naming the
  // file ("non-Cartesian sequence: ADCs of ..."); the file now begins the message.
  void playedTrajectoryRefusalNamesTheFile() {
    const BlockSequence s = parse_pulseq(two_adcs_seq(), "adcs.seq");
    const ProgramConversion c = to_sequence_program(s);
    try {
      played_trajectory(c, s.fov_m, 2, "adcs.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString msg = e.what();
      QVERIFY2(msg.startsWith("adcs.seq: non-Cartesian sequence: ADCs of 33 and 32 samples"), qPrintable(msg));
    }
  }
};

QTEST_GUILESS_MAIN(TestPulseqNoncart)
#include "test_pulseq_noncart.moc"
