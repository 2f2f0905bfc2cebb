// The engines' per-cell configuration-state operators (core/simulation epg_cell_ops.hpp, float) against the
// double-precision reference epg::PhaseGraph (extended_phase_graph.hpp): every operator on a state with all
// orders populated, in a record of its own and in planes of one component, and whole sequences (RF-spoiled and
// gradient-spoiled gradient echoes to the steady state, CPMG at 180 / 120 / 60 degrees, a diffusion-weighted spin
// echo, bSSFP over two bands); and one state per cell against the engines' one-magnetization operators
// (bloch_cell_ops.hpp). Tissue: muscle at 1.5 T (T1 1008 ms, T2 44 ms, docs/tissues.md).
//
// Tolerances, from float's unit roundoff u = 2^-24 = 6.0e-8 and the physics of each case, far below what a wrong
// convention gives (the opposite rotation sense, a shift the wrong way or a lost conjugate change F+_0 by O(1) of
// the signal; `aWrongConventionIsSeen` shows it for the rotation sense):
// - one operator rounds each state a few times (inputs to float, products, sums): 1e-6 of the largest state
//   (16 u);
// - a steady state is the fixed point of Z_0' = Z_0 + (1 - E1)(M0 - Z_0) after the pulse; the same roundings
//   repeat every TR, so they move the fixed point by (rounding per TR) / (1 - E1 cos alpha), and relative to the
//   signal (Ernst: Mz = M0 (1 - E1) / (1 - E1 cos alpha)) by (rounding per TR) / ((1 - E1) M0). With up to four
//   roundings of u on Z_0 per TR (the pulse's product and sum, the recovery's): 4 u / (1 - E1) of the signal,
//   4.8e-5 at TR 5 ms in muscle, 1.2e-5 at 20 ms;
// - a train without a steady state (CPMG, the spin echo) adds the operators' rounding: 1e-5 of the echo over
//   ~60 operators; diffusion's exponent (b D up to 9) is rounded once more, 9 u.
// The figures printed are what float gives: 1e-7 per operator, up to 1e-5 of the signal for spoiled gradient echoes
// at 5 degrees and TR 5 ms (two roundings' worth), 4e-7 for the trains. The suite runs in about 0.3 s.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <numbers>
#include <random>
#include <vector>

#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/epg_cell_ops.hpp"
#include "mrwb/simulation/extended_phase_graph.hpp"
#include "phase_graph_runs.hpp"

using namespace mrwb;
using epg::PhaseGraph;
using epg::State;
using namespace mrwb::test;  // muscle, deg, QuadraticPhase and the run sizes of phase_graph_runs.hpp
namespace cell = epg::cell;

namespace {

constexpr double pi = std::numbers::pi;
// One cell of N states in float: a record of its own (stride 1) or cell `which` of `cells` planes (stride = cells,
// the engines' layout), the other cells of the planes filled with a pattern that must stay untouched.
class FloatCell {
 public:
  explicit FloatCell(int N, int cells = 1, int which = 0, float M0 = 1.f)
      : N_(N), cells_(cells), which_(which), v_(static_cast<std::size_t>(cell::record_floats(N) * cells), 7.f) {
    cell::equilibrium(states(), M0);
  }
  cell::CellStates states() { return {v_.data() + which_, N_, cells_}; }
  // Every float of the other cells still the pattern.
  bool others_untouched() const {
    for (std::size_t j = 0; j < v_.size(); ++j)
      if (int(j % std::size_t(cells_)) != which_ && v_[j] != 7.f) return false;
    return true;
  }

  void rf(double flip_rad, double phase_rad) {
    cell::rf_rotate(states(), float(std::cos(flip_rad)), float(std::sin(flip_rad)), float(std::cos(phase_rad)),
                    float(std::sin(phase_rad)));
  }
  void relax(double tau_s, double T1_s, double T2_s, double M0 = 1.0) {
    cell::relax(states(), float(M0), float(std::exp(-tau_s / T1_s)), float(-std::expm1(-tau_s / T1_s)),
                float(std::exp(-tau_s / T2_s)));
  }
  void precess(double angle_rad) { cell::precess(states(), float(std::cos(angle_rad)), float(std::sin(angle_rad))); }
  // PhaseGraph::interval: diffusion with D tau (2 pi dk)^2 formed in double, relaxation, shift.
  float interval(double tau_s, int shift, double T1_s, double T2_s, const epg::KGrid& grid = {}, double D = 0) {
    const double dk = grid.k_rad_per_m(1);
    return cell::interval(states(), shift, 1.f, float(std::exp(-tau_s / T1_s)), float(-std::expm1(-tau_s / T1_s)),
                          float(std::exp(-tau_s / T2_s)), float(D * tau_s * dk * dk));
  }
  State signal() {
    const cell::Complexf s = cell::signal(states());
    return {s.re, s.im};
  }

  // The reference's states rounded to float.
  void load(const PhaseGraph& g) {
    const cell::CellStates s = states();
    for (int n = 0; n < N_; ++n) s.set_fp(n, to_float(g.F_plus(n)));
    for (int n = 1; n < N_; ++n) s.set_fm(n, to_float(g.F_minus(n)));
    s.z0() = float(g.Z(0).real());
    for (int n = 1; n < N_; ++n) s.set_z(n, to_float(g.Z(n)));
  }
  // Largest difference of any state from the reference's, and the reference's largest state.
  std::pair<double, double> difference(const PhaseGraph& g) {
    const cell::CellStates s = states();
    double worst = 0, largest = 0;
    auto one = [&](cell::Complexf a, State b) {
      worst = std::max(worst, std::abs(State(a.re, a.im) - b));
      largest = std::max(largest, std::abs(b));
    };
    for (int n = 0; n < N_; ++n) {
      one(s.fp(n), g.F_plus(n));
      one(s.fm(n), g.F_minus(n));
      one(s.z(n), g.Z(n));
    }
    return {worst, largest};
  }

 private:
  static cell::Complexf to_float(State c) { return {float(c.real()), float(c.imag())}; }
  int N_, cells_, which_;
  std::vector<float> v_;
};

// A reference graph with every order of F+, F- and Z populated: pulses of assorted flips and phases between
// shifts of both signs and relaxation (a fixed pseudo-random program, the same every run).
PhaseGraph populated(int N) {
  PhaseGraph g(N);
  std::mt19937 rng;  // default state: the same program every run
  std::uniform_real_distribution<double> flip(deg(20), deg(160)), phase(0, 2 * pi);
  std::uniform_int_distribution<int> shift(-2, 3);
  for (int i = 0; i < 3 * N; ++i) {
    g.rf(flip(rng), phase(rng));
    g.interval(0.002, shift(rng), T1_muscle_s, T2_muscle_s);
    g.precess(phase(rng));
  }
  return g;
}

double rel(State a, State b) { return std::abs(a - b) / std::abs(b); }

// Float's bound on a steady state relative to its signal (see the header): four roundings of u on Z_0 per TR,
// over the recovery's 1 - E1.
double steady_state_tolerance(double TR_s, double T1_s) { return 4.0 * 0x1p-24 / -std::expm1(-TR_s / T1_s); }

}  // namespace

class TestEpgCellOps : public QObject {
  Q_OBJECT
 private slots:
  // The record: 6N - 3 floats, N = 1 the engines' (Mx, My, Mz) in that order; the accessors' components are
  // disjoint and cover the record; from_mag / to_mag carry a magnetization through unchanged.
  void recordLayout() {
    QCOMPARE(cell::record_floats(1) * int(sizeof(float)), int(sizeof(bloch::Mag)));
    QCOMPARE(cell::record_floats(16) * int(sizeof(float)), 372);
    for (int N : {1, 2, 5}) {
      std::vector<float> v(static_cast<std::size_t>(cell::record_floats(N)), 0.f);
      const cell::CellStates s{v.data(), N, 1};
      float tag = 1;
      for (int n = 0; n < N; ++n) s.set_fp(n, {tag++, tag++});
      for (int n = 1; n < N; ++n) s.set_fm(n, {tag++, tag++});
      s.z0() = tag++;
      for (int n = 1; n < N; ++n) s.set_z(n, {tag++, tag++});
      for (std::size_t j = 0; j < v.size(); ++j) QCOMPARE(v[j], float(j + 1));  // each component written once
      QCOMPARE(s.fm(0).im, -s.fp(0).im);
      QCOMPARE(s.z(0).im, 0.f);
    }
    std::vector<float> v(static_cast<std::size_t>(cell::record_floats(4)), 3.f);
    const cell::CellStates s{v.data(), 4, 1};
    cell::from_mag(s, {0.25f, -0.5f, 0.75f});
    const bloch::Mag m = cell::to_mag(s);
    QCOMPARE(m.Mx, 0.25f);
    QCOMPARE(m.My, -0.5f);
    QCOMPARE(m.Mz, 0.75f);
    QCOMPARE(cell::signal(s).im, -0.5f);
    for (int n = 1; n < 4; ++n)
      QVERIFY(cell::norm2(s.fp(n)) == 0 && cell::norm2(s.fm(n)) == 0 && cell::norm2(s.z(n)) == 0);
  }

  // Every operator on a state of 8 orders, all populated, against the reference's same operator: within 1e-6 of
  // the largest state (one rounding per product, see the header), in a record and in planes of three cells
  // (whose neighbours stay untouched). Shifts of every reach, past the truncation and past the whole line, drop
  // what the reference drops (the square root of the returned squared norm is the reference's dropped norm to
  // 1e-6).
  void operatorsMatchTheReference_data() {
    QTest::addColumn<int>("cells");
    QTest::addColumn<int>("which");
    QTest::addRow("record") << 1 << 0;
    QTest::addRow("planes") << 3 << 1;
  }
  void operatorsMatchTheReference() {
    QFETCH(int, cells);
    QFETCH(int, which);
    const int N = 8;
    const epg::KGrid grid{500.0};
    struct Op {
      const char* name;
      std::function<void(PhaseGraph&)> reference;
      std::function<float(FloatCell&)> twin;  // returns what a shift dropped (squared), else 0
    };
    std::vector<Op> ops;
    for (double flip : {30.0, 90.0, 120.0, 180.0})
      for (double phase : {0.0, 90.0, 117.0, 250.0})
        ops.push_back({"rf", [=](PhaseGraph& g) { g.rf(deg(flip), deg(phase)); },
                       [=](FloatCell& c) { c.rf(deg(flip), deg(phase)); return 0.f; }});
    for (double tau : {0.0001, 0.005, 0.1})
      ops.push_back({"relax", [=](PhaseGraph& g) { g.relax(tau, T1_muscle_s, T2_muscle_s); },
                     [=](FloatCell& c) { c.relax(tau, T1_muscle_s, T2_muscle_s); return 0.f; }});
    for (double angle : {0.3, -2.0, 4.0})
      ops.push_back({"precess", [=](PhaseGraph& g) { g.precess(angle); },
                     [=](FloatCell& c) { c.precess(angle); return 0.f; }});
    ops.push_back({"spoil", [](PhaseGraph& g) { g.spoil(); }, [](FloatCell& c) {
                     cell::spoil(c.states());
                     return 0.f;
                   }});
    for (int shift : {1, -1, 2, -3, 5, N - 1, -(N - 1), N, -N, 2 * N - 1, 2 * N + 3, -(2 * N + 3)})
      ops.push_back({"shift", [=](PhaseGraph& g) { g.dephase(shift); },
                     [=](FloatCell& c) { return cell::shift_states(c.states(), shift); }});
    // D tau k^2 of the top order up to ~5 (attenuations to e^-5).
    for (int shift : {0, 1, -2, 4})
      for (double D : {1.0e-9, 3.0e-9})
        ops.push_back({"diffuse", [=](PhaseGraph& g) { g.diffuse(0.02, shift, grid, D); }, [=](FloatCell& c) {
                         const double dk = grid.k_rad_per_m(1);
                         cell::diffuse(c.states(), float(D * 0.02 * dk * dk), shift);
                         return 0.f;
                       }});
    const PhaseGraph start = populated(N);
    double worst = 0, worst_dropped = 0;
    for (const Op& op : ops) {
      PhaseGraph g = start;
      FloatCell c(N, cells, which);
      c.load(g);
      const double dropped_before = g.dropped_norm();
      op.reference(g);
      const float dropped2 = op.twin(c);
      const auto [diff, largest] = c.difference(g);
      worst = std::max(worst, diff / largest);
      QVERIFY2(diff <= 1e-6 * largest, qPrintable(QString("%1: %2 of the largest").arg(op.name).arg(diff / largest)));
      QVERIFY(c.others_untouched());
      const double dropped = g.dropped_norm() - dropped_before;
      if (dropped > 0) worst_dropped = std::max(worst_dropped, std::abs(std::sqrt(double(dropped2)) / dropped - 1));
      QVERIFY2(dropped == 0 ? dropped2 == 0 : std::abs(std::sqrt(double(dropped2)) / dropped - 1) < 1e-6,
               qPrintable(QString("%1: dropped %2 vs %3").arg(op.name).arg(std::sqrt(dropped2)).arg(dropped)));
    }
    std::printf("  %zu operators, %d states: worst difference %.2e of the largest state, dropped norm rel %.1e\n",
                ops.size(), N, worst, worst_dropped);
  }

  // The same comparison can fail: a twin turning the other way (Weigel's counter-clockwise sense, sin(alpha)
  // negated) is off by O(1), not by rounding.
  void aWrongConventionIsSeen() {
    const PhaseGraph start = populated(8);
    PhaseGraph g = start;
    FloatCell c(8);
    c.load(g);
    g.rf(deg(60), deg(30));
    cell::rf_rotate(c.states(), float(std::cos(deg(60))), -float(std::sin(deg(60))), float(std::cos(deg(30))),
                    float(std::sin(deg(30))));
    const auto [diff, largest] = c.difference(g);
    std::printf("  counter-clockwise twin: difference %.2f of the largest state\n", diff / largest);
    QVERIFY(diff > 0.1 * largest);
  }

  // Spoiled gradient echoes to the steady state, one cycle of spoiler per TR, signal after each pulse demodulated
  // by its phase: RF-spoiled (117 degree increments) and gradient-spoiled (every pulse at phase 0). The float
  // cell's echo equals the reference's at every TR within 4 u / (1 - E1) of the steady-state signal (printed: the
  // worst over the run).
  void spoiledSteadyState_data() {
    QTest::addColumn<double>("increment_deg");
    QTest::addColumn<double>("TR_s");
    QTest::addColumn<double>("flip_deg");
    for (double increment : {117.0, 0.0})
      for (double TR : {0.005, 0.010, 0.020})
        for (double flip : {5.0, 30.0, 60.0})
          QTest::addRow("%s TR %g ms, %g deg", increment > 0 ? "RF-spoiled" : "gradient-spoiled", TR * 1e3, flip)
              << increment << TR << flip;
  }
  void spoiledSteadyState() {
    QFETCH(double, increment_deg);
    QFETCH(double, TR_s);
    QFETCH(double, flip_deg);
    const double flip = deg(flip_deg);
    const int N = states_for(TR_s, T2_muscle_s), TRs = steady_state_TRs(flip, TR_s, T1_muscle_s, T2_muscle_s);
    PhaseGraph g(N);
    FloatCell c(N);
    QuadraticPhase phase{deg(increment_deg)};
    std::vector<State> ref, twin;
    for (int n = 0; n < TRs; ++n) {
      const double p = phase.next();
      g.rf(flip, p);
      c.rf(flip, p);
      const State demodulate = std::polar(1.0, -p);
      ref.push_back(g.signal() * demodulate);
      twin.push_back(c.signal() * demodulate);
      g.interval(TR_s, 1, T1_muscle_s, T2_muscle_s);
      c.interval(TR_s, 1, T1_muscle_s, T2_muscle_s);
    }
    double worst = 0;
    for (std::size_t n = 0; n < ref.size(); ++n) worst = std::max(worst, std::abs(twin[n] - ref[n]));
    worst /= std::abs(ref.back());
    const double tolerance = steady_state_tolerance(TR_s, T1_muscle_s);
    std::printf("  %s TR %g ms %g deg, %d states, %d TRs: echo %.6f, float worst %.2e of it (bound %.1e)\n",
                increment_deg > 0 ? "RF-spoiled" : "gradient-spoiled", TR_s * 1e3, flip_deg, N, TRs,
                std::abs(ref.back()), worst, tolerance);
    QVERIFY2(worst < tolerance, qPrintable(QString::number(worst)));
  }

  // CPMG (90 at phase 0, refocusing at phase 90 degrees, spacing 10 ms, one cycle of crusher per half spacing),
  // 20 echoes with 41 states (exact: no state passes order 40): every echo within 1e-5 of itself, the
  // stimulated echoes of 120 and 60 degrees included; nothing dropped.
  void cpmgEchoTrain() {
    const int echoes = 20;
    const double ESP_s = 0.010;
    for (double refocusing_deg : {180.0, 120.0, 60.0}) {
      PhaseGraph g(2 * echoes + 1);
      FloatCell c(2 * echoes + 1);
      g.rf(pi / 2, 0);
      c.rf(pi / 2, 0);
      double worst = 0, dropped = 0;
      for (int e = 1; e <= echoes; ++e) {
        g.interval(ESP_s / 2, 1, T1_muscle_s, T2_muscle_s);
        g.rf(deg(refocusing_deg), pi / 2);
        g.interval(ESP_s / 2, 1, T1_muscle_s, T2_muscle_s);
        dropped += c.interval(ESP_s / 2, 1, T1_muscle_s, T2_muscle_s);
        c.rf(deg(refocusing_deg), pi / 2);
        dropped += c.interval(ESP_s / 2, 1, T1_muscle_s, T2_muscle_s);
        worst = std::max(worst, rel(c.signal(), g.signal()));
      }
      std::printf("  CPMG %g deg: echo 20 = %.6f, float worst rel %.2e over 20 echoes\n", refocusing_deg,
                  std::abs(g.signal()), worst);
      QVERIFY2(worst < 1e-5, qPrintable(QString("%1 deg: %2").arg(refocusing_deg).arg(worst)));
      QCOMPARE(dropped, 0.0);
    }
  }

  // Pulsed-gradient spin echo (lobes 20 ms, 40 ms apart, D = 3.0e-3 mm^2/s, lobes in two halves on a grid of half
  // the moment, so the cross term k1 dk of the b-terms plays), b = 0 ... 3000 s/mm^2: the float cell's S(b)/S(0)
  // equals the reference's within 1e-5 and exp(-b D) (Stejskal and Tanner 1965) within 1e-5, down to
  // exp(-9) = 1.2e-4.
  void diffusionWeightedSpinEcho() {
    const double D = 3.0e-9, delta = 0.020, Delta = 0.040;
    const int pieces = 2;
    auto echo = [&](double q_cycles, auto& cell_or_graph) {
      return test::play_pgse(cell_or_graph, q_cycles, delta, Delta, D, pieces, T1_muscle_s, T2_muscle_s);
    };
    PhaseGraph g0(2 * pieces + 1);
    FloatCell c0(2 * pieces + 1);
    const double S0_ref = echo(0, g0), S0_twin = echo(0, c0);
    double worst_ref = 0, worst_closed = 0;
    for (double b_s_per_mm2 : {250.0, 500.0, 1000.0, 2000.0, 3000.0}) {
      const double b = b_s_per_mm2 * 1e6, q_cycles = std::sqrt(b / (Delta - delta / 3.0)) / (2 * pi);
      PhaseGraph g(2 * pieces + 1);
      FloatCell c(2 * pieces + 1);
      const double ref = echo(q_cycles, g) / S0_ref, twin = echo(q_cycles, c) / S0_twin;
      worst_ref = std::max(worst_ref, std::abs(twin / ref - 1));
      worst_closed = std::max(worst_closed, std::abs(twin / std::exp(-b * D) - 1));
    }
    std::printf("  PGSE b 250 ... 3000 s/mm^2: float S/S0 worst rel %.2e vs the reference, %.2e vs exp(-bD)\n",
                worst_ref, worst_closed);
    QVERIFY2(worst_ref < 1e-5, qPrintable(QString::number(worst_ref)));
    QVERIFY2(worst_closed < 1e-5, qPrintable(QString::number(worst_closed)));
  }

  // Balanced SSFP (TR 5 ms, 40 degrees, pulses alternating 0 / 180 degrees, prephaser -1, readout +2 with the echo
  // at its middle, rewinder -1) over two bands of off-resonance, 3 states, 600 TRs (the transient decays in ~10):
  // |echo| within the steady-state bound 4 u / (1 - E1) of the reference's at every off-resonance.
  void bssfpOverTwoBands() {
    const double TR_s = 0.005, flip = deg(40);
    double worst = 0;
    for (int j = 0; j <= 64; ++j) {
      const double beta = -2 * pi + 4 * pi * j / 64.0;
      PhaseGraph g(3);
      FloatCell c(3);
      State ref, twin;
      auto quarter = [&](int shift, bool read) {
        g.precess(beta / 4);
        c.precess(beta / 4);
        g.interval(TR_s / 4, shift, T1_muscle_s, T2_muscle_s);
        c.interval(TR_s / 4, shift, T1_muscle_s, T2_muscle_s);
        if (read) {
          ref = g.signal();
          twin = c.signal();
        }
      };
      for (int n = 0; n < 600; ++n) {
        g.rf(flip, (n % 2) ? pi : 0);
        c.rf(flip, (n % 2) ? pi : 0);
        quarter(-1, false);
        quarter(1, true);
        quarter(1, false);
        quarter(-1, false);
      }
      worst = std::max(worst, std::abs(std::abs(twin) / std::abs(ref) - 1));
    }
    const double tolerance = steady_state_tolerance(TR_s, T1_muscle_s);
    std::printf("  bSSFP two bands, 65 off-resonances: float worst rel %.2e (bound %.1e)\n", worst, tolerance);
    QVERIFY2(worst < tolerance, qPrintable(QString::number(worst)));
  }

  // One state per cell is the engines' cell today: with N = 1, precession with relaxation and spoiling are
  // bloch::precess_relax and bloch::spoil to the bit (the same expressions), and an RF pulse (Weigel's T, other
  // arithmetic than bloch::rf_rotate's Rodrigues form) agrees within 3e-7 of M0 (a few roundings of u). Run
  // freely over 500 TRs, an RF-spoiled gradient echo with ideal spoiling (the engines' default) and an
  // off-resonant coherent train (no spoiling, 50 degrees) stay within 2e-6 of M0 of the engine's cell at every TR:
  // the relaxation is the same to the bit, so only the pulses' differences, of either sign, are carried.
  void oneStateIsTheEnginesCell() {
    float one[3];
    const cell::CellStates s{one, 1, 1};
    bloch::Mag m{};
    auto differ = [&] {
      const bloch::Mag e = cell::to_mag(s);
      return std::max({std::abs(e.Mx - m.Mx), std::abs(e.My - m.My), std::abs(e.Mz - m.Mz)});
    };
    double worst_pulse = 0, worst_run[2] = {0, 0};
    for (bool realign : {true, false})
      for (bool ideal_spoiling : {true, false}) {
        cell::from_mag(s, {0.f, 0.f, 1.f});
        m = {0.f, 0.f, 1.f};
        QuadraticPhase phase{deg(117)};
        const double TR = 0.008, flip = deg(ideal_spoiling ? 15 : 50), off_resonance = ideal_spoiling ? 0.0 : 1.3;
        const float E2 = float(std::exp(-TR / T2_muscle_s)), E1 = float(std::exp(-TR / T1_muscle_s)),
                    one_minus_E1 = float(-std::expm1(-TR / T1_muscle_s));
        const float ct = float(std::cos(off_resonance)), st = float(std::sin(off_resonance));
        for (int n = 0; n < 500; ++n) {
          const double p = ideal_spoiling ? phase.next() : 0.0;
          const float ca = float(std::cos(flip)), sa = float(std::sin(flip)), cp = float(std::cos(p)),
                      sp = float(std::sin(p));
          if (realign) m = cell::to_mag(s);  // the same start: the step's own difference
          cell::rf_rotate(s, ca, sa, cp, sp);
          bloch::rf_rotate(m, ca, sa, cp, sp);
          if (realign) {
            worst_pulse = std::max(worst_pulse, double(differ()));
            m = cell::to_mag(s);
          } else {
            worst_run[ideal_spoiling ? 0 : 1] = std::max(worst_run[ideal_spoiling ? 0 : 1], double(differ()));
          }
          if (ideal_spoiling) {
            cell::spoil(s);
            bloch::spoil(m);
          }
          cell::precess_relax(s, 1.f, E1, one_minus_E1, E2, ct, st);
          bloch::precess_relax(m, 1.f, one_minus_E1, E2, ct, st);
          if (realign) QCOMPARE(differ(), 0.f);
        }
      }
    std::printf("  one state vs the engines' cell: per pulse %.1e; over 500 TRs spoiled %.1e, coherent %.1e of M0\n",
                worst_pulse, worst_run[0], worst_run[1]);
    QVERIFY2(worst_pulse < 3e-7, qPrintable(QString::number(worst_pulse)));
    QVERIFY2(worst_run[0] < 2e-6, qPrintable(QString::number(worst_run[0])));
    QVERIFY2(worst_run[1] < 2e-6, qPrintable(QString::number(worst_run[1])));
  }
};

QTEST_GUILESS_MAIN(TestEpgCellOps)
#include "test_epg_cell_ops.moc"
