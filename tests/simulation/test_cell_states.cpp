// Dephasing within a cell on the CPU engine (spoiling "states": cell_state_plan.hpp, cell_state_chunk.hpp)
// against the extended phase graph of the sequence as the textbooks play it (Weigel 2015; epg::PhaseGraph in
// double precision), on muscle at 1.5 T (T1 1008 ms, T2 44 ms, docs/tissues.md):
// - the spoiled gradient echo as the builder plays it (spoiler on x and z, 117 degree RF spoiling or none), one
//   still cell, to the steady state: |Mxy| at TE against the graph with one unit shift per TR, flips 5 ... 60
//   degrees, TR 5 ... 20 ms; the bar is 1 % (float roundoff gives about 1e-5);
// - a CPMG train with crushers (echo spacing 10 ms, refocusing 180 / 120 / 60 degrees): every echo, stimulated
//   echoes included, against the graph to 1 %;
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

  void cpmgEchoesMatchThePhaseGraph() {
    const double esp = 0.010, slice = 0.005, crusher = 4.0 / slice;  // 4 cycles per slice on each side
    const int echoes = 12;
    for (double refocus_deg : {180.0, 120.0, 60.0}) {
      SequenceProgram prog;
      prog.cell_states = true;
      prog.slice_thickness_m = slice;
      prog.nx = 1;
      auto free = [&](double dt, double dk_z) {
        SeqEvent e;
        e.kind = EventKind::Free;
        e.dt_s = dt;
        e.dk_z = dk_z;
        prog.events.push_back(e);
      };
      auto pulse = [&](double flip, double phase) {
        SeqEvent centre;
        centre.kind = EventKind::Free;
        centre.rf_centre = true;
        prog.events.push_back(centre);
        SeqEvent rf;
        rf.kind = EventKind::Rf;
        rf.flip_rad = flip;
        rf.phase_rad = phase;
        prog.events.push_back(rf);
      };
      const double dwell = 1e-6;
      pulse(pi / 2, 0);
      free(esp / 2, crusher);
      for (int k = 0; k < echoes; ++k) {
        pulse(deg(refocus_deg), pi / 2);
        free(esp / 2, crusher);
        SeqEvent ro;
        ro.kind = EventKind::Readout;
        ro.n_samples = 1;
        ro.dt_s = dwell;
        ro.line = k;
        prog.events.push_back(ro);
        ++prog.readouts;
        free(esp / 2 - dwell, crusher);
      }
      prog.duration_s = esp * (echoes + 0.5);
      const CellPhantom ph = one_cell(0.004);
      const CellStatePlan plan = plan_cell_states(prog, ph);
      QVERIFY2(plan.active && plan.order_cycles_per_cell[2] > 3.99 && plan.order_cycles_per_cell[2] < 4.01,
               plan.summary().c_str());
      std::vector<cplx> samples(echoes), truth(1);
      CpuSimulationEngine(1).run(ph, prog, samples, truth, {}, {});

      epg::PhaseGraph g(4 * echoes + 4);
      g.rf(pi / 2, 0);
      g.interval(esp / 2, 1, T1_muscle_s, T2_muscle_s);
      double worst = 0;
      for (int k = 0; k < echoes; ++k) {
        g.rf(deg(refocus_deg), pi / 2);
        g.interval(esp / 2, 1, T1_muscle_s, T2_muscle_s);
        const double want = std::abs(g.signal()), got = std::abs(samples[k]);
        worst = std::max(worst, std::abs(got - want) / want);
        g.interval(esp / 2, 1, T1_muscle_s, T2_muscle_s);
        if (k < 3 || k == echoes - 1)
          std::printf("CPMG %3.0f: echo %2d cell %.6f graph %.6f\n", refocus_deg, k + 1, got, want);
      }
      std::printf("CPMG %3.0f: worst relative error over %d echoes %.2e (%s)\n", refocus_deg, echoes, worst,
                  plan.summary().c_str());
      QVERIFY2(worst <= 0.01, qPrintable(QString("refocusing %1: %2").arg(refocus_deg).arg(worst)));
      // Stimulated echoes make the second echo of a 120 or 60 degree train differ from the first's decay.
      if (refocus_deg < 180) QVERIFY(std::abs(std::abs(samples[1]) - std::abs(samples[0])) > 1e-3);
    }
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
