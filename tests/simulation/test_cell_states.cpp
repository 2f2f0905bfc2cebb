// Dephasing within a cell on the CPU engine (spoiling "states": cell_state_plan.hpp, cell_state_chunk.hpp)
// against the extended phase graph of the sequence as the textbooks play it (Weigel 2015; epg::PhaseGraph in
// double precision), on muscle at 1.5 T (T1 1008 ms, T2 44 ms, docs/tissues.md):
// - the spoiled gradient echo as the builder plays it (spoiler on x and z, 117 degree RF spoiling or none), one
//   still cell, to the steady state: |Mxy| at TE against the graph with one unit shift per TR, flips 5 ... 60
//   degrees, TR 5 ... 20 ms; the tolerance is 1 % (float roundoff gives about 2e-5);
// - a CPMG train with crushers (echo spacing 10 ms, refocusing 180 / 120 / 60 degrees): every echo, stimulated
//   echoes included, against the graph to 1 %, without diffusion and with muscle's ADC;
// - diffusion of the states with the tissue's ADC: a pulsed-gradient spin echo (the graph suites' timing,
//   test::play_pgse, recorded as a program) against exp(-b ADC) with Stejskal and Tanner's b and against the graph
//   with diffusion, b = 250 ... 3000 s/mm^2, to 1e-5; the same as a block sequence through the conversion
//   (trapezoid lobes) against exp(-b ADC) of the events' b to 1e-5, and of the trapezoids' b within the ramps'
//   shortfall;
// - what states must not change: a spin echo of the builder (ideal 180, crushers) on a disc of many cells is the
//   one-magnetization engine's to 1e-4; a program without cell states plans none;
// - and what they refuse: moving blood and engines without states, in one line naming the field.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/extended_phase_graph.hpp"
#include "mrwb/simulation/lagrangian_engine.hpp"
#include "phase_graph_runs.hpp"

using namespace mrwb;
using namespace mrwb::test;

namespace {

constexpr double pi = std::numbers::pi;
using cplx = std::complex<float>;

// A spoiled GE scenario's sequence at 16^2 over 64 mm (4 mm cells), 5 mm slice, hard RF, dephasing in the cells.
SequenceSpec spoiled_ge(double flip_deg, double TR_s) {
  SequenceSpec q;
  q.type = SequenceType::SpoiledGre;
  q.matrix = 16;
  q.fov_m = 0.064;
  q.TR_s = TR_s;
  q.TE_s = 0;  // the minimum
  q.flip_angle_deg = flip_deg;
  q.fidelity.rf = RfFidelity::Hard;
  q.fidelity.spoiling = SpoilingFidelity::States;
  q.dummy_scans = std::min(10000, steady_state_TRs(deg(flip_deg), TR_s, T1_muscle_s, T2_muscle_s));
  return q;
}

SequenceProgram spoiled_ge_program(const SequenceSpec& q, bool rf_spoiling, double* TE_s) {
  seq::CartesianParams p = seq::cartesian_params(q);
  p.rf_spoiling = rf_spoiling;
  const seq::BuiltSequence b = seq::build_spoiled_gre_blocks(p, "test");
  seq::ProgramConversion c = seq::to_sequence_program(b.seq, scenario_conversion(q));
  *TE_s = c.TE_s;  // from the pulse's centre to the k-space centre's sample
  c.program.slice_thickness_m = q.slice_thickness_m;
  return c.program;
}

// One still muscle cell at the isocentre, the size of a voxel.
CellPhantom one_cell(double cell_m) {
  return uniform_phantom(1, 1, cell_m, 1.f, static_cast<float>(T1_muscle_s), static_cast<float>(T2_muscle_s),
                         CellType::Stationary);
}

// The graph's steady state of the same spoiled GE: per TR a pulse (quadratic phase when RF-spoiled), TE, the
// echo, the rest of the TR, one unit shift (the spoiler). Returns |F+_0| at TE after `pulses` pulses.
double graph_spoiled_ge(double flip_rad, double TR_s, double TE_s, bool rf_spoiling, int pulses, int states) {
  epg::PhaseGraph g(states);
  QuadraticPhase phase{deg(117)};
  double echo = 0;
  for (int k = 0; k < pulses; ++k) {
    g.rf(flip_rad, rf_spoiling ? phase.next() : 0.0);
    g.relax(TE_s, T1_muscle_s, T2_muscle_s);
    echo = std::abs(g.signal());
    g.relax(TR_s - TE_s, T1_muscle_s, T2_muscle_s);
    g.dephase(1);
  }
  return echo;
}

// A program of hard pulses and constant gradients along z on a cell of the slice's thickness, in the calls of a
// graph (epg::PhaseGraph's rf, interval, signal), so that test::play_pgse records what it plays on the graph: a
// pulse is its centre mark and a hard Rf event, an interval one Free event of its time and moment, the echo one
// sample of 1 us.
struct ProgramRecorder {
  static constexpr double dwell_s = 1e-6;
  SequenceProgram prog;
  explicit ProgramRecorder(double slice_m) {
    prog.cell_states = true;
    prog.slice_thickness_m = slice_m;
    prog.nx = 1;
  }
  void rf(double flip, double phase) {
    SeqEvent centre;
    centre.kind = EventKind::Free;
    centre.rf_centre = true;
    prog.events.push_back(centre);
    SeqEvent e;
    e.kind = EventKind::Rf;
    e.flip_rad = flip;
    e.phase_rad = phase;
    prog.events.push_back(e);
  }
  void free(double dt_s, double dk_z) {
    SeqEvent e;
    e.kind = EventKind::Free;
    e.dt_s = dt_s;
    e.dk_z = dk_z;
    prog.events.push_back(e);
    prog.duration_s += dt_s;
  }
  void interval(double tau_s, int shift, double, double, const epg::KGrid& grid, double) {
    free(tau_s, shift * grid.dk_cycles_per_m);
  }
  std::complex<double> signal() {
    SeqEvent ro;
    ro.kind = EventKind::Readout;
    ro.n_samples = 1;
    ro.dt_s = dwell_s;
    ro.line = prog.readouts++;
    prog.events.push_back(ro);
    prog.duration_s += dwell_s;
    return 0.0;
  }
};

// |signal| of one still muscle cell (4 mm, 5 mm slice) of the given ADC playing `prog` on the CPU engine.
double engine_echo(const SequenceProgram& prog, double ADC_m2_per_s, std::string* summary) {
  CellPhantom ph = one_cell(0.004);
  ph.ADC_m2_per_s.assign(1, static_cast<float>(ADC_m2_per_s));
  *summary = plan_cell_states(prog, ph).summary();
  std::vector<cplx> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(1);
  CpuSimulationEngine(1).run(ph, prog, samples, truth, {}, {});
  return std::abs(samples.back());
}

}  // namespace

class TestCellStates : public QObject {
  Q_OBJECT

 private slots:
  void spoiledGradientEchoMatchesThePhaseGraph() {
    double worst = 0;
    for (bool rf_spoiling : {true, false})
      for (double TR_s : {0.005, 0.010, 0.020})
        for (double flip : {5.0, 30.0, 60.0}) {
          const SequenceSpec q = spoiled_ge(flip, TR_s);
          double TE_s = 0;
          const SequenceProgram prog = spoiled_ge_program(q, rf_spoiling, &TE_s);
          const CellPhantom ph = one_cell(q.fov_m / q.matrix);
          const CellStatePlan plan = plan_cell_states(prog, ph);
          QVERIFY2(plan.active, plan.summary().c_str());
          std::vector<cplx> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(1);
          CpuSimulationEngine(1).run(ph, prog, samples, truth, {}, {});
          // The truth is the centre line's echo, pulse dummy_scans + matrix / 2 + 1 of the run.
          const int pulses = q.dummy_scans + q.matrix / 2 + 1;
          const double want = graph_spoiled_ge(deg(flip), TR_s, TE_s, rf_spoiling, pulses,
                                               states_for(TR_s, T2_muscle_s) + 8);
          const double got = std::abs(truth[0]);
          const double rel = std::abs(got - want) / want;
          worst = std::max(worst, rel);
          std::printf("%s TR %2.0f ms flip %2.0f: cell %.6f graph %.6f, rel %.1e; %s\n",
                      rf_spoiling ? "RF-spoiled " : "gradient-spoiled", TR_s * 1e3, flip, got, want, rel,
                      plan.summary().c_str());
          QVERIFY2(rel <= 0.01, qPrintable(QString("TR %1 flip %2: %3 against %4").arg(TR_s).arg(flip).arg(got).arg(want)));
        }
    std::printf("spoiled GE: worst relative error against the graph %.2e\n", worst);
  }

  // Without diffusion (4-cycle crushers), and with muscle's ADC and 16-cycle crushers (each crusher one event
  // over the half echo spacing, so the graph's one interval per half is the same waveform).
  void cpmgEchoesMatchThePhaseGraph() {
    const double esp = 0.010, slice = 0.005;
    const int echoes = 12;
    for (const double D : {0.0, tissue_1p5T("muscle").ADC_m2_per_s})
    for (double refocus_deg : {180.0, 120.0, 60.0}) {
      const double cycles = D > 0 ? 16.0 : 4.0, crusher = cycles / slice;  // cycles per slice on each side
      ProgramRecorder rec(slice);
      const double dwell = ProgramRecorder::dwell_s;
      rec.rf(pi / 2, 0);
      rec.free(esp / 2, crusher);
      for (int k = 0; k < echoes; ++k) {
        rec.rf(deg(refocus_deg), pi / 2);
        rec.free(esp / 2, crusher);
        rec.signal();
        rec.free(esp / 2 - dwell, crusher);
      }
      const SequenceProgram& prog = rec.prog;
      CellPhantom ph = one_cell(0.004);
      ph.ADC_m2_per_s.assign(1, static_cast<float>(D));
      const CellStatePlan plan = plan_cell_states(prog, ph);
      QVERIFY2(plan.active && std::abs(plan.order_cycles_per_cell[2] - cycles) < 0.01 && plan.diffusion == (D > 0),
               plan.summary().c_str());
      std::vector<cplx> samples(echoes), truth(1);
      CpuSimulationEngine(1).run(ph, prog, samples, truth, {}, {});

      epg::PhaseGraph g(4 * echoes + 4), g0(4 * echoes + 4);  // g0: the same without diffusion
      const epg::KGrid grid{crusher};
      g.rf(pi / 2, 0);
      g0.rf(pi / 2, 0);
      auto half = [&] {
        g.interval(esp / 2, 1, T1_muscle_s, T2_muscle_s, grid, D);
        g0.interval(esp / 2, 1, T1_muscle_s, T2_muscle_s, grid, 0.0);
      };
      half();
      double worst = 0, last_without = 0;
      for (int k = 0; k < echoes; ++k) {
        g.rf(deg(refocus_deg), pi / 2);
        g0.rf(deg(refocus_deg), pi / 2);
        half();
        const double want = std::abs(g.signal()), got = std::abs(samples[k]);
        worst = std::max(worst, std::abs(got - want) / want);
        last_without = std::abs(g0.signal());
        half();
        if (k < 3 || k == echoes - 1)
          std::printf("CPMG %3.0f: echo %2d cell %.6f graph %.6f\n", refocus_deg, k + 1, got, want);
      }
      std::printf("CPMG %3.0f, ADC %.3g mm^2/s: worst relative error over %d echoes %.2e, last echo %.4f of the "
                  "graph's without diffusion (%s)\n",
                  refocus_deg, D * 1e6, echoes, worst, std::abs(samples[echoes - 1]) / last_without,
                  plan.summary().c_str());
      QVERIFY2(worst <= 0.01, qPrintable(QString("refocusing %1: %2").arg(refocus_deg).arg(worst)));
      // Stimulated echoes make the second echo of a 120 or 60 degree train differ from the first's decay.
      if (refocus_deg < 180) QVERIFY(std::abs(std::abs(samples[1]) - std::abs(samples[0])) > 1e-3);
    }
  }

  // Stejskal and Tanner 1965: lobes of delta 20 ms, Delta 40 ms (TE 70 ms), b = (gamma G delta)^2 (Delta -
  // delta / 3), each lobe one event or two halves (the cross term of the running moment). The engine's echo with
  // muscle's ADC over the same cell with ADC 0 is exp(-b ADC) and the graph's ratio within 1e-5: the states are
  // float, and exp(-x) of a float b-term carries x 2^-24 (3.6e-7 at b ADC = 6).
  void stejskalTannerSpinEchoDiffuses() {
    const double D = tissue_1p5T("muscle").ADC_m2_per_s, delta = 0.020, Delta = 0.040, slice = 0.005;
    double worst = 0;
    for (int pieces : {1, 2})
      for (double b_s_per_mm2 : {0.0, 250.0, 500.0, 1000.0, 2000.0, 3000.0}) {
        const double b = b_s_per_mm2 * 1e6, q_cycles = std::sqrt(b / (Delta - delta / 3.0)) / (2 * pi);
        ProgramRecorder rec(slice);
        play_pgse(rec, q_cycles, delta, Delta, D, pieces, T1_muscle_s, T2_muscle_s);
        std::string with, without;
        const double ratio = engine_echo(rec.prog, D, &with) / engine_echo(rec.prog, 0, &without);
        epg::PhaseGraph g(2 * pieces + 1), g0(2 * pieces + 1);
        const double graph = play_pgse(g, q_cycles, delta, Delta, D, pieces, T1_muscle_s, T2_muscle_s) /
                             play_pgse(g0, q_cycles, delta, Delta, 0.0, pieces, T1_muscle_s, T2_muscle_s);
        const double expected = std::exp(-b * D), rel = ratio / expected - 1, rel_graph = ratio / graph - 1;
        worst = std::max({worst, std::abs(rel), std::abs(rel_graph)});
        std::printf("PGSE %d piece(s), b %4.0f s/mm^2: S/S(ADC 0) %.6e, exp(-b ADC) %.6e (rel %+.1e), graph rel %+.1e\n",
                    pieces, b_s_per_mm2, ratio, expected, rel, rel_graph);
        if (b > 0) {
          QVERIFY2(with.find("diffusion included") != std::string::npos, with.c_str());
          QVERIFY2(without.find("no diffusion") != std::string::npos, without.c_str());
        }
        QVERIFY2(std::abs(rel) <= 1e-5 && std::abs(rel_graph) <= 1e-5,
                 qPrintable(QString("b %1: %2 against %3").arg(b_s_per_mm2).arg(ratio).arg(expected)));
      }
    std::printf("PGSE: worst relative error against exp(-b ADC) and the graph %.2e\n", worst);
  }

  // The same spin echo as a block sequence through the conversion: block pulses, trapezoid lobes (ramps eps of
  // 0.5 ms, delta 20 ms from the start of one ramp to the start of the other, Delta 40 ms) in blocks 5 ms longer
  // than them, one ADC sample. With cell states the conversion cuts the gradients at their corners, so each
  // ramp, flat top and gap is an event. b of trapezoids: (gamma G)^2 (delta^2 (Delta - delta / 3) + eps^3 / 30 -
  // delta eps^2 / 6) (Price 1997, Concepts Magn Reson 9:299; checked by quadrature to 3e-11). Each ramp read as
  // one constant gradient (the states' approximation) gives (gamma G)^2 (delta^2 (Delta - delta / 3) -
  // delta eps^2 / 2 + eps^3 / 6) instead, eps^2 / (3 delta (Delta - delta / 3)) = 1.25e-4 of b less: the echo
  // is exp(-b ADC) of the events' b to 1e-5 (float, as above), and of the trapezoids' b within that shortfall.
  void convertedSpinEchoDiffuses() {
    const double D = tissue_1p5T("muscle").ADC_m2_per_s, eps = 0.5e-3, delta = 0.020, Delta = 0.040, gap = 0.005;
    seq::SystemLimits sys;
    sys.max_grad_Hz_per_m = 80e-3 * seq::gamma_Hz_per_T;  // a diffusion gradient system
    double worst = 0;
    for (double b_s_per_mm2 : {250.0, 1000.0, 3000.0}) {
      const double shape = delta * delta * (Delta - delta / 3) + eps * eps * eps / 30 - delta * eps * eps / 6;
      const double b = b_s_per_mm2 * 1e6, G_Hz_per_m = std::sqrt(b / shape) / (2 * pi);
      seq::BlockSequence s;
      s.sys = sys;
      auto pulse = [&](double flip, double phase, double duration_s) {
        seq::Block blk;
        blk.rf = seq::make_block_pulse(flip, 100e-6, phase, sys);
        blk.duration_s = duration_s;
        s.blocks.push_back(blk);
      };
      auto lobe = [&] {
        seq::Block blk;
        seq::Gradient g;
        g.amplitude_Hz_per_m = G_Hz_per_m;
        g.rise_s = g.fall_s = eps;
        g.flat_s = delta - eps;
        blk.gz = g;
        blk.duration_s = delta + eps + gap;
        s.blocks.push_back(blk);
      };
      pulse(pi / 2, 0, 1e-3);
      lobe();  // starts 0.95 ms after the 90's centre
      const double to_refocus = (Delta - (delta + eps + gap)) / 2;  // the 180 halfway between the lobes' starts
      pulse(pi, pi / 2, 2 * to_refocus);
      lobe();
      seq::Block ro;
      ro.adc = seq::Adc{1, 10e-6, 0};
      ro.duration_s = 20e-6;
      s.blocks.push_back(ro);
      seq::ConversionOptions opt;
      opt.hard_rf = true;
      opt.cell_states = true;
      SequenceProgram prog = seq::to_sequence_program(s, opt).program;
      prog.slice_thickness_m = 0.005;
      std::string with, without;
      const double ratio = engine_echo(prog, D, &with) / engine_echo(prog, 0, &without);
      const double b_events = b * (delta * delta * (Delta - delta / 3) - delta * eps * eps / 2 + eps * eps * eps / 6) / shape;
      const double expected = std::exp(-b * D), rel = ratio / expected - 1;
      const double rel_events = ratio / std::exp(-b_events * D) - 1;
      worst = std::max(worst, std::abs(rel_events));
      std::printf("converted PGSE b %4.0f s/mm^2 (%zu events): S/S(ADC 0) %.6e, exp(-b ADC) %.6e (rel %+.1e), of the "
                  "events' b rel %+.1e; %s\n",
                  b_s_per_mm2, prog.events.size(), ratio, expected, rel, rel_events, with.c_str());
      QVERIFY2(std::abs(rel_events) <= 1e-5 && std::abs(rel) <= (b - b_events) * D + 1e-5,
               qPrintable(QString("b %1: %2 against %3").arg(b_s_per_mm2).arg(ratio).arg(expected)));
    }
    std::printf("converted PGSE: worst relative error against exp(-b ADC) of the events' b %.2e\n", worst);
  }

  void aPerfectSpinEchoIsTheOneMagnetizationEngines() {
    SequenceSpec q;
    q.type = SequenceType::SpinEcho;
    q.matrix = 32;
    q.fov_m = 0.128;
    q.TR_s = 0.5;
    q.TE_s = 0.02;
    q.dummy_scans = 2;
    q.fidelity.rf = RfFidelity::Hard;
    CellPhantom ph = uniform_phantom(32, 32, 0.004, 1.f, static_cast<float>(T1_muscle_s),
                                     static_cast<float>(T2_muscle_s), CellType::Stationary);
    for (int y = 0; y < 32; ++y)  // a disc, off-resonance across it
      for (int x = 0; x < 32; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * 32 + x;
        if (std::hypot(x - 15.5, y - 15.5) > 13) ph.PD[i] = 0;
        ph.dB_T[i] = static_cast<float>(1e-7 * (x - 16));
      }
    std::vector<cplx> samples[2];
    for (int states = 0; states < 2; ++states) {
      q.fidelity.spoiling = states ? SpoilingFidelity::States : SpoilingFidelity::Gradients;
      const SequenceProgram prog = build_sequence_program(q);
      QCOMPARE(prog.cell_states, states == 1);
      if (states) QVERIFY2(plan_cell_states(prog, ph).active, plan_cell_states(prog, ph).summary().c_str());
      samples[states].resize(static_cast<std::size_t>(prog.readouts) * prog.nx);
      std::vector<cplx> truth(ph.size());
      CpuSimulationEngine(2).run(ph, prog, samples[states], truth, {}, {});
    }
    double num = 0, den = 0;
    for (std::size_t j = 0; j < samples[0].size(); ++j) {
      num += std::norm(samples[1][j] - samples[0][j]);
      den += std::norm(samples[0][j]);
    }
    const double rel = std::sqrt(num / den);
    std::printf("spin echo, 180 degrees, crushers: states against one magnetization, relative RMS %.2e\n", rel);
    QVERIFY2(rel <= 1e-4, qPrintable(QString::number(rel)));
  }

  void withoutStatesNothingIsPlanned() {
    SequenceSpec q = spoiled_ge(20, 0.01);
    q.dummy_scans = 0;
    q.fidelity.spoiling = SpoilingFidelity::Gradients;
    const SequenceProgram prog = build_sequence_program(q);
    QVERIFY(!prog.cell_states);
    QVERIFY(!plan_cell_states(prog, one_cell(0.004)).active);
    for (const SeqEvent& e : prog.events) QVERIFY(!e.rf_centre);
  }

  void movingBloodAndOtherEnginesAreRefused() {
    SequenceSpec q = spoiled_ge(20, 0.01);
    q.dummy_scans = 0;
    const SequenceProgram prog = build_sequence_program(q);
    CellPhantom ph = one_cell(0.004);
    ph.flow_dt_s = 1e-3;
    ph.ux[0] = 0.1f;
    ph.type[0] = static_cast<std::uint8_t>(CellType::Fluid);
    std::vector<cplx> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(1);
    try {
      CpuSimulationEngine(1).run(ph, prog, samples, truth, {}, {});
      QFAIL("moving blood with cell states was played");
    } catch (const InputError& e) {
      QVERIFY(std::string(e.what()).find("sequence.fidelity.spoiling") != std::string::npos);
    }
    LagrangianCpuEngine lagrangian;
    QVERIFY_THROWS_EXCEPTION(InputError, check_engine_plays_cell_states(lagrangian, prog));
    QVERIFY(std::string(lagrangian.name()) != "cpu");
  }
};

QTEST_APPLESS_MAIN(TestCellStates)
#include "test_cell_states.moc"
