// Magnetization transport by the flow (seed 004 Eq. 1): conservation, the time-stepped engine against
// the exact static path, and plug-flow inflow against Lagrangian spin tracking.
#include <QtTest>

#include <cmath>
#include <random>

#include "mrwb/phantom.hpp"
#include "mrwb/sequence_program.hpp"
#include "mrwb/simulation_engine.hpp"
#include "mrwb/transport_cell_ops.hpp"

using namespace mrwb;

namespace {

Phantom2D box(int nx, int ny, double cell_m, float PD, float T1, float T2, CellType type) {
  Phantom2D ph;
  ph.nx = nx;
  ph.ny = ny;
  ph.cell_size_m = cell_m;
  ph.x0_m = -0.5 * nx * cell_m + 0.5 * cell_m;
  ph.y0_m = -0.5 * ny * cell_m + 0.5 * cell_m;
  const std::size_t n = ph.size();
  ph.PD.assign(n, PD);
  ph.T1_s.assign(n, T1);
  ph.T2_s.assign(n, T2);
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(type));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  return ph;
}

// Relative drift of Σ M over `steps` transport steps of a rotating flow in a closed box.
template <typename T>
double closed_box_drift(int steps) {
  const int n = 64;
  auto ph = box(n, n, 1e-3, 1.f, 1.f, 1.f, CellType::Fluid);
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
  auto total = [&](const std::vector<T>& v) {
    long double s = 0;
    for (T x : v) s += x;
    return static_cast<double>(s);
  };
  double before[3] = {total(a[0]), total(a[1]), total(a[2])};
  for (int s = 0; s < steps; ++s) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const auto m = transport::donor_cell_gather<T>(x, y, n, n, a[0].data(), a[1].data(), a[2].data(), ph.ux.data(),
                                                       ph.uy.data(), ph.type.data(), ph.PD.data(), T(1), false);
        b[0][y * n + x] = m.x;
        b[1][y * n + x] = m.y;
        b[2][y * n + x] = m.z;
      }
    std::swap(a, b);
  }
  double worst = 0, scale = 0;
  for (int k = 0; k < 3; ++k) {
    worst = std::max(worst, std::abs(total(a[k]) - before[k]));
    scale += std::abs(before[k]);
  }
  // Relative to the total magnitude in the box (Σ|M| ~ n² / 2 per component).
  double mag = 0;
  for (int k = 0; k < 3; ++k)
    for (T v : a[k]) mag += std::abs(static_cast<double>(v));
  return worst / mag;
}

}  // namespace

class TestSimTransport : public QObject {
  Q_OBJECT
 private slots:
  void closedBoxConservesMagnetization() {
    const double df = closed_box_drift<float>(1000), dd = closed_box_drift<double>(1000);
    qInfo("closed box 64x64, 1000 transport steps: relative drift of total M: float %.3g, double %.3g", df, dd);
    QVERIFY(df < 1e-5);
    QVERIFY(dd < 1e-12);
  }

  void plugFlowIsAnExactShiftAtCourantOne() {
    auto ph = box(16, 1, 1e-3, 1.f, 1.f, 1.f, CellType::Fluid);
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
    SequenceSpec seq;
    seq.matrix = 32;
    seq.fov_m = 0.064;
    seq.dummy_scans = 20;
    auto ph = box(64, 64, 0.001, 0.8f, 1.0f, 0.05f, CellType::Stationary);
    for (std::size_t i = 0; i < ph.size(); ++i) ph.dB_T[i] = static_cast<float>(1e-7 * ((i * 7) % 13));  // some off-resonance
    const auto prog = build_spoiled_gre(seq);
    std::vector<std::complex<float>> a(prog.readouts * prog.nx), b(a.size()), ta(ph.size()), tb(ph.size());
    CpuSimulationEngine fast, stepped;
    stepped.set_force_time_stepping(true);
    fast.run(ph, prog, a, ta, {}, {});
    stepped.run(ph, prog, b, tb, {}, {});
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      num += std::norm(a[i] - b[i]);
      den += std::norm(a[i]);
    }
    qInfo("time-stepped vs static k-space: relative RMS difference %.3g", std::sqrt(num / den));
    QVERIFY(std::sqrt(num / den) < 1e-5);
  }

  // Plug flow along x through a non-selectively excited FOV, spoiled GE: just before each RF, a cell at
  // column d holds blood that entered d flow steps ago. Its Mz follows from tracking that spin
  // (Lagrangian): fresh PD at entry, relaxation each step, RF at every TR boundary it has crossed.
  void plugFlowInflowMatchesLagrangianSpins() {
    const int nx = 64;
    const double flow_dt = 1e-3, TR = 5e-3;  // 5 flow steps per TR: blood moves 5 cells per TR
    const float T1 = 1.441f, PD = 0.87f;
    const double alpha = 30 * M_PI / 180;
    auto ph = box(nx, 4, 1e-3, PD, T1, 0.29f, CellType::Fluid);
    for (auto& v : ph.ux) v = 1.f;
    ph.flow_dt_s = flow_dt;
    SequenceProgram prog;
    prog.nx = prog.ny = 0;
    const int n_tr = 40;
    for (int k = 0; k < n_tr; ++k) {
      SeqEvent rf;
      rf.kind = EventKind::Rf;
      rf.flip_rad = alpha;
      prog.events.push_back(rf);
      SeqEvent fr;
      fr.kind = EventKind::Free;
      fr.dt_s = TR;
      prog.events.push_back(fr);
      SeqEvent sp;
      sp.kind = EventKind::Spoil;
      prog.events.push_back(sp);
    }
    // A final RF; its readout-free truth is taken from Mxy right after it via one zero-length readout.
    SeqEvent rf;
    rf.kind = EventKind::Rf;
    rf.flip_rad = alpha;
    prog.events.push_back(rf);
    SeqEvent ro;
    ro.kind = EventKind::Readout;
    ro.dt_s = 1e-9;
    ro.n_samples = 1;
    ro.line = 0;
    ro.truth_sample = 0;
    prog.events.push_back(ro);
    prog.readouts = 1;
    prog.nx = 1;
    std::vector<std::complex<float>> samples(1), truth(ph.size());
    CpuSimulationEngine engine;
    engine.run(ph, prog, samples, truth, {}, {});

    const double E1 = std::exp(-flow_dt / T1);
    double worst = 0;
    for (int d = 0; d < nx; ++d) {
      // The spin now at column d entered (fresh, M = PD·z) during step s_in = last − d; the RF before
      // step s acts on it only when s > s_in (it entered after that pulse).
      const int total_steps = n_tr * 5;
      const int s_in = total_steps - 1 - d;
      double mz = PD;
      for (int s = s_in; s < total_steps; ++s) {
        if (s % 5 == 0 && s > s_in) mz *= std::cos(alpha);
        mz = mz * E1 + PD * (1 - E1);
      }
      const double expected = mz * std::sin(alpha);
      const double got = std::abs(truth[2 * nx + d]);
      worst = std::max(worst, std::abs(got - expected) / expected);
    }
    qInfo("plug flow, 64 columns: worst relative deviation from Lagrangian spins %.3g", worst);
    QVERIFY(worst < 1e-3);
    // Inflow enhancement: the upstream columns are brighter than the downstream saturated ones.
    QVERIFY(std::abs(truth[2 * nx + 2]) > 1.5 * std::abs(truth[2 * nx + nx - 2]));
  }
};

QTEST_GUILESS_MAIN(TestSimTransport)
#include "test_sim_transport.moc"
