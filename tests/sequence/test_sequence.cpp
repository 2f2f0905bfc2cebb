// Block-sequence builders: gradient moments at the echo, VENC first moment, balanced moments, limits,
// minimum TE / TR and bad input. Moments are integrated here from the gradient corner points.
#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>

#include "fixtures.hpp"
#include "input_error.hpp"
#include "sanitizer_scale.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario_sequence.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "numeric.hpp"

using namespace mrwb;
using namespace mrwb::seq;

namespace {
// Zeroth and first moment of one axis over [ta, tb] (absolute times), first moment about ta.
struct Moments {
  double m0 = 0, m1 = 0;
};
Moments moments(const BlockSequence& s, int axis, double ta, double tb) {
  Moments m;
  double t0 = 0;
  for (const Block& b : s.blocks) {
    const std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
    if (*g3[axis]) {
      const auto p = (*g3[axis])->points(s.sys.grad_raster_s);
      for (std::size_t i = 1; i < p.size(); ++i) {
        // Exact for a linear segment: sub-sample finely (Simpson on each piece).
        const double a = std::max(ta, t0 + p[i - 1].first), c = std::min(tb, t0 + p[i].first);
        if (c <= a) continue;
        const double dt = p[i].first - p[i - 1].first;
        auto G = [&](double t) { return p[i - 1].second + (p[i].second - p[i - 1].second) * (t - t0 - p[i - 1].first) / dt; };
        const double mid = 0.5 * (a + c);
        m.m0 += (c - a) / 6 * (G(a) + 4 * G(mid) + G(c));
        m.m1 += (c - a) / 6 * (G(a) * (a - ta) + 4 * G(mid) * (mid - ta) + G(c) * (c - ta));
      }
    }
    t0 += b.duration_s;
  }
  return m;
}
// Absolute times of the excitation centres and the ADC sample n/2 of each readout.
struct Echo {
  double t_exc, t_echo;
  int line, set, par;
};
std::vector<Echo> echoes(const BlockSequence& s) {
  std::vector<Echo> out;
  double t0 = 0, exc = -1;
  for (const Block& b : s.blocks) {
    if (b.rf && b.rf->use == 'e') exc = t0 + b.rf->delay_s + b.rf->center_s;
    if (b.adc) {
      Echo e{exc, t0 + b.adc->sample_time_s(b.adc->num_samples / 2), -1, 0, 0};
      for (const Label& l : b.labels) {
        if (l.name == "LIN") e.line = l.value;
        if (l.name == "SET") e.set = l.value;
        if (l.name == "PAR") e.par = l.value;
      }
      out.push_back(e);
    }
    t0 += b.duration_s;
  }
  return out;
}
// First moment about the echo: M1 about the excitation minus (echo − excitation)·M0.
double m1_at_echo(const BlockSequence& s, int axis, const Echo& e) {
  const Moments m = moments(s, axis, e.t_exc, e.t_echo);
  return m.m1 - (e.t_echo - e.t_exc) * m.m0;
}
// A small uniform disc of one tissue simulated through the scenario pipeline (CPU).
SimulationResult simulate_disc(SequenceType type, double TR_s, double TE_s, double flip_deg, int dummies) {
  Scenario sc = mrwb::test::uniform_disc_scenario(16, 2);
  sc.phantom.background_tissue = "fat";
  sc.sequence.type = type;
  sc.sequence.fov_m = 0.128;
  sc.sequence.TR_s = TR_s;
  sc.sequence.TE_s = TE_s;
  sc.sequence.flip_angle_deg = flip_deg;
  sc.sequence.dummy_scans = dummies;
  CpuSimulationEngine engine(2);
  return simulate(sc, engine, {}, {});
}
// TOF at the minimum TE/TR, 32², R = 2 with 8 ACS lines, 2 dummy scans.
SequenceSpec tof_r2_acs8() {
  SequenceSpec q;
  q.type = SequenceType::Tof;
  q.matrix = 32;
  q.TE_s = 0;
  q.TR_s = 0;
  q.acceleration = 2;
  q.acs_lines = 8;
  q.dummy_scans = 2;
  return q;
}
// |truth| and |FFT image| at the centre pixel.
std::pair<double, double> centre_signal(const SimulationResult& r) {
  const auto img = centred_ifft2(r.raw.kspace.data(), r.raw.nx, r.raw.ny);
  const std::size_t c = static_cast<std::size_t>(r.raw.ny / 2) * r.raw.nx + r.raw.nx / 2;
  return {std::abs(r.truth.data[c]), std::abs(img[c])};
}
}  // namespace

class TestSequence : public QObject {
  Q_OBJECT
 private slots:
  void greZeroMomentAtEcho() {
    CartesianParams p;
    p.matrix = 32;
    p.TE_s = 5e-3;
    const BuiltSequence b = build_spoiled_gre_blocks(p);
    const double dk = 1 / p.fov_m;
    QVERIFY(std::abs(b.TE_s - 5e-3) <= 5e-6);
    for (const Echo& e : echoes(b.seq)) {
      const Moments mx = moments(b.seq, 0, e.t_exc, e.t_echo);
      const Moments my = moments(b.seq, 1, e.t_exc, e.t_echo);
      const Moments mz = moments(b.seq, 2, e.t_exc, e.t_echo);
      QVERIFY2(std::abs(mx.m0) < 1e-6 * dk, qPrintable(QString::number(mx.m0 / dk)));
      QVERIFY(std::abs(my.m0 - (e.line - p.matrix / 2) * dk) < 1e-6 * dk);
      QVERIFY2(std::abs(mz.m0) < 1e-3 / p.slice_thickness_m, qPrintable(QString::number(mz.m0)));
      QVERIFY(std::abs((e.t_echo - e.t_exc) - b.TE_s) < 1e-9);
    }
    // The converter puts the same sample at k = 0.
    const ProgramConversion c = to_sequence_program(b.seq, {20e-6});
    QCOMPARE(c.k0_sample, p.matrix / 2);
    QVERIFY(std::abs(c.TE_s - b.TE_s) < 1e-9);
    QVERIFY(std::abs(c.TR_s - b.TR_s) < 1e-9);
  }
  void spinEchoRefocusesAtEcho() {
    CartesianParams p;
    p.matrix = 32;
    const BuiltSequence b = build_spin_echo_blocks(p);
    const ProgramConversion c = to_sequence_program(b.seq, {20e-6});
    QCOMPARE(c.k0_sample, p.matrix / 2);
    const std::size_t centre = static_cast<std::size_t>(c.k0_adc) * p.matrix + c.k0_sample;
    QVERIFY(std::abs(c.kx[centre]) < 1e-6 * p.fov_m);
    QVERIFY(std::abs(c.ky[centre]) < 1e-6 * p.fov_m);
    QVERIFY2(std::abs(c.TE_s - b.TE_s) <= 10e-6, qPrintable(QString("%1 vs %2").arg(c.TE_s).arg(b.TE_s)));
  }
  // The program the simulator plays for spoiled GE and spin echo is converted from the same blocks the
  // diagram and the Pulseq file show: at every ADC sample its k (the events' moments summed from the last
  // excitation, negated at the 180°) equals the time integral of the block waveforms.
  // At every ADC sample the program's k (its events' moments summed since the excitation, negated at a
  // refocusing pulse) equals the time integral of the block waveforms (the conversion's exact integral,
  // RF on its raster), 1e-9 relative, for every sequence family. Hard RF: a shaped pulse has no single
  // instant at which k restarts.
  void programKMatchesBlockWaveforms_data() {
    QTest::addColumn<QString>("family");
    for (const char* f : {"spoiled_gre", "spin_echo", "bssfp", "tof", "phase_contrast", "partial_fourier", "grappa_separate_acs",
                          "multi_slice", "tof_3d", "radial", "golden_radial", "spiral", "stack_of_spirals"})
      QTest::newRow(f) << QString(f);
  }
  void programKMatchesBlockWaveforms() {
    QFETCH(QString, family);
    const std::string f = family.toStdString();
    SequenceSpec q;
    q.matrix = 32;
    q.fov_m = 0.2;
    q.dummy_scans = 3;
    q.TE_s = q.TR_s = 0;  // the builders' minima
    if (f == "spin_echo") q.type = SequenceType::SpinEcho;
    if (f == "bssfp") q.type = SequenceType::Bssfp;
    if (f == "tof" || f == "tof_3d" || f == "multi_slice") q.type = SequenceType::Tof;
    if (f == "phase_contrast") q.type = SequenceType::PhaseContrast, q.venc_directions = {"x", "y", "z"};
    if (f == "partial_fourier") q.partial_fourier = 0.625;
    if (f == "grappa_separate_acs") q.acceleration = 2, q.acs_lines = 12, q.acs_mode = "separate";
    if (f == "multi_slice") q.slices = 3, q.slice_gap_m = 0.002;
    if (f == "tof_3d") q.partitions = 8, q.slice_thickness_m = 0.032;
    for (const Trajectory t : {Trajectory::Radial, Trajectory::GoldenRadial, Trajectory::Spiral, Trajectory::StackOfSpirals})
      if (f == name_of(t)) q.trajectory = t;
    if (q.trajectory == Trajectory::StackOfSpirals) q.matrix = 8, q.interleaves = 2;
    q.fidelity.rf = RfFidelity::Hard;
    const BuiltSequence built = scenario_blocks(q);
    const ProgramConversion waveforms = to_sequence_program(built.seq);  // RF on its raster
    const ProgramConversion c = scenario_program(q, built);
    const SequenceProgram& prog = c.program;
    double k[3] = {0, 0, 0}, kmax = 0;
    std::vector<std::array<double, 3>> played;
    for (const SeqEvent& e : prog.events) {
      if (e.kind == EventKind::Rf) {
        if (e.flip_rad < 100 * M_PI / 180) k[0] = k[1] = k[2] = 0;  // excitation
        else for (double& v : k) v = -v;                             // refocusing (or half of a frame turn)
      } else if (e.kind == EventKind::Free) {
        k[0] += e.dk_x, k[1] += e.dk_y, k[2] += e.dk_z;
      } else if (e.kind == EventKind::Readout) {
        for (int j = 0; j < e.n_samples; ++j) played.push_back({k[0] + j * e.dk_x, k[1] + j * e.dk_y, k[2] + j * e.dk_z});
        k[0] += e.n_samples * e.dk_x, k[1] += e.n_samples * e.dk_y, k[2] += e.n_samples * e.dk_z;
      }
    }
    QCOMPARE(played.size(), waveforms.kx.size());
    for (std::size_t i = 0; i < played.size(); ++i)
      kmax = std::max({kmax, std::abs(waveforms.kx[i]), std::abs(waveforms.ky[i]), std::abs(waveforms.kz[i])});
    double worst = 0;
    for (std::size_t i = 0; i < played.size(); ++i)
      worst = std::max({worst, std::abs(played[i][0] - waveforms.kx[i]), std::abs(played[i][1] - waveforms.ky[i]),
                        std::abs(played[i][2] - waveforms.kz[i])});
    qInfo("%s: %zu samples in %d Readout events, largest |k difference| %.2e of max |k| %.1f cycles/m", qPrintable(family),
          played.size(), prog.readouts, worst, kmax);
    QVERIFY(kmax > 0);
    QVERIFY(worst <= 1e-9 * kmax);
  }

  // sequence.max_grad_mT_per_m / max_slew_T_per_m_per_s and partial_fourier: JSON round trip, the limits
  // reach the blocks (no gradient beyond them), the skipped lines are flagged unacquired, ranges refused.
  void designLimitsAndPartialFourier() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.max_grad_mT_per_m = 20;
    s.sequence.max_slew_T_per_m_per_s = 80;
    s.sequence.partial_fourier = 0.75;
    const std::string text = scenario_to_json_text(s);
    const Scenario back = scenario_from_json_text(text, "s.json");
    QCOMPARE(back.sequence.max_grad_mT_per_m, 20.0);
    QCOMPARE(back.sequence.max_slew_T_per_m_per_s, 80.0);
    QCOMPARE(back.sequence.partial_fourier, 0.75);
    QVERIFY(scenario_to_json_text(scenario_preset("straight_vessel")).find("max_grad") == std::string::npos);  // written when set
    const BuiltSequence b = validated_sequence(back, "s.json");
    QVERIFY(std::abs(b.seq.sys.max_grad_Hz_per_m - 20e-3 * gamma_Hz_per_T) < 1e-6);
    double gmax = 0;
    for (const Block& bl : b.seq.blocks)
      for (const auto* g : {&bl.gx, &bl.gy, &bl.gz})
        if (*g)
          for (const auto& pt : (*g)->points(b.seq.sys.grad_raster_s)) gmax = std::max(gmax, std::abs(pt.second));
    QVERIFY(gmax > 0 && gmax <= b.seq.sys.max_grad_Hz_per_m * (1 + 1e-9));
    const SequenceProgram prog = build_sequence_program(back.sequence);
    int acquired = 0;
    for (std::uint8_t f : prog.line_flags) acquired += (f & kLineAcquired) != 0;
    QCOMPARE(acquired, static_cast<int>(std::lround(0.75 * back.sequence.matrix)));
    QCOMPARE(prog.line_flags.front() & kLineAcquired, 0);  // the lowest lines are the skipped ones
    Scenario bad = s;
    bad.sequence.max_grad_mT_per_m = 500;
    QVERIFY(mrwb::test::input_error([&] { validate_scenario(bad, "b.json"); }).contains("sequence.max_grad_mT_per_m"));
    bad = s, bad.sequence.partial_fourier = 0.3;
    QVERIFY(mrwb::test::input_error([&] { validate_scenario(bad, "b.json"); }).contains("sequence.partial_fourier"));
    bad = s, bad.sequence.trajectory = Trajectory::Radial, bad.recon.method = ReconMethod::Gridding;
    QVERIFY(mrwb::test::input_error([&] { validate_scenario(bad, "b.json"); }).contains("allowed below 1: cartesian"));
  }

  // The fidelity of the blocks' conversion (sequence.fidelity) is a choice of one program: gradient waveforms give
  // the moments' k-space, shaped RF differs from hard RF by little; ideal spoiling is a Spoil event a TR. Under the
  // sanitizer the preset at 64², in a tenth of the time (relative RMS at 128² / 64²: waveform 9.7e-7 / 2.5e-6,
  // shaped 1.8e-3 / 2.1e-3).
  void fidelityIsAChoiceOfOneConversion() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = test::full_or_sanitized(s.sequence.matrix, 64);
    s.sequence.dummy_scans = 20;
    auto engine = make_simulation_engine(Backend::Cpu);
    auto kspace = [&](const SequenceFidelity& f) {
      Scenario t = s;
      t.sequence.fidelity = f;
      return simulate(t, *engine, {}, {}).raw.kspace;
    };
    const auto base = kspace({});
    SequenceFidelity waveform;
    waveform.gradients = GradientFidelity::Waveform;
    SequenceFidelity shaped;
    shaped.rf = RfFidelity::Shaped;
    const double d_waveform = test::rel_rms(kspace(waveform), base), d_shaped = test::rel_rms(kspace(shaped), base);
    qInfo("still phantom: waveform vs moments %.2e, shaped vs hard RF %.2e (relative RMS)", d_waveform, d_shaped);
    QVERIFY(d_waveform <= 1e-5);
    QVERIFY(d_shaped > 1e-6 && d_shaped < 1e-2);

    SequenceFidelity gradients;
    gradients.spoiling = SpoilingFidelity::Gradients;
    SequenceSpec q = s.sequence;
    int spoils_ideal = 0, spoils_gradients = 0;
    for (const SeqEvent& e : build_sequence_program(q).events) spoils_ideal += e.kind == EventKind::Spoil;
    q.fidelity = gradients;
    for (const SeqEvent& e : build_sequence_program(q).events) spoils_gradients += e.kind == EventKind::Spoil;
    QCOMPARE(spoils_ideal, q.dummy_scans + q.matrix);
    QCOMPARE(spoils_gradients, 0);

    Scenario j = s;
    j.sequence.fidelity = shaped;
    j.sequence.fidelity.spoiling = SpoilingFidelity::Gradients;
    const std::string text = scenario_to_json_text(j);
    QVERIFY(text.find("\"fidelity\"") != std::string::npos);
    QVERIFY(scenario_from_json_text(text, "s.json").sequence.fidelity == j.sequence.fidelity);
    QVERIFY(scenario_to_json_text(s).find("fidelity") == std::string::npos);  // default: not written
    std::string bad = text;
    bad.replace(bad.find("\"shaped\""), 8, "\"smooth\"");
    try {
      scenario_from_json_text(bad, "s.json");
      QFAIL("an unknown fidelity was accepted");
    } catch (const InputError& e) {
      QCOMPARE(std::string(e.what()),
               std::string("s.json: sequence.fidelity.rf = 'smooth' is not allowed (allowed: auto, hard, shaped)"));
    }
  }

  void phaseContrastVencPhase_data() {
    QTest::addColumn<double>("venc");
    QTest::addColumn<int>("axes");
    QTest::newRow("1 m/s x") << 1.0 << 1;
    QTest::newRow("0.3 m/s xyz") << 0.3 << 3;
    QTest::newRow("2 m/s xy") << 2.0 << 2;
  }
  void phaseContrastVencPhase() {
    QFETCH(double, venc);
    QFETCH(int, axes);
    CartesianParams p;
    p.matrix = 16;
    p.venc_m_per_s = venc;
    p.venc_axes.clear();
    for (int a = 0; a < axes; ++a) p.venc_axes.push_back(a);
    const BuiltSequence b = build_phase_contrast_blocks(p);
    const auto e = echoes(b.seq);
    // Segments of the centre line: reference (set 0) and one per axis.
    std::vector<Echo> seg(axes + 1, Echo{-1, -1, -1, -1, 0});
    for (const Echo& x : e)
      if (x.line == p.matrix / 2) seg[x.set] = x;
    for (int d = 1; d <= axes; ++d)
      for (int a = 0; a < 3; ++a) {
        const double m1_ref = moments(b.seq, a, seg[0].t_exc, seg[0].t_echo).m1;
        const double m1_d = moments(b.seq, a, seg[d].t_exc, seg[d].t_echo).m1;
        const double dphi = 2 * M_PI * venc * (m1_d - m1_ref);  // phase step of a spin moving at VENC
        if (a == d - 1)
          QVERIFY2(std::abs(std::abs(dphi) - M_PI) < 0.01 * M_PI, qPrintable(QString("axis %1: %2 rad").arg(a).arg(dphi)));
        else
          QVERIFY2(std::abs(dphi) < 1e-6, qPrintable(QString("axis %1 leaks %2 rad").arg(a).arg(dphi)));
      }
    // The bipolar adds no zeroth moment: k = 0 still at sample n/2.
    for (const Echo& x : e) QVERIFY(std::abs(moments(b.seq, 0, x.t_exc, x.t_echo).m0) < 1e-6 * p.fov_m);
  }
  void bssfpIsBalanced() {
    CartesianParams p;
    p.matrix = 16;
    p.flip_angle_deg = 40;
    const BuiltSequence b = build_bssfp_blocks(p);
    std::vector<double> exc;
    double t0 = 0;
    for (const Block& bl : b.seq.blocks) {
      if (bl.rf) exc.push_back(t0 + bl.rf->delay_s + bl.rf->center_s);
      t0 += bl.duration_s;
    }
    QVERIFY(exc.size() > 3);
    for (std::size_t i = 1; i + 1 < exc.size(); ++i)
      for (int a = 0; a < 3; ++a) {
        const double m0 = moments(b.seq, a, exc[i], exc[i + 1]).m0;
        QVERIFY2(std::abs(m0) < 1e-6 / p.slice_thickness_m * 1e3, qPrintable(QString("TR %1 axis %2: %3").arg(i).arg(a).arg(m0)));
      }
  }
  void limitsRespected_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<double>("slew_T_m_s");
    QTest::addColumn<double>("grad_mT_m");
    for (const char* t : {"spoiled_gre", "spin_echo", "bssfp", "phase_contrast", "tof"}) {
      QTest::newRow((std::string(t) + " fast").c_str()) << QString(t) << 200.0 << 40.0;
      QTest::newRow((std::string(t) + " slow").c_str()) << QString(t) << 40.0 << 20.0;
    }
  }
  void limitsRespected() {
    QFETCH(QString, type);
    QFETCH(double, slew_T_m_s);
    QFETCH(double, grad_mT_m);
    CartesianParams p;
    p.matrix = 32;
    p.sys.max_slew_Hz_per_m_per_s = slew_T_m_s * gamma_Hz_per_T;
    p.sys.max_grad_Hz_per_m = grad_mT_m * 1e-3 * gamma_Hz_per_T;
    const SequenceType t = parse_sequence_type(type.toStdString()).value();
    const BuiltSequence b = build_blocks(t, p);
    double max_g = 0, max_s = 0;
    for (const Block& bl : b.seq.blocks)
      for (const auto* g : {&bl.gx, &bl.gy, &bl.gz}) {
        if (!*g) continue;
        const auto pts = (*g)->points(p.sys.grad_raster_s);
        for (std::size_t i = 0; i < pts.size(); ++i) {
          max_g = std::max(max_g, std::abs(pts[i].second));
          if (i && pts[i].first > pts[i - 1].first)
            max_s = std::max(max_s, std::abs(pts[i].second - pts[i - 1].second) / (pts[i].first - pts[i - 1].first));
        }
      }
    QVERIFY(max_g <= p.sys.max_grad_Hz_per_m * (1 + 1e-9));
    QVERIFY(max_s <= p.sys.max_slew_Hz_per_m_per_s * (1 + 1e-9));
    QVERIFY(max_s > 0.3 * p.sys.max_slew_Hz_per_m_per_s);  // the design uses the slew it is given
    // Slower hardware gives a longer minimum TE.
    if (slew_T_m_s < 100) {
      CartesianParams fast = p;
      fast.sys = SystemLimits{};
      QVERIFY(build_blocks(t, fast).min_TE_s < b.min_TE_s);
    }
  }
  void slewBeyondLimitIsRejected() {
    BlockSequence s;
    Block b;
    b.duration_s = 1e-3;
    Gradient g;
    g.amplitude_Hz_per_m = 20e-3 * gamma_Hz_per_T;
    g.rise_s = g.fall_s = 10e-6;  // 2000 T/m/s
    g.flat_s = 500e-6;
    b.gx = g;
    s.blocks.push_back(b);
    try {
      check_limits(s, "x.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("slew") && QString(e.what()).contains("allowed"), e.what());
    }
  }
  void badParametersGiveTheRange_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("expect");
    QTest::newRow("TE below minimum") << "te" << "minimum";
    QTest::newRow("TR below minimum") << "tr" << "TR_s";
    QTest::newRow("ACS larger than the matrix") << "acs" << "acs_lines";
    QTest::newRow("bandwidth needing too much gradient") << "bw" << "mT/m";
    QTest::newRow("VENC axes") << "venc" << "venc_axes";
  }
  void badParametersGiveTheRange() {
    QFETCH(QString, what);
    QFETCH(QString, expect);
    CartesianParams p;
    p.matrix = 32;
    SequenceType type = SequenceType::SpoiledGre;
    if (what == "te") p.TE_s = 0.5e-3;
    if (what == "tr") p.TR_s = 1e-3;
    if (what == "acs") p.acs_lines = 40;
    if (what == "bw") {
      p.bandwidth_Hz_per_pixel = 5000;
      p.fov_m = 0.02;
    }
    if (what == "venc") {
      type = SequenceType::PhaseContrast;
      p.venc_axes = {0, 0};
    }
    try {
      build_blocks(type, p, "s.json: sequence");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expect) && QString(e.what()).contains("allowed"), e.what());
    }
  }
  void tofFlowCompensationNullsM1_data() {
    QTest::addColumn<int>("partitions");
    QTest::addColumn<double>("TE_ms");  // 0: the minimum
    QTest::newRow("2-D, minimum TE") << 1 << 0.0;
    QTest::newRow("2-D, TE 7 ms") << 1 << 7.0;
    QTest::newRow("3-D, 8 partitions") << 8 << 0.0;
  }
  void tofFlowCompensationNullsM1() {
    QFETCH(int, partitions);
    QFETCH(double, TE_ms);
    CartesianParams p;
    p.matrix = 32;
    p.partitions = partitions;
    p.slice_thickness_m = partitions > 1 ? 0.032 : 3e-3;
    p.TE_s = TE_ms * 1e-3;
    p.flow_compensation = false;
    const BuiltSequence plain = build_tof_blocks(p);
    p.flow_compensation = true;
    const BuiltSequence fc = build_tof_blocks(p);
    if (TE_ms > 0) QVERIFY2(std::abs(fc.TE_s - p.TE_s) <= 5e-6, fc.report.c_str());
    QVERIFY(fc.min_TE_s > plain.min_TE_s);  // the lobes cost time
    // Uncompensated reference: the centre line (and centre partition) of the plain sequence.
    double ref[3] = {0, 0, 0};
    for (const Echo& e : echoes(plain.seq))
      if (e.line == p.matrix / 2 && e.par == partitions / 2)
        for (int a : {0, 2}) ref[a] = m1_at_echo(plain.seq, a, e);
    QVERIFY(std::abs(ref[0]) > 0 && std::abs(ref[2]) > 0);
    const double dk = 1 / p.fov_m, dkz = 1 / p.slice_thickness_m;
    int checked = 0;
    for (const Echo& e : echoes(fc.seq)) {
      const double kz = partitions > 1 ? (e.par - partitions / 2) * dkz : 0;
      QVERIFY(std::abs(moments(fc.seq, 0, e.t_exc, e.t_echo).m0) < 1e-6 * dk);
      QVERIFY(std::abs(moments(fc.seq, 1, e.t_exc, e.t_echo).m0 - (e.line - p.matrix / 2) * dk) < 1e-6 * dk);
      QVERIFY2(std::abs(moments(fc.seq, 2, e.t_exc, e.t_echo).m0 - kz) < 1e-6 * dkz + 1e-3 / p.slice_thickness_m,
               qPrintable(QString::number(moments(fc.seq, 2, e.t_exc, e.t_echo).m0)));
      for (int a : {0, 2}) {
        const double m1 = m1_at_echo(fc.seq, a, e);
        QVERIFY2(std::abs(m1) <= 0.01 * std::abs(ref[a]),
                 qPrintable(QString("axis %1 line %2 par %3: M1 %4 vs uncompensated %5").arg(a).arg(e.line).arg(e.par).arg(m1).arg(ref[a])));
      }
      QVERIFY(std::abs((e.t_echo - e.t_exc) - fc.TE_s) < 1e-9);
      ++checked;
    }
    QCOMPARE(checked, p.matrix * partitions);
  }
  void bssfpEchoAtHalfTR_data() {
    QTest::addColumn<double>("TR_ms");  // 0: the minimum
    QTest::newRow("minimum TR") << 0.0;
    QTest::newRow("TR 6 ms") << 6.0;
    QTest::newRow("TR 9.99 ms") << 9.99;
  }
  void bssfpEchoAtHalfTR() {
    QFETCH(double, TR_ms);
    CartesianParams p;
    p.matrix = 32;
    p.TR_s = TR_ms * 1e-3;
    const BuiltSequence b = build_bssfp_blocks(p);
    QVERIFY2(std::abs(b.TE_s - b.TR_s / 2) <= 0.5 * p.sys.block_raster_s + 1e-12, b.report.c_str());
    for (const Echo& e : echoes(b.seq)) QVERIFY(std::abs((e.t_echo - e.t_exc) - b.TE_s) < 1e-9);
    const ProgramConversion c = to_sequence_program(b.seq, {20e-6});
    QVERIFY(std::abs(c.TR_s - b.TR_s) < 1e-9);
    QVERIFY(std::abs(c.TE_s - b.TE_s) < 1e-9);
    // A TE other than TR/2 is refused with the allowed value.
    CartesianParams q = p;
    q.TR_s = b.TR_s;
    q.TE_s = 0.3 * b.TR_s;
    try {
      build_bssfp_blocks(q, "s.json: sequence");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("TR/2") && QString(e.what()).contains("allowed"), e.what());
    }
  }
  // Ideal spoiling (Jurczuk et al. 2016): the steady state is Ernst's, Mxy = PD·sin(a)(1 − E1)/(1 − E1·cos(a))·E2(TE).
  void tofScenarioGivesErnstSignal() {
    const double TR = 0.02, TE = 0.006, flip = 30;
    const SimulationResult r = simulate_disc(SequenceType::Tof, TR, TE, flip, 300);
    const TissueProperties& t = tissue_1p5T("fat", "test");
    const double ernst = mrwb::test::ernst_signal(t.PD, flip * M_PI / 180, TR, TE, t.T1_s, t.T2_s);
    const auto [truth, image] = centre_signal(r);
    QVERIFY2(std::abs(truth - ernst) < 0.02 * ernst, qPrintable(QString("truth %1, Ernst %2").arg(truth).arg(ernst)));
    QVERIFY2(std::abs(image - truth) < 0.05 * truth, qPrintable(QString("image %1, truth %2").arg(image).arg(truth)));
  }
  // On-resonance bSSFP with 0/180° RF phase: Mxy = PD·sin(a)(1 − E1)/(1 − (E1 − E2)cos(a) − E1·E2) after
  // the pulse, times exp(−TE/T2) at TE = TR/2. The simulator follows the RF phase, so the FFT image is
  // the object, not shifted by FOV/2 as undemodulated samples would put it.
  void bssfpScenarioGivesSteadyState() {
    const double TR = 0.01, flip = 40;
    const SimulationResult r = simulate_disc(SequenceType::Bssfp, TR, TR / 2, flip, 600);
    const TissueProperties& t = tissue_1p5T("fat", "test");
    const double a = flip * M_PI / 180, E1 = std::exp(-TR / t.T1_s), E2 = std::exp(-TR / t.T2_s);
    const double ss = t.PD * std::sin(a) * (1 - E1) / (1 - (E1 - E2) * std::cos(a) - E1 * E2) * std::exp(-TR / 2 / t.T2_s);
    const auto [truth, image] = centre_signal(r);
    QVERIFY2(std::abs(truth - ss) < 0.03 * ss, qPrintable(QString("truth %1, steady state %2").arg(truth).arg(ss)));
    QVERIFY2(std::abs(image - truth) < 0.05 * truth, qPrintable(QString("image %1, truth %2").arg(image).arg(truth)));
  }
  void scenarioExportCarriesAccelerationAndAcs() {
    SequenceSpec q = tof_r2_acs8();
    const BuiltSequence b = scenario_blocks(q);
    int ref = 0, ima = 0, adcs = 0;
    for (const Block& bl : b.seq.blocks) {
      if (!bl.adc) continue;
      ++adcs;
      for (const Label& l : bl.labels) {
        ref += l.name == "REF" && l.value;
        ima += l.name == "IMA" && l.value;
      }
    }
    QCOMPARE(adcs, 20);  // 16 lines on the R = 2 lattice + the 4 ACS lines between them
    QCOMPARE(ref, 8);
    QCOMPARE(ima, 16);
    // The simulator's program flags the same lines.
    q.TE_s = b.TE_s;
    q.TR_s = b.TR_s;
    const SequenceProgram prog = build_sequence_program(q);
    QCOMPARE(prog.readouts, 20);
    for (int l = 0; l < q.matrix; ++l) {
      const bool on_lattice = (l - q.matrix / 2) % 2 == 0, acs = l >= 12 && l < 20;
      QCOMPARE(bool(prog.line_flags[l] & kLineImaging), on_lattice);
      QCOMPARE(bool(prog.line_flags[l] & kLineCalibration), acs);
    }
  }
  // acs_mode "separate": the ACS lines come first as their own block labelled REF only (calibration, not
  // imaging), then the R lattice labelled IMA only; the labels survive Pulseq, and the simulator's
  // programs (converted from each type's blocks) play the same order and flag the lines as with integrated ACS.
  void separateAcsIsAPreScan() {
    SequenceSpec q = tof_r2_acs8();
    q.acs_mode = "separate";
    const BuiltSequence b = scenario_blocks(q);
    const BlockSequence back = parse_pulseq(pulseq_text(b.seq, 5), "separate.seq");
    const ProgramConversion c = to_sequence_program(back);
    QCOMPARE(c.adc_count, 24);  // 8 ACS lines, then the 16 lattice lines (4 of them again)
    for (int a = 0; a < c.adc_count; ++a) {
      const bool pre = a < 8;
      QCOMPARE(c.adc_line[a], pre ? 12 + a : 2 * (a - 8));
      QCOMPARE(bool(c.adc_flags[a] & kLineCalibration), pre);
      QCOMPARE(bool(c.adc_flags[a] & kLineImaging), !pre);
    }
    q.TE_s = b.TE_s;
    q.TR_s = b.TR_s;
    for (const SequenceType type : {SequenceType::Tof, SequenceType::SpoiledGre, SequenceType::SpinEcho}) {
      q.type = type;
      if (type == SequenceType::SpinEcho) q.TE_s = q.TR_s = 0;  // its own shortest: room for the 180°
      const SequenceProgram prog = build_sequence_program(q);
      QCOMPARE(prog.readouts, 24);
      std::vector<int> order;
      int truths = 0;
      for (const SeqEvent& e : prog.events)
        if (e.kind == EventKind::Readout) {
          order.push_back(e.line);
          truths += e.truth_sample >= 0;
        }
      QCOMPARE(order.front(), 12);
      QCOMPARE(order[8], 0);
      QCOMPARE(truths, 1);
      for (int l = 0; l < q.matrix; ++l) {  // as integrated: ACS lines calibration, lattice imaging
        QCOMPARE(bool(prog.line_flags[l] & kLineImaging), (l - q.matrix / 2) % 2 == 0);
        QCOMPARE(bool(prog.line_flags[l] & kLineCalibration), l >= 12 && l < 20);
      }
    }
    Scenario sc;
    sc.sequence.acs_mode = "bogus";
    QVERIFY_THROWS_EXCEPTION(InputError, validate_scenario(sc, "s"));
    sc.sequence.acs_mode = "separate";  // with no ACS lines
    QVERIFY_THROWS_EXCEPTION(InputError, validate_scenario(sc, "s"));
    sc.sequence.acs_lines = 16;
    sc.sequence.acceleration = 2;
    const std::string text = scenario_to_json_text(sc);
    QCOMPARE(scenario_from_json_text(text, "s").sequence.acs_mode, std::string("separate"));
    QCOMPARE(scenario_to_json_text(scenario_from_json_text(text, "s")), text);
  }
  // GRAPPA calibrated on a separate ACS pre-scan of a static phantom (default vessel phantom, 64², 8 loop
  // coils, R = 2, 24 ACS lines, improved 4x5 kernel) against the simulator's truth: bar 30 dB, and within
  // 0.5 dB of integrated ACS (in the steady state the pre-scan sees the same magnetization, so the two
  // agree exactly here; they part where the magnetization changes between pre-scan and imaging).
  void grappaFromSeparateAcs() {
    Scenario s = mrwb::test::cpu_preset("straight_vessel", 64, 100);
    s.sequence.acceleration = 2;
    s.sequence.acs_lines = 24;
    s.coils.count = 8;
    s.recon.method = ReconMethod::Grappa;
    const PipelineResult integrated = run_pipeline(s, {}, {});
    s.sequence.acs_mode = "separate";
    const PipelineResult separate = run_pipeline(s, {}, {});
    s.recon.method = ReconMethod::Fft;
    const PipelineResult zero_filled = run_pipeline(s, {}, {});
    qInfo("GRAPPA vs truth: separate ACS %.2f dB (%.2f %%), integrated %.2f dB; zero-filled %.2f dB",
          separate.metrics.psnr_db, separate.metrics.percent_error, integrated.metrics.psnr_db,
          zero_filled.metrics.psnr_db);
    QVERIFY(separate.metrics.psnr_db >= 30.0);
    QVERIFY(std::abs(separate.metrics.psnr_db - integrated.metrics.psnr_db) <= 0.5);
    // GRAPPA restores what zero filling loses (measured +4.7 dB; the truth's Gibbs ringing limits both).
    QVERIFY(separate.metrics.psnr_db >= zero_filled.metrics.psnr_db + 3.0);
  }
  void scenarioTofFieldsRoundTripAndAreValidated() {
    const std::string head = R"({"format": "mrwb-scenario", "version": 1, "sequence": {"type": "tof", "matrix": 32, )";
    const Scenario sc = scenario_from_json_text(head + R"("TR_s": 0.025, "TE_s": 0.006, "flow_compensation": false}})", "t.json");
    QCOMPARE(sc.sequence.flow_compensation, false);
    const Scenario back = scenario_from_json_text(scenario_to_json_text(sc), "back.json");
    QCOMPARE(scenario_to_json_text(back), scenario_to_json_text(sc));
    QCOMPARE(back.sequence.flow_compensation, false);
    auto refused = [](const std::string& text, const char* expect) {
      try {
        scenario_from_json_text(text, "t.json");
        return QString("no error");
      } catch (const InputError& e) {
        const QString m = e.what();
        return m.contains(expect) && m.contains("allowed") && !m.contains('\n') ? QString() : m;
      }
    };
    // flow_compensation belongs to tof; a TE below the flow-compensated minimum names it.
    QCOMPARE(refused(R"({"format": "mrwb-scenario", "version": 1, "sequence": {"flow_compensation": true}})",
                     "flow_compensation"),
             QString());
    QCOMPARE(refused(head + R"("TR_s": 0.025, "TE_s": 0.002}})", "minimum"), QString());
  }
  void scenarioDiagramAndTrajectory() {
    Scenario sc;
    sc.sequence.matrix = 16;
    sc.sequence.dummy_scans = 3;
    const SequenceDiagram d = sequence_diagram(sc);
    QCOMPARE(d.traces.size(), std::size_t(5));
    QVERIFY(std::abs((d.t_end_s - d.t_begin_s) - sc.sequence.TR_s) < 1e-6);
    double adc_on = 0;
    for (double v : d.traces[4].value) adc_on = std::max(adc_on, v);
    QCOMPARE(adc_on, 1.0);  // one TR of an acquired line holds its ADC
    const noncart::Trajectory t = scenario_trajectory(sc);
    QCOMPARE(t.readouts, 16);
    QCOMPARE(t.samples, 16);
    // Cartesian grid in cycles/FOV: sample j of line l at (j − 8, l − 8).
    for (int l = 0; l < 16; ++l)
      for (int j = 0; j < 16; ++j) {
        const std::size_t i = (static_cast<std::size_t>(l) * 16 + j) * 2;
        QVERIFY2(std::abs(t.k[i] - (j - 8)) < 1e-3 && std::abs(t.k[i + 1] - (l - 8)) < 1e-3,
                 qPrintable(QString("line %1 sample %2: %3 %4").arg(l).arg(j).arg(t.k[i]).arg(t.k[i + 1])));
      }
  }
  // Shaped RF: the flip angle is 2pi·|∫B1 dt| whatever the shape; the Gaussian peaks at its centre and
  // its slice select has bandwidth tbw/duration over the thickness.
  void shapedPulsesGiveTheirFlipAngle_data() {
    QTest::addColumn<QString>("shape");
    QTest::newRow("sinc") << "sinc";
    QTest::newRow("gauss") << "gauss";
    QTest::newRow("block") << "block";
  }
  void shapedPulsesGiveTheirFlipAngle() {
    QFETCH(QString, shape);
    SystemLimits sys;
    Gradient gz;
    const double flip = 35 * M_PI / 180, dur = 2e-3, thick = 4e-3;
    RfPulse rf = shape == "sinc"    ? make_sinc_pulse(flip, dur, 4, 0, sys, thick, &gz)
                 : shape == "gauss" ? make_gauss_pulse(flip, dur, 4, 0, sys, thick, &gz)
                                    : make_block_pulse(flip, dur, 0, sys);
    QVERIFY(std::abs(rf_flip_rad(rf, sys.rf_raster_s) - flip) < 1e-9);
    QCOMPARE(rf.mag.size(), std::size_t(2000));
    if (shape != "block") {
      QVERIFY(std::abs(gz.amplitude_Hz_per_m - 4 / dur / thick) < 1e-6 * gz.amplitude_Hz_per_m);
      const auto peak = std::max_element(rf.mag.begin(), rf.mag.end()) - rf.mag.begin();
      QVERIFY(std::abs(peak - 999.5) <= 0.5);
    }
    if (shape == "gauss") QVERIFY(rf.mag.front() < 1e-4);  // exp(-pi·4) at the ends
  }
  void partialFourierSkipsTheLowLines() {
    CartesianParams p;
    p.matrix = 32;
    p.partial_fourier = 0.625;  // 20 of 32 lines
    p.acs_lines = 8;
    const BuiltSequence b = build_spoiled_gre_blocks(p);
    const auto e = echoes(b.seq);
    QCOMPARE(static_cast<int>(e.size()), 20);
    int lowest = p.matrix;
    for (const Echo& x : e) lowest = std::min(lowest, x.line);
    QCOMPARE(lowest, 12);
    // Too little kept for the ACS block: refused with the allowed count.
    p.partial_fourier = 0.55;
    try {
      build_spoiled_gre_blocks(p, "s.json: sequence");
      QFAIL("no error");
    } catch (const InputError& x) {
      QVERIFY2(QString(x.what()).contains("acs_lines") && QString(x.what()).contains("partial_fourier"), x.what());
    }
  }
  void multiSliceExcitesEachSliceInTurn() {
    CartesianParams p;
    p.matrix = 16;
    p.slices = 3;
    p.slice_gap_m = 1e-3;
    const BuiltSequence one = build_spoiled_gre_blocks(CartesianParams{.matrix = 16});
    const BuiltSequence b = build_spoiled_gre_blocks(p);
    QVERIFY(std::abs(b.min_TR_s - 3 * one.min_TR_s) < 1e-9);
    // Excitation i selects slice i % 3 at z = (slice − 1)·(thickness + gap) by freq_offset = G·z, with the
    // Pulseq phase compensation −2pi·f·t_centre; the readout after it keeps the spoiling phase alone.
    std::vector<double> last_exc(3, -1);
    double t0 = 0, spoil_phase = 0;
    int exc = 0, adcs = 0;
    for (const Block& bl : b.seq.blocks) {
      if (bl.rf) {
        const int slice = exc % 3;
        const double z = (slice - 1) * (p.slice_thickness_m + p.slice_gap_m);
        QVERIFY(std::abs(bl.rf->freq_Hz / bl.gz->amplitude_Hz_per_m - z) < 1e-9);
        spoil_phase = bl.rf->phase_rad + 2 * M_PI * bl.rf->freq_Hz * bl.rf->center_s;
        const double t = t0 + bl.rf->delay_s + bl.rf->center_s;
        if (last_exc[slice] >= 0) QVERIFY(std::abs(t - last_exc[slice] - b.TR_s) < 1e-9);
        last_exc[slice] = t;
        ++exc;
      }
      if (bl.adc) {
        QVERIFY(std::abs(std::remainder(bl.adc->phase_rad - spoil_phase, 2 * M_PI)) < 1e-9);
        int slc = -1;
        for (const Label& l : bl.labels)
          if (l.name == "SLC") slc = l.value;
        QCOMPARE(slc, (exc - 1) % 3);
        ++adcs;
      }
      t0 += bl.duration_s;
    }
    QCOMPARE(adcs, 3 * p.matrix);
    for (const Echo& e : echoes(b.seq)) QVERIFY(std::abs((e.t_echo - e.t_exc) - b.TE_s) < 1e-9);
  }
  void diagramHasAllChannels() {
    CartesianParams p;
    p.matrix = 16;
    const BuiltSequence b = build_spoiled_gre_blocks(p);
    const SequenceDiagram d = sequence_diagram(b.seq, 0, b.TR_s);
    QCOMPARE(d.traces.size(), std::size_t(5));
    for (const auto& t : d.traces) QVERIFY2(!t.t_s.empty(), t.name.c_str());
    double peak_rf = 0;
    for (double v : d.traces[0].value) peak_rf = std::max(peak_rf, v);
    QVERIFY(peak_rf > 0.1 && peak_rf < 50);  // uT for a 15° 1 ms sinc
  }
  // Every gradient axis reaches the simulator: the running sum of the program's moments (Free and
  // Readout events, z included: slice select, partition encoding) equals the waveform's area up to the
  // first sample of every readout. Before dk_z was passed on, the z sum stayed 0.
  void programCarriesTheMomentOfEveryAxis_data() {
    QTest::addColumn<int>("partitions");
    QTest::addColumn<double>("max_step_s");
    QTest::newRow("2-D TOF") << 1 << 0.0;
    QTest::newRow("3-D TOF, 4 partitions") << 4 << 0.0;
    QTest::newRow("3-D TOF, 4 partitions, 50 us steps") << 4 << 50e-6;
  }
  void programCarriesTheMomentOfEveryAxis() {
    QFETCH(int, partitions);
    QFETCH(double, max_step_s);
    CartesianParams p;
    p.matrix = 16;
    p.partitions = partitions;
    const BuiltSequence b = build_tof_blocks(p);
    ConversionOptions o;
    o.max_free_step_s = max_step_s;
    const ProgramConversion c = to_sequence_program(b.seq, o);
    QVERIFY(!c.per_sample_readouts);
    double t = 0, k[3] = {0, 0, 0};
    int readouts = 0;
    for (const SeqEvent& e : c.program.events) {
      if (e.kind == EventKind::Readout) {
        for (int a = 0; a < 3; ++a) {
          const double area = moments(b.seq, a, 0, t).m0;
          QVERIFY2(std::abs(k[a] - area) < 1e-6 * std::max(1.0, std::abs(area)),
                   qPrintable(QString("axis %1, readout %2: program %3, waveform %4").arg(a).arg(readouts).arg(k[a]).arg(area)));
        }
        ++readouts;
        k[0] += e.n_samples * e.dk_x;
        k[1] += e.n_samples * e.dk_y;
        k[2] += e.n_samples * e.dk_z;
        t += e.n_samples * e.dt_s;
      } else if (e.kind == EventKind::Free) {
        if (max_step_s > 0 && (e.dk_x != 0 || e.dk_y != 0 || e.dk_z != 0))
          QVERIFY2(e.dt_s <= max_step_s * (1 + 1e-9), qPrintable(QString("Free of %1 s").arg(e.dt_s)));
        k[0] += e.dk_x;
        k[1] += e.dk_y;
        k[2] += e.dk_z;
        t += e.dt_s;
      }
    }
    QCOMPARE(readouts, c.adc_count);
    QVERIFY(std::abs(t - c.program.duration_s) < 1e-9);
    // The slice-select gradient leaves z moments in the program (they were dropped before).
    double z_activity = 0;
    for (const SeqEvent& e : c.program.events) z_activity += std::abs(e.dk_z);
    QVERIFY(z_activity > 0);
    if (partitions > 1) {  // partition encoding: kz (from the excitation) at the echoes takes `partitions` values
      std::vector<double> kz_at_readout;
      for (int a = 0, flat = 0; a < c.adc_count; flat += c.adc_samples[a++]) kz_at_readout.push_back(c.kz[flat + c.adc_samples[a] / 2]);
      std::sort(kz_at_readout.begin(), kz_at_readout.end());
      const auto last = std::unique(kz_at_readout.begin(), kz_at_readout.end(),
                                    [](double a, double b) { return std::abs(a - b) < 1e-6; });
      QCOMPARE(static_cast<int>(last - kz_at_readout.begin()), partitions);
    }
  }
  // max_free_step_s: a bipolar gradient cut into steps gives a spin moving at v the phase 2pi·M1·v of its
  // first moment (the engine evaluates positions per event); one unsplit Free event gives it 0 (M0 = 0).
  void splitBipolarGivesTheFirstMomentPhase_data() {
    QTest::addColumn<double>("max_step_s");
    QTest::addColumn<bool>("expect_match");
    QTest::newRow("one Free event") << 0.0 << false;
    QTest::newRow("100 us steps") << 100e-6 << true;
    QTest::newRow("70 us steps (not on the corners)") << 70e-6 << true;
    QTest::newRow("10 us steps") << 10e-6 << true;
  }
  void splitBipolarGivesTheFirstMomentPhase() {
    QFETCH(double, max_step_s);
    QFETCH(bool, expect_match);
    const SystemLimits sys;
    const double A = 20e-3 * gamma_Hz_per_T, rise = 200e-6, flat = 800e-6, lobe = 2 * rise + flat;  // Hz/m, s
    BlockSequence s;
    Block bip;
    bip.duration_s = 2 * lobe;
    bip.gx = make_extended_trapezoid({0, rise, rise + flat, lobe, lobe + rise, lobe + rise + flat, 2 * lobe},
                                     {0, A, A, 0, -A, -A, 0}, sys);
    s.blocks.push_back(bip);
    Block ro;
    Adc adc;
    adc.num_samples = 1;
    adc.dwell_s = 10e-6;
    ro.adc = adc;
    ro.duration_s = 20e-6;
    s.blocks.push_back(ro);
    ConversionOptions o;
    o.max_free_step_s = max_step_s;
    const ProgramConversion c = to_sequence_program(s, o);
    // Spin at x(t) = x0 + v·t: phase 2pi·Σ dk·x(t_mid) over the events before the sample.
    const double x0 = 0.01, v = 0.5;  // m, m/s
    double t = 0, phase = 0;
    for (const SeqEvent& e : c.program.events) {
      if (e.kind == EventKind::Readout) break;
      if (e.kind != EventKind::Free) continue;
      phase += 2 * M_PI * e.dk_x * (x0 + v * (t + 0.5 * e.dt_s));
      t += e.dt_s;
    }
    // Analytic: lobes of area S = A·(rise + flat) whose centroids are one lobe apart: M1 = −S·lobe.
    const double m1 = -A * (rise + flat) * lobe;
    const double expected = 2 * M_PI * m1 * v;
    const double rel = std::abs(phase - expected) / std::abs(expected);
    qInfo("max_free_step %g s: phase %.5f rad, analytic %.5f rad (%.3f %%)", max_step_s, phase, expected, 100 * rel);
    if (expect_match) QVERIFY2(rel < 0.01, qPrintable(QString("off by %1 %").arg(100 * rel)));
    else QVERIFY(rel > 0.5);
  }
};

QTEST_GUILESS_MAIN(TestSequence)
#include "test_sequence.moc"
