// Magnetization transport by the flow (Jurczuk et al. 2016 Eq. 1): conservation, the time-stepped engine against
// the exact static path, and plug-flow inflow against Lagrangian spin tracking.
#include <QTest>

#include <cmath>
#include <random>

#include "fixtures.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/vessel_generators.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"
#include "mrwb/simulation/transport_limited_ops.hpp"
#include "numeric.hpp"

using namespace mrwb;

namespace {

using mrwb::test::free_event;
using mrwb::test::probe_readout;
using mrwb::test::rf_event;
using mrwb::test::spoil_event;

// Relative drift of Σ M over `steps` transport steps of a rotating flow in a closed box. With a gradient
// frame k (cycles per cell, transport_cell_ops.hpp face_turn): the drift of Σ m, m = M·exp(+i 2π k·x), the
// quantity the frame's donor cell moves (the turn by motion, a physical precession, is left out). `limited`: with
// the flux-limited second-order correction (transport_limited_ops.hpp).
template <typename T>
double closed_box_drift(int steps, double kx_cell = 0, double ky_cell = 0, bool limited = false) {
  const int n = 64;
  auto ph = uniform_phantom(n, n, 1e-3, 1.f, 1.f, 1.f, CellType::Fluid);
  // Solid-body rotation, |u| + |v| <= 0.9 cells per step, zero normal velocity at the walls.
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double sx = std::sin(M_PI * (x + 0.5) / n), sy = std::sin(M_PI * (y + 0.5) / n);
      ph.ux[y * n + x] = static_cast<float>(0.45 * sx * sx * std::sin(2 * M_PI * (y + 0.5) / n));
      ph.uy[y * n + x] = static_cast<float>(-0.45 * sy * sy * std::sin(2 * M_PI * (x + 0.5) / n));
    }
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> a[3], b[3];
  for (int k = 0; k < 3; ++k) {
    a[k].resize(ph.size());
    b[k].resize(ph.size());
    for (auto& v : a[k]) v = static_cast<T>(u(rng));
  }
  const bool frame = kx_cell != 0 || ky_cell != 0;
  const double k_cell[3] = {kx_cell, ky_cell, 0};
  T face_turn[12];
  transport::frame_face_turns(k_cell, face_turn);
  // Σ of component c of m (c = 0, 1 transverse, 2 z), in long double.
  auto total = [&](int c) {
    long double s = 0;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * n + x;
        if (c == 2 || !frame) {
          s += a[c][i];
          continue;
        }
        const long double phase = 2 * M_PI * (kx_cell * x + ky_cell * y);
        const long double re = a[0][i] * std::cos(phase) - a[1][i] * std::sin(phase);
        const long double im = a[0][i] * std::sin(phase) + a[1][i] * std::cos(phase);
        s += c == 0 ? re : im;
      }
    return static_cast<double>(s);
  };
  double before[3] = {total(0), total(1), total(2)};
  for (int s = 0; s < steps; ++s) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const auto m = transport::donor_cell_gather<T>(x, y, 0, n, n, 1, a[0].data(), a[1].data(), a[2].data(),
                                                       ph.ux.data(), ph.uy.data(), nullptr, ph.type.data(), ph.PD.data(),
                                                       T(1), false, nullptr, nullptr, frame ? face_turn : nullptr);
        transport::Mag3<T> A{T(0), T(0), T(0)};
        if (limited)
          A = transport::limited_gather_correction<T>(x, y, 0, n, n, 1, a[0].data(), a[1].data(), a[2].data(), ph.ux.data(),
                                                      ph.uy.data(), nullptr, ph.type.data(), ph.PD.data(), T(1), false,
                                                      nullptr, frame ? face_turn : nullptr);
        b[0][y * n + x] = m.x + A.x;
        b[1][y * n + x] = m.y + A.y;
        b[2][y * n + x] = m.z + A.z;
      }
    std::swap(a, b);
  }
  double worst = 0, scale = 0;
  for (int k = 0; k < 3; ++k) {
    worst = std::max(worst, std::abs(total(k) - before[k]));
    scale += std::abs(before[k]);
  }
  // Relative to the total magnitude in the box (Σ|M| ~ n² / 2 per component).
  double mag = 0;
  for (int k = 0; k < 3; ++k)
    for (T v : a[k]) mag += std::abs(static_cast<double>(v));
  return worst / mag;
}

// Spoiled RF train: n_tr × (RF α, free TR, spoil), a last RF and a one-sample readout recording the
// truth (cell Mxy) right after it.
SequenceProgram rf_train(int n_tr, double TR, double alpha) {
  SequenceProgram prog;
  for (int k = 0; k <= n_tr; ++k) {
    prog.events.push_back(rf_event(alpha));
    if (k == n_tr) break;
    prog.events.push_back(free_event(TR));
    prog.events.push_back(spoil_event());
  }
  prog.events.push_back(probe_readout(0));
  prog.readouts = 1;
  prog.nx = 1;
  return prog;
}

// Mz just after the last RF of rf_train of a spin that entered fresh (M = PD·z) `age` flow steps before
// the end, with `steps_per_tr` flow steps per TR (Lagrangian spin tracking).
double lagrangian_mz(int age, int n_tr, int steps_per_tr, double PD, double E1, double alpha) {
  const int total_steps = n_tr * steps_per_tr;
  const int s_in = total_steps - 1 - age;
  double mz = PD;
  for (int s = s_in; s < total_steps; ++s) {
    if (s % steps_per_tr == 0 && s > s_in) mz *= std::cos(alpha);
    mz = mz * E1 + PD * (1 - E1);
  }
  return mz;
}

// A horizontal vessel from column x_in to x_out (inclusive) in rows [y0, y1) of a stationary frame; its
// end columns are open (inlet, outlet) when `open` is set.
CellPhantom vessel_inside(int nx, int ny, int x_in, int x_out, int y0, int y1, bool open) {
  auto ph = uniform_phantom(nx, ny, 1e-3, 0.87f, 1.441f, 0.29f, CellType::Stationary);
  ph.open_end.assign(ph.size(), 0);
  for (int y = y0; y < y1; ++y)
    for (int x = x_in; x <= x_out; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * nx + x;
      ph.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
      if (open && (x == x_in || x == x_out)) ph.open_end[i] = 1;
    }
  return ph;
}

}  // namespace

class TestSimTransport : public QObject {
  Q_OBJECT
 private slots:
  void closedBoxConservesMagnetization() {
    const double df = closed_box_drift<float>(1000), dd = closed_box_drift<double>(1000);
    qInfo("closed box 64x64, 1000 transport steps: relative drift of total M: float %.3g, double %.3g", df, dd);
    QVERIFY(df <= 1e-6);  // per 1000 steps: float 1e-6, double 1e-14
    QVERIFY(dd <= 1e-14);
    // In the gradient frame at k = (0.3, −0.17) cycles per cell: Σ m, the same bars.
    const double ff = closed_box_drift<float>(1000, 0.3, -0.17), fd = closed_box_drift<double>(1000, 0.3, -0.17);
    qInfo("closed box 64x64, gradient frame k = (0.3, -0.17) per cell, 1000 steps: relative drift of total m: float "
          "%.3g, double %.3g", ff, fd);
    QVERIFY(ff <= 1e-6);
    QVERIFY(fd <= 1e-14);
    // The flux-limited second-order transport, lab frame and gradient frame: the same bars.
    for (const double k : {0.0, 0.3}) {
      const double lf = closed_box_drift<float>(1000, k, -0.57 * k, true), ld = closed_box_drift<double>(1000, k, -0.57 * k, true);
      qInfo("closed box 64x64, limited second order, %s, 1000 steps: relative drift: float %.3g, double %.3g",
            k != 0 ? "gradient frame k = (0.3, -0.17) per cell" : "lab frame", lf, ld);
      QVERIFY(lf <= 1e-6);
      QVERIFY(ld <= 1e-14);
    }
  }

  void plugFlowIsAnExactShiftAtCourantOne() {
    auto ph = uniform_phantom(16, 1, 1e-3, 1.f, 1.f, 1.f, CellType::Fluid);
    for (auto& v : ph.ux) v = 1.f;
    std::vector<float> mx(16), my(16, 0.f), mz(16, 0.f);
    for (int i = 0; i < 16; ++i) mx[i] = static_cast<float>(i);
    for (int x = 1; x < 16; ++x) {
      const auto m = transport::donor_cell_gather<float>(x, 0, 16, 1, mx.data(), my.data(), mz.data(), ph.ux.data(),
                                                         ph.uy.data(), ph.type.data(), ph.PD.data(), 1.f, true);
      QCOMPARE(m.x, mx[x - 1]);
    }
    const auto inlet = transport::donor_cell_gather<float>(0, 0, 16, 1, mx.data(), my.data(), mz.data(), ph.ux.data(),
                                                           ph.uy.data(), ph.type.data(), ph.PD.data(), 1.f, true);
    QCOMPARE(inlet.x, 0.f);  // fresh inflow: M = (0, 0, PD)
    QCOMPARE(inlet.z, 1.f);
  }

  // With zero velocity the time-stepped engine must reproduce the exact static path.
  void timeSteppedMatchesStaticWhenNothingMoves() {
    auto ph = uniform_phantom(64, 64, 0.001, 0.8f, 1.0f, 0.05f, CellType::Stationary);
    for (std::size_t i = 0; i < ph.size(); ++i) ph.dB_T[i] = static_cast<float>(1e-7 * ((i * 7) % 13));  // some off-resonance
    const auto prog = mrwb::test::spoiled_ge(32, 0.064, 20);
    std::vector<std::complex<float>> a(prog.readouts * prog.nx), b(a.size()), ta(ph.size()), tb(ph.size());
    CpuSimulationEngine fast, stepped;
    stepped.set_force_time_stepping(true);
    fast.run(ph, prog, a, ta, {}, {});
    stepped.run(ph, prog, b, tb, {}, {});
    const double d = mrwb::test::rel_l2<float>(b, a);  // terms in float, as complex<float> arithmetic gives them
    qInfo("time-stepped vs static k-space: relative RMS difference %.3g", d);
    QVERIFY(d < 1e-5);
  }

  // Plug flow along x through a non-selectively excited FOV, spoiled GE: just before each RF, a cell at
  // column d holds blood that entered d flow steps ago. Its Mz follows from tracking that spin
  // (Lagrangian): fresh PD at entry, relaxation each step, RF at every TR boundary it has crossed.
  void plugFlowInflowMatchesLagrangianSpins() {
    const int nx = 64;
    const double flow_dt = 1e-3, TR = 5e-3;  // 5 flow steps per TR: blood moves 5 cells per TR
    const float T1 = 1.441f, PD = 0.87f;
    const double alpha = 30 * M_PI / 180;
    auto ph = uniform_phantom(nx, 4, 1e-3, PD, T1, 0.29f, CellType::Fluid);
    for (auto& v : ph.ux) v = 1.f;
    ph.flow_dt_s = flow_dt;
    const int n_tr = 40;
    const auto prog = rf_train(n_tr, TR, alpha);
    std::vector<std::complex<float>> samples(1), truth(ph.size());
    CpuSimulationEngine engine;
    engine.run(ph, prog, samples, truth, {}, {});

    const double E1 = std::exp(-flow_dt / T1);
    double worst = 0;
    for (int d = 0; d < nx; ++d) {
      // The spin now at column d entered fresh d steps before the end (column 0 is the open grid edge).
      const double expected = lagrangian_mz(d, n_tr, 5, PD, E1, alpha) * std::sin(alpha);
      const double got = std::abs(truth[2 * nx + d]);
      worst = std::max(worst, std::abs(got - expected) / expected);
    }
    qInfo("plug flow, 64 columns: worst relative deviation from Lagrangian spins %.3g", worst);
    QVERIFY(worst < 1e-3);
    // Inflow enhancement: the upstream columns are brighter than the downstream saturated ones.
    QVERIFY(std::abs(truth[2 * nx + 2]) > 1.5 * std::abs(truth[2 * nx + nx - 2]));
  }

  // Open vessel ends: a vessel whose inlet and outlet lie inside the grid (stationary tissue upstream and
  // downstream). Plug flow at one cell per step: the cell d columns past the inlet holds blood that
  // entered fresh d steps ago, exactly as the Lagrangian spin says; the outlet lets it leave.
  void inletInsideGridGivesLagrangianInflow() {
    const int nx = 80, x_in = 10, x_out = 69, n_tr = 40, steps_per_tr = 5;
    const double flow_dt = 1e-3, alpha = 30 * M_PI / 180;
    auto ph = vessel_inside(nx, 4, x_in, x_out, 0, 4, true);
    for (std::size_t i = 0; i < ph.size(); ++i)
      if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) ph.ux[i] = 1.f;
    ph.flow_dt_s = flow_dt;
    const auto prog = rf_train(n_tr, steps_per_tr * flow_dt, alpha);
    std::vector<std::complex<float>> samples(1), truth(ph.size());
    CpuSimulationEngine engine;
    engine.run(ph, prog, samples, truth, {}, {});
    const double E1 = std::exp(-flow_dt / 1.441);
    double worst = 0;
    for (int d = 0; d <= x_out - x_in; ++d) {
      const double expected = lagrangian_mz(d, n_tr, steps_per_tr, 0.87, E1, alpha) * std::sin(alpha);
      worst = std::max(worst, std::abs(std::abs(truth[2 * nx + x_in + d]) - expected) / expected);
    }
    qInfo("inlet at column %d: worst relative deviation from Lagrangian spins %.3g; |Mxy| inlet %.4f, outlet %.4f, "
          "tissue upstream %.4f",
          x_in, worst, std::abs(truth[2 * nx + x_in]), std::abs(truth[2 * nx + x_out]), std::abs(truth[2 * nx + 5]));
    QVERIFY(worst < 1e-3);
    QVERIFY(std::abs(truth[2 * nx + x_in + 1]) > 1.5 * std::abs(truth[2 * nx + x_out]));  // inflow enhancement
  }

  // Σ M over a step changes by exactly inflow − outflow through the open end faces (Poiseuille-like
  // profile, random M); with closed ends it does not change.
  void openEndBalanceIsInflowMinusOutflow() {
    const int nx = 48, ny = 12, x_in = 5, x_out = 40, y0 = 2, y1 = 10;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (bool open : {true, false}) {
      auto ph = vessel_inside(nx, ny, x_in, x_out, y0, y1, open);
      for (int y = y0; y < y1; ++y) {
        const double r = (y + 0.5 - y0) / (y1 - y0) * 2 - 1;
        for (int x = x_in; x <= x_out; ++x) ph.ux[static_cast<std::size_t>(y) * nx + x] = static_cast<float>(0.9 * (1 - r * r));
      }
      std::vector<double> m[3], next[3];
      for (auto& c : m) {
        c.resize(ph.size());
        for (auto& v : c) v = u(rng);
      }
      for (auto& c : next) c.resize(ph.size());
      const double scale = 0.7;
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          const auto t = transport::donor_cell_gather<double>(x, y, nx, ny, m[0].data(), m[1].data(), m[2].data(),
                                                              ph.ux.data(), ph.uy.data(), ph.type.data(), ph.PD.data(),
                                                              scale, false, ph.open_end.data());
          next[0][y * nx + x] = t.x;
          next[1][y * nx + x] = t.y;
          next[2][y * nx + x] = t.z;
        }
      double worst = 0, moved = 0;
      for (int k = 0; k < 3; ++k) {
        double before = 0, after = 0, in = 0, out = 0;
        for (std::size_t i = 0; i < ph.size(); ++i) {
          before += m[k][i];
          after += next[k][i];
        }
        if (open)
          for (int y = y0; y < y1; ++y) {
            const double c = ph.ux[static_cast<std::size_t>(y) * nx + x_in] * scale;  // = outlet's (same row)
            if (k == 2) in += c * ph.PD[static_cast<std::size_t>(y) * nx + x_in];    // fresh M = PD·z
            out += c * m[k][static_cast<std::size_t>(y) * nx + x_out];
          }
        worst = std::max(worst, std::abs((after - before) - (in - out)));
        moved = std::max(moved, std::abs(in) + std::abs(out));
      }
      qInfo("%s ends: |ΔΣM − (inflow − outflow)| = %.3g (flux magnitude %.3g)", open ? "open" : "closed", worst, moved);
      QVERIFY(worst < 1e-12);
      if (open) QVERIFY(moved > 1.0);  // the balance is not trivially zero
    }
  }

  // A scenario tube shorter than the FOV: build_phantom marks its two ends open. With them open the
  // inlet fills with fresh blood and nothing piles up; with closed caps (the old behaviour) the inlet
  // runs dry and the outlet accumulates magnetization beyond M0, which the test also shows.
  void scenarioVesselEndsInsideTheGridAreOpen() {
    Scenario s = scenario_preset("straight_tube");
    s.phantom.tree.length_m = 0.06;  // ends at x = ±30 mm, inside the 128 mm FOV
    s.sequence.matrix = 32;          // 64² cells of 2 mm: a few seconds on one CI core
    s.phantom.cells_per_voxel = 2;
    s.sequence.dummy_scans = 30;
    const CellPhantom open = build_phantom(s);
    QVERIFY(!open.open_end.empty());
    const VesselTree tree = generate_vessel_tree(s.phantom.tree);
    const Vec3 inlet = tree.segments[0].centreline_m.front();
    int marked = 0;
    for (std::size_t i = 0; i < open.size(); ++i)
      if (open.open_end[i]) {
        ++marked;
        const double x = open.x_m(static_cast<int>(i % open.nx)), y = open.y_m(static_cast<int>(i / open.nx));
        QVERIFY(open.type[i] == static_cast<std::uint8_t>(CellType::Fluid));
        QVERIFY(std::abs(std::abs(x) - 0.03) <= 0.004 + 2 * open.cell_size_m);  // at one of the ends
        QVERIFY(std::abs(y) <= 0.004 + open.cell_size_m);
      }
    CellPhantom closed = open;
    closed.open_end.clear();
    const auto prog = build_sequence_program(s.sequence);
    std::vector<std::complex<float>> k(prog.readouts * prog.nx), t_open(open.size()), t_closed(open.size());
    CpuSimulationEngine engine(1);
    engine.run(open, prog, k, t_open, {}, {});
    engine.run(closed, prog, k, t_closed, {}, {});
    // Within 4 mm downstream of the inlet; and the largest |Mxy| of any fluid cell against PD·sin(α).
    double near_open = 0, near_closed = 0, max_open = 0, max_closed = 0, pd = 0;
    int near = 0;
    for (std::size_t i = 0; i < open.size(); ++i) {
      if (open.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) continue;
      pd = std::max(pd, static_cast<double>(open.PD[i]));
      max_open = std::max(max_open, static_cast<double>(std::abs(t_open[i])));
      max_closed = std::max(max_closed, static_cast<double>(std::abs(t_closed[i])));
      const double dx = open.x_m(static_cast<int>(i % open.nx)) - inlet.x;
      if (std::abs(dx) > 0.004) continue;
      near_open += std::abs(t_open[i]);
      near_closed += std::abs(t_closed[i]);
      ++near;
    }
    const double bound = pd * std::sin(s.sequence.flip_angle_deg * M_PI / 180);
    qInfo("tube with ends inside the grid: %d open-end cells; mean |Mxy| near the inlet open %.4f, closed %.4f; "
          "max |Mxy| open %.4f, closed %.4f, PD·sin(α) %.4f",
          marked, near_open / near, near_closed / near, max_open, max_closed, bound);
    QVERIFY(near > 0);
    QVERIFY(near_open > 1.2 * near_closed);  // fresh inflow at the inlet
    QVERIFY(max_open <= bound * (1 + 1e-4));  // nothing piles up
    QVERIFY(max_closed > bound * (1 + 1e-4));  // the closed caps do pile up (the check can fail)
  }
};

QTEST_GUILESS_MAIN(TestSimTransport)
#include "test_sim_transport.moc"
