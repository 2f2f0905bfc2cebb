// The 3-D Bloch-flow simulator on the CPU: nz = 1 is the 2-D engine, a z-uniform slab is nz
// slices, 3-D transport conserves Σ M, a Hann-sinc slice-selective pulse excites its slice, plug flow
// through the slice gives the analytic inflow enhancement, and the engine is deterministic in 3-D.
#include <QTest>

#include <cmath>
#include <random>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"
#include "mrwb/simulation/transport_limited_ops.hpp"
#include "numeric.hpp"

using namespace mrwb;
using cf = std::complex<float>;

namespace {

using mrwb::test::free_event;
using mrwb::test::probe_readout;
using mrwb::test::rf_event;
using mrwb::test::spoil_event;

constexpr double k_gamma_bar_Hz_per_T = 42.577478518e6;

// A one-sample readout that records the cell truth (Mxy) and adds readout number prog.readouts.
void append_probe(SequenceProgram& prog) {
  prog.events.push_back(probe_readout(prog.readouts));
  ++prog.readouts;
  prog.nx = 1;
  prog.ny = prog.readouts;
}

// Slice-selective excitation: a Hann-windowed sinc of time-bandwidth `tbw` and duration T_rf played as
// n_sub hard sub-pulses, each centred in its own interval of a constant z gradient whose total moment
// K = tbw / thickness [cycles/m] sets the slice thickness (bandwidth tbw/T_rf over γ̄·Gz = K/T_rf), then
// a rephaser of −K/2 (half the slice-select area, opposite sign) over t_reph.
struct SelectivePulse {
  double flip_rad = M_PI / 6, T_rf_s = 2e-3, thickness_m = 5e-3, tbw = 4, t_reph_s = 1e-3;
  int n_sub = 64;
  double duration_s() const { return T_rf_s + t_reph_s; }
  // Time from the pulse centre (its effective instant) to the end of the rephaser.
  double centre_to_end_s() const { return T_rf_s / 2 + t_reph_s; }
};

void append_selective_pulse(SequenceProgram& prog, const SelectivePulse& p) {
  const double K = p.tbw / p.thickness_m, dt = p.T_rf_s / p.n_sub;
  std::vector<double> b(p.n_sub);
  double sum = 0;
  for (int j = 0; j < p.n_sub; ++j) {
    const double t = ((j + 0.5) / p.n_sub - 0.5);  // in units of T_rf, in (−1/2, 1/2)
    const double x = p.tbw * t;
    const double sinc = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
    b[j] = sinc * 0.5 * (1 + std::cos(2 * M_PI * t));
    sum += b[j];
  }
  for (int j = 0; j < p.n_sub; ++j) {
    prog.events.push_back(free_event(dt / 2, 0, 0, K / p.n_sub / 2));
    prog.events.push_back(rf_event(p.flip_rad * b[j] / sum));
    prog.events.push_back(free_event(dt / 2, 0, 0, K / p.n_sub / 2));
  }
  prog.events.push_back(free_event(p.t_reph_s, 0, 0, -K / 2));
}

// A spoiled GE of `n_tr` TRs with the selective pulse, the last TR ending in a probe after the rephaser.
SequenceProgram selective_spoiled_ge(const SelectivePulse& p, double TR_s, int n_tr) {
  SequenceProgram prog;
  for (int k = 0; k < n_tr; ++k) {
    append_selective_pulse(prog, p);
    if (k == n_tr - 1) {
      append_probe(prog);
      break;
    }
    prog.events.push_back(free_event(TR_s - p.duration_s()));
    prog.events.push_back(spoil_event());
  }
  prog.TR_s = TR_s;
  return prog;
}

// A small 2-D spoiled GE with in-plane encoding: a few lines of a few samples, enough to exercise the
// gradient phases of every axis.
SequenceProgram small_encoded_ge(int nx, int lines, double fov_m, double dk_z_per_sample) {
  SequenceProgram prog;
  const double dk = 1.0 / fov_m;
  for (int l = 0; l < lines; ++l) {
    prog.events.push_back(rf_event(0.5, 0.3 * l));
    prog.events.push_back(free_event(1e-3, -0.5 * nx * dk, (l - lines / 2) * dk, -0.5 * nx * dk_z_per_sample));
    SeqEvent ro;
    ro.kind = EventKind::Readout;
    ro.dt_s = 2e-5;
    ro.dk_x = dk;
    ro.dk_z = dk_z_per_sample;
    ro.n_samples = nx;
    ro.line = l;
    ro.truth_sample = l == lines / 2 ? nx / 2 : -1;
    prog.events.push_back(ro);
    prog.events.push_back(free_event(4e-3));
    prog.events.push_back(spoil_event());
  }
  prog.nx = nx;
  prog.ny = lines;
  prog.readouts = lines;
  prog.TR_s = 1e-3 + nx * 2e-5 + 4e-3;
  return prog;
}

// A heterogeneous slice (a disc of tissue, a moving vessel band) repeated over nz cells along z.
CellPhantom textured_slab(int n, int nz, bool moving) {
  auto ph = uniform_phantom(n, n, 1e-3, 0.f, 0.f, 0.f, CellType::Background, nz);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < n; ++iy)
      for (int ix = 0; ix < n; ++ix) {
        const std::size_t i = (static_cast<std::size_t>(iz) * n + iy) * n + ix;
        const double x = ix - n / 2 + 0.5, y = iy - n / 2 + 0.5;
        if (x * x + y * y > 0.16 * n * n) continue;
        const bool vessel = std::abs(y - 2) < 3;
        ph.PD[i] = vessel ? 0.9f : 0.7f + 0.01f * ix;
        ph.T1_s[i] = vessel ? 1.4f : 0.9f;
        ph.T2_s[i] = vessel ? 0.25f : 0.05f;
        ph.dB_T[i] = static_cast<float>(1e-7 * (ix - iy));
        ph.type[i] = static_cast<std::uint8_t>(vessel ? CellType::Fluid : CellType::Stationary);
        if (vessel && moving) {
          ph.ux[i] = 0.6f;
          ph.uy[i] = 0.1f;
        }
      }
  if (moving) ph.flow_dt_s = 2e-5;
  return ph;
}

std::vector<cf> run_engine(const CellPhantom& ph, const SequenceProgram& prog, int threads,
                           std::vector<cf>* truth = nullptr, bool force_time_stepping = false,
                           FlowTransport transport = FlowTransport::GradientFrame) {
  CpuSimulationEngine engine(threads);
  engine.set_force_time_stepping(force_time_stepping);
  engine.set_flow_transport(transport);
  std::vector<cf> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), cells(ph.size());
  engine.run(ph, prog, samples, cells, {}, {});
  if (truth) *truth = std::move(cells);
  return samples;
}

// Relative drift of Σ M over `steps` transport steps of an oblique 3-D flow in a closed box; `limited`: with the
// flux-limited second-order correction (transport_limited_ops.hpp).
template <typename T>
double closed_box_drift_3d(int steps, bool limited = false) {
  const int n = 20;
  auto ph = uniform_phantom(n, n, 1e-3, 1.f, 1.f, 1.f, CellType::Fluid, n);
  // Smooth oblique field, zero normal velocity on the walls, |ux| + |uy| + |uz| <= 0.9.
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const std::size_t i = (static_cast<std::size_t>(z) * n + y) * n + x;
        const double sx = std::sin(M_PI * (x + 0.5) / n), sy = std::sin(M_PI * (y + 0.5) / n);
        const double sz = std::sin(M_PI * (z + 0.5) / n);
        ph.ux[i] = static_cast<float>(0.3 * sx * sx * std::sin(2 * M_PI * (y + z + 1.0) / n));
        ph.uy[i] = static_cast<float>(-0.3 * sy * sy * std::cos(2 * M_PI * (x + 0.5) / n));
        ph.uz[i] = static_cast<float>(0.3 * sz * sz * std::sin(2 * M_PI * (x + y + 1.0) / n));
      }
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> a[3], b[3];
  for (int k = 0; k < 3; ++k) {
    a[k].resize(ph.size());
    b[k].resize(ph.size());
    for (auto& v : a[k]) v = static_cast<T>(u(rng));
  }
  auto total = [](const std::vector<T>& v) {
    long double s = 0;
    for (T x : v) s += x;
    return static_cast<double>(s);
  };
  const double before[3] = {total(a[0]), total(a[1]), total(a[2])};
  for (int s = 0; s < steps; ++s) {
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
          const auto m = transport::donor_cell_gather<T>(x, y, z, n, n, n, a[0].data(), a[1].data(), a[2].data(),
                                                         ph.ux.data(), ph.uy.data(), ph.uz.data(), ph.type.data(),
                                                         ph.PD.data(), T(1), false);
          transport::Mag3<T> A{T(0), T(0), T(0)};
          if (limited)
            A = transport::limited_gather_correction<T>(x, y, z, n, n, n, a[0].data(), a[1].data(), a[2].data(),
                                                        ph.ux.data(), ph.uy.data(), ph.uz.data(), ph.type.data(),
                                                        ph.PD.data(), T(1), false);
          const std::size_t i = (static_cast<std::size_t>(z) * n + y) * n + x;
          b[0][i] = m.x + A.x;
          b[1][i] = m.y + A.y;
          b[2][i] = m.z + A.z;
        }
    std::swap(a, b);
  }
  double worst = 0, mag = 0;
  for (int k = 0; k < 3; ++k) {
    worst = std::max(worst, std::abs(total(a[k]) - before[k]));
    for (T v : a[k]) mag += std::abs(static_cast<double>(v));
  }
  return worst / mag;
}

// FWHM of |Mxy|(z) [m] by linear interpolation of the half-maximum crossings, and the largest phase
// difference to the centre cell over the cells above half maximum [rad].
void profile_width_and_phase(const CellPhantom& ph, const std::vector<cf>& truth, double& fwhm_m,
                             double& max_phase_rad) {
  int peak = 0;
  for (int iz = 0; iz < ph.nz; ++iz)
    if (std::abs(truth[iz]) > std::abs(truth[peak])) peak = iz;
  const double half = 0.5 * std::abs(truth[peak]);
  auto crossing = [&](int step) {
    int iz = peak;
    while (iz + step >= 0 && iz + step < ph.nz && std::abs(truth[iz + step]) >= half) iz += step;
    const double a = std::abs(truth[iz]), b = std::abs(truth[iz + step]);
    return ph.z_m(iz) + step * ph.cell_size_m * (a - half) / (a - b);
  };
  fwhm_m = crossing(1) - crossing(-1);
  const int centre = ph.nz / 2;
  max_phase_rad = 0;
  for (int iz = 0; iz < ph.nz; ++iz)
    if (std::abs(truth[iz]) >= half)
      max_phase_rad =
          std::max(max_phase_rad, static_cast<double>(std::abs(std::arg(truth[iz] * std::conj(truth[centre])))));
}

// Mean Mz·sin α over the spins in an ideal (rectangular) slice for a spoiled GE when plug flow replaces
// the fraction f = v·TR / thickness of the slice with fresh spins (Mz = M0) every TR: a spin that has
// seen k pulses has Mz_k (Mz_0 = M0, Mz_{k+1} = E1·cos α·Mz_k + M0·(1 − E1)); the age classes k = 0 ..
// 1/f − 1 each fill the fraction f (the last one the remainder). f = 0: the Ernst steady state.
double ideal_inflow_signal(double f, double alpha, double E1, double M0) {
  if (f <= 0) return M0 * std::sin(alpha) * (1 - E1) / (1 - E1 * std::cos(alpha));
  double mz = M0, left = 1, sum = 0;
  while (left > 1e-12) {
    const double w = std::min(f, left);
    sum += w * mz;
    left -= w;
    mz = E1 * std::cos(alpha) * mz + M0 * (1 - E1);
  }
  return sum * std::sin(alpha);
}

}  // namespace

class TestSim3d : public QObject {
  Q_OBJECT
 private slots:
  // nz = 1 with the 3-D fields present (uz, dk_z on every event) is the 2-D engine, bit for bit: the
  // gather skips z faces and a slice at z0 = 0 gets an exact unit z phase.
  void singleSliceEqualsTwoD() {
    for (bool moving : {false, true}) {
      const CellPhantom flat = textured_slab(24, 1, moving);
      CellPhantom with_z = flat;
      with_z.uz.assign(with_z.size(), 0.f);
      const auto prog2 = small_encoded_ge(16, 6, 24e-3, 0.0);
      const auto prog3 = small_encoded_ge(16, 6, 24e-3, 37.0);
      std::vector<cf> t2, t3;
      const auto s2 = run_engine(flat, prog2, 2, &t2);
      const auto s3 = run_engine(with_z, prog3, 2, &t3);
      QVERIFY(s2 == s3);
      QVERIFY(t2 == t3);
      double energy = 0;
      for (auto v : s2) energy += std::norm(v);
      QVERIFY(energy > 0);
    }
  }

  // A z-uniform slab of nz cells with dk_z = 0 gives nz times the 2-D signal, static and moving.
  void uniformSlabIsNzSlices() {
    const int nz = 5;
    for (bool moving : {false, true}) {
      const auto prog = small_encoded_ge(16, 6, 24e-3, 0.0);
      const auto s2 = run_engine(textured_slab(24, 1, moving), prog, 2);
      const auto s3 = run_engine(textured_slab(24, nz, moving), prog, 2);
      double err = 0, ref = 0;
      for (std::size_t k = 0; k < s2.size(); ++k) {
        err = std::max(err, static_cast<double>(std::abs(s3[k] - static_cast<float>(nz) * s2[k])));
        ref = std::max(ref, static_cast<double>(nz * std::abs(s2[k])));
      }
      qInfo("%s slab of %d slices: max |S3 - nz S2| / max |nz S2| = %.3g", moving ? "moving" : "static", nz, err / ref);
      QVERIFY(ref > 0);
      QVERIFY(err <= 1e-5 * ref);
    }
  }

  void closedBoxConservesMagnetization3d() {
    const double df = closed_box_drift_3d<float>(1000), dd = closed_box_drift_3d<double>(1000);
    qInfo("closed box 20^3, oblique flow with uz != 0, 1000 transport steps: relative drift of total M: "
          "float %.3g, double %.3g", df, dd);
    QVERIFY(df <= 1e-6);  // per 1000 steps: float 1e-6, double 1e-14
    QVERIFY(dd <= 1e-14);
    const double lf = closed_box_drift_3d<float>(1000, true), ld = closed_box_drift_3d<double>(1000, true);
    qInfo("the same, limited second order: float %.3g, double %.3g", lf, ld);
    QVERIFY(lf <= 1e-6);
    QVERIFY(ld <= 1e-14);
  }

  // Hann-sinc (TBW 4) as hard sub-pulses under a z gradient: FWHM of |Mxy|(z) = thickness (10 %), the
  // rephased phase across the slice < 0.1 rad.
  void sliceSelectionProfile() {
    SelectivePulse p;
    auto ph = uniform_phantom(1, 1, 0.05e-3, 1.f, 1000.f, 1000.f, CellType::Stationary, 401);  // 20 mm slab
    SequenceProgram prog;
    append_selective_pulse(prog, p);
    append_probe(prog);
    std::vector<cf> truth;
    run_engine(ph, prog, 1, &truth);
    double fwhm = 0, phase = 0;
    profile_width_and_phase(ph, truth, fwhm, phase);
    qInfo("Hann-sinc TBW 4, 30 deg, %d sub-pulses: FWHM %.4g mm for %.4g mm (%.2f %%), max phase over the "
          "slice %.3g rad, centre |Mxy| %.5f (sin 30 deg = 0.5)",
          p.n_sub, fwhm * 1e3, p.thickness_m * 1e3, 100 * (fwhm / p.thickness_m - 1), phase,
          std::abs(truth[ph.nz / 2]));
    QVERIFY(std::abs(fwhm / p.thickness_m - 1) < 0.10);
    QVERIFY(phase < 0.1);
    // Outside the slice (beyond 1.5 thicknesses from the centre) almost nothing is excited.
    for (int iz = 0; iz < ph.nz; ++iz)
      if (std::abs(ph.z_m(iz)) > 1.5 * p.thickness_m) QVERIFY(std::abs(truth[iz]) < 0.05 * std::abs(truth[ph.nz / 2]));
  }

  // Spoiled GE with the selective pulse on a static slab: the central slice follows Ernst (1 %).
  void slabErnstAtCentre() {
    SelectivePulse p;
    const double TR = 20e-3, T1 = 0.6, T2 = 0.08;
    auto ph = uniform_phantom(1, 1, 0.1e-3, 0.8f, static_cast<float>(T1), static_cast<float>(T2),
                              CellType::Stationary, 201);
    const auto prog = selective_spoiled_ge(p, TR, 120);
    std::vector<cf> truth;
    run_engine(ph, prog, 2, &truth);
    const double ernst = mrwb::test::ernst_signal(0.8, p.flip_rad, TR, p.centre_to_end_s(), T1, T2);
    const double got = std::abs(truth[ph.nz / 2]);
    qInfo("slab spoiled GE, central slice: |Mxy| %.6f, Ernst %.6f (%.3f %%)", got, ernst, 100 * (got / ernst - 1));
    QVERIFY(std::abs(got / ernst - 1) < 0.01);
  }

  // Plug flow through the slice: fresh spins enter at the rate f = v·TR / thickness per TR. The slab's
  // signal relative to its static value is compared with (a) the Lagrangian reference on the pulse's own
  // profile (below) within 2 % at 20 cells per slice thickness; and (b) reported against the ideal rectangular-slice model,
  // which misses by ~45 % here: at 30° and T1 = 1.2 s the low-flip edges of a TBW-4 profile carry much of
  // the static signal and are barely enhanced.
  void plugFlowInflowEnhancement() {
    SelectivePulse p;
    // 20 cells across the slice (0.25 mm). In the gradient frame, restarted at the shaped pulse's peak
    // (frame_changes), the slice profile's phase is not diffused by the through-plane transport: measured
    // +1.2, +1.3, +1.5 % at f = 0.1, 0.25, 0.5 against the Lagrangian reference. The plain donor cell read
    // −1.2, −3.9 and −6.5 % here (numerical diffusion of the phase the slice-select gradient writes).
    const double TR = 20e-3, T1 = 1.2, T2 = 0.2, cell = 0.25e-3;
    // 30 mm: 12.5 mm upstream of the slice (longer than any spin's stay).
    const int nz = static_cast<int>(std::lround(30e-3 / cell));
    const double E1 = std::exp(-TR / T1);
    auto make = [&](double f) {
      auto ph = uniform_phantom(1, 1, cell, 1.f, static_cast<float>(T1), static_cast<float>(T2), CellType::Fluid, nz);
      if (f > 0) {  // v·TR = f·thickness; one flow step moves uz = 1 cell
        ph.flow_dt_s = cell * TR / (f * p.thickness_m);
        std::fill(ph.uz.begin(), ph.uz.end(), 1.f);
      }
      return ph;
    };
    // The pulse's profile from equilibrium without relaxation: |Mxy|(z) = sin α(z).
    std::vector<cf> one;
    {
      auto ph = make(0);
      std::fill(ph.T1_s.begin(), ph.T1_s.end(), 1e3f);
      std::fill(ph.T2_s.begin(), ph.T2_s.end(), 1e3f);
      SequenceProgram prog;
      append_selective_pulse(prog, p);
      append_probe(prog);
      run_engine(ph, prog, 1, &one);
    }
    const CellPhantom grid = make(0);
    auto sin_alpha = [&](double z) {  // linear interpolation; 0 outside the grid (far from the slice)
      const double u = (z - grid.z0_m) / cell;
      const int k = static_cast<int>(std::floor(u));
      if (k < 0 || k + 1 >= nz) return 0.0;
      return (1 - (u - k)) * std::abs(one[k]) + (u - k) * std::abs(one[k + 1]);
    };
    // Lagrangian reference: the spin now (at the probe) in cell i was at z_i − v·t_c at the last pulse
    // centre and v·TR further upstream at each earlier one; it entered with Mz = M0 = 1.
    auto lagrangian = [&](double f) {
      const double v = f * p.thickness_m / TR;
      double S = 0;
      for (int i = 0; i < nz; ++i) {
        const double z_last = grid.z_m(i) - v * p.centre_to_end_s();
        int k = 0;
        while (f > 0 && z_last - k * v * TR > grid.z0_m - cell) ++k;  // pulses since it entered
        double mz = 1;
        for (int j = k; j >= 1; --j) {
          const double sa = sin_alpha(z_last - j * v * TR);
          mz = E1 * std::sqrt(1 - sa * sa) * mz + (1 - E1);
        }
        if (f == 0) {
          const double sa = sin_alpha(z_last);
          mz = (1 - E1) / (1 - E1 * std::sqrt(1 - sa * sa));
        }
        S += sin_alpha(z_last) * mz;
      }
      return S;
    };
    const auto prog = selective_spoiled_ge(p, TR, 150);
    const double s_static = std::abs(run_engine(make(0), prog, 1)[0]);
    const double ref_static = lagrangian(0);
    // Both gradient-frame transports: the first-order one and the flux-limited second-order one.
    for (FlowTransport t : {FlowTransport::GradientFrame, FlowTransport::GradientFrameLimited})
    for (double f : {0.1, 0.25, 0.5}) {
      const double got = std::abs(run_engine(make(f), prog, 1, nullptr, false, t)[0]) / s_static;
      const double ref = lagrangian(f) / ref_static;
      const double ideal = ideal_inflow_signal(f, p.flip_rad, E1, 1.0) / ideal_inflow_signal(0, p.flip_rad, E1, 1.0);
      qInfo("%s, plug flow v*TR/thickness = %.2f: enhancement %.4f; Lagrangian on the pulse profile %.4f (%+.2f %%); "
            "ideal rectangular slice %.4f (%+.2f %%)", std::string(to_string(t)).c_str(),
            f, got, ref, 100 * (got / ref - 1), ideal, 100 * (got / ideal - 1));
      QVERIFY(got > 1.5);
      QVERIFY(std::abs(got / ref - 1) < 0.02);
    }
  }

  // 1 vs 2 threads on a moving 3-D phantom (in-plane and through-plane flow, dk_z encoding): bitwise.
  void deterministicAcrossThreads3d() {
    auto ph = textured_slab(20, 6, true);
    for (std::size_t i = 0; i < ph.size(); ++i)
      if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) ph.uz[i] = 0.25f;
    for (std::size_t i = 0; i < ph.slice_size(); ++i) ph.PD[i] *= 0.5f;  // not z-uniform
    const auto prog = small_encoded_ge(12, 4, 20e-3, 50.0);
    std::vector<cf> t1, t2;
    const auto s1 = run_engine(ph, prog, 1, &t1), s2 = run_engine(ph, prog, 2, &t2);
    QVERIFY(s1 == s2);
    QVERIFY(t1 == t2);
    // And the through-plane flow matters (a different result from the same phantom without uz).
    auto still = ph;
    std::fill(still.uz.begin(), still.uz.end(), 0.f);
    QVERIFY(run_engine(still, prog, 2) != s1);
  }

  // phantom.slab_thickness_m: exact JSON round trip, absent from 2-D files, one-line errors naming it.
  void slabFieldRoundTripAndErrors() {
    Scenario s;
    s.phantom.slab_thickness_m = 6e-3;
    const Scenario back = scenario_from_json_text(scenario_to_json_text(s), "t.json");
    QCOMPARE(back.phantom.slab_thickness_m, 6e-3);
    QCOMPARE(scenario_to_json_text(back), scenario_to_json_text(s));
    QVERIFY(scenario_to_json_text(Scenario{}).find("slab_thickness_m") == std::string::npos);
    for (double bad : {-1e-3, 1e-4, 0.2}) {  // negative, below one cell (2 mm / 2 = 1 mm), beyond the FOV
      Scenario b = s;
      b.phantom.slab_thickness_m = bad;
      try {
        validate_scenario(b, "t.json");
        QFAIL("accepted an out-of-range slab_thickness_m");
      } catch (const InputError& e) {
        const std::string m = e.what();
        QVERIFY2(m.find("phantom.slab_thickness_m") != std::string::npos && m.find('\n') == std::string::npos,
                 e.what());
      }
    }
    Scenario radial = s;
    radial.sequence.trajectory = Trajectory::Radial;
    QVERIFY_THROWS_EXCEPTION(InputError, validate_scenario(radial, "t.json"));
  }

  // Poiseuille flow in a straight vessel of a slab: a 3-D cylinder profile, peak 2Q/(πr²) on the axis
  // (the nearest cell centres are half a cell off it), none beyond the radius, no through-plane part.
  void slabFlowIsPoiseuilleInACylinder() {
    Scenario s;
    s.phantom.cells_per_voxel = 1;
    s.phantom.disc_radius_m = 0.03;
    s.phantom.vessel_radius_m = 4e-3;
    s.phantom.slab_thickness_m = 16e-3;
    s.sequence.fov_m = 0.064;
    s.sequence.matrix = 64;
    s.flow.enabled = true;
    s.flow.inlet_flow_m3_per_s = 2e-6;
    s.flow.time_step_s = 1e-3;
    validate_scenario(s, "t.json");
    const CellPhantom ph = build_phantom(s);
    QCOMPARE(ph.nz, 16);
    const double peak = 2 * 2e-6 / (M_PI * 16e-6) * 1e-3 / 1e-3;  // cells per step (1 mm cells, 1 ms)
    double u_max = 0, uz_max = 0, outside = 0;
    for (std::size_t i = 0; i < ph.size(); ++i) {
      u_max = std::max(u_max, static_cast<double>(ph.ux[i]));
      uz_max = std::max(uz_max, static_cast<double>(std::abs(ph.uz[i])));
      if (std::abs(ph.z_m(static_cast<int>(i / ph.slice_size()))) > 4.5e-3)
        outside = std::max(outside, static_cast<double>(std::abs(ph.ux[i])));
    }
    qInfo("slab Poiseuille: peak %.5f cells/step, analytic %.5f on the axis", u_max, peak);
    QVERIFY(u_max <= peak * (1 + 1e-6) && u_max >= 0.95 * peak);
    QCOMPARE(uz_max, 0.0);
    QCOMPARE(outside, 0.0);
  }

  // A 3-D organ tree in a slab: the flow has a through-plane part (uz), every fluid cell obeys
  // |ux| + |uy| + |uz| within the engine's sub-stepping, and vessel ends inside the slab are open.
  void organTreeSlabHasThroughPlaneFlow() {
    Scenario s;
    s.phantom.preset = "vessel_tree";
    s.phantom.cells_per_voxel = 1;
    s.phantom.tree.generator = "organ_tree";
    s.phantom.tree.dims = 3;
    s.phantom.tree.terminals = 12;
    s.phantom.slab_thickness_m = 24e-3;
    s.sequence.matrix = 64;  // 2 mm cells over 0.128 m: 12 planes
    s.flow.enabled = true;
    s.flow.time_step_s = 1e-3;
    validate_scenario(s, "t.json");
    const CellPhantom ph = build_phantom(s);
    QCOMPARE(ph.nz, 12);
    double uz_max = 0;
    int fluid = 0;
    for (std::size_t i = 0; i < ph.size(); ++i) {
      if (ph.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) continue;
      ++fluid;
      uz_max = std::max(uz_max, static_cast<double>(std::abs(ph.uz[i])));
    }
    qInfo("organ tree slab: %d fluid cells, max |uz| %.4f cells/step, Courant speed %.4f", fluid, uz_max,
          max_courant_speed(ph));
    QVERIFY(fluid > 0);
    QVERIFY(uz_max > 0);
    QVERIFY(phantom_moves(ph));
    QVERIFY(max_courant_speed(ph) >= uz_max);
  }

  // A scenario slab of a z-uniform object through simulate(): the same raw-data layout, k-space and the
  // z-summed truth nz times the 2-D ones (several loop coils, replicated along z).
  void scenarioSlabIsNzSlices() {
    Scenario s = mrwb::test::uniform_disc_scenario(32);
    s.phantom.disc_radius_m = 0.02;
    s.sequence.fov_m = 0.064;
    s.sequence.dummy_scans = 10;
    s.coils.count = 4;
    CpuSimulationEngine engine(2);
    const auto r2 = simulate(s, engine, {}, {});
    s.phantom.slab_thickness_m = 3 * 0.064 / 32;
    QCOMPARE(build_phantom(s).nz, 3);
    const auto r3 = simulate(s, engine, {}, {});
    QCOMPARE(r3.raw.kspace.size(), r2.raw.kspace.size());
    QCOMPARE(r3.truth.data.size(), r2.truth.data.size());
    auto rel = [](const std::vector<cf>& a, const std::vector<cf>& b) {
      double err = 0, ref = 0;
      for (std::size_t k = 0; k < a.size(); ++k) {
        err = std::max(err, static_cast<double>(std::abs(a[k] - 3.f * b[k])));
        ref = std::max(ref, static_cast<double>(std::abs(3.f * b[k])));
      }
      return ref > 0 ? err / ref : 1.0;
    };
    qInfo("scenario slab of 3 cells: k-space %.3g, truth %.3g (relative to 3x the slice)",
          rel(r3.raw.kspace, r2.raw.kspace), rel(r3.truth.data, r2.truth.data));
    QVERIFY(rel(r3.raw.kspace, r2.raw.kspace) < 1e-5);
    QVERIFY(rel(r3.truth.data, r2.truth.data) < 1e-5);
  }

  // In a slab the straight vessel is a cylinder: fluid on its axis in the middle plane, none in planes
  // farther from z = 0 than its radius; the tissue disc is a cylinder (every plane alike).
  void straightVesselIsACylinder() {
    PhantomSpec p;
    p.cells_per_voxel = 1;
    p.vessel_radius_m = 4e-3;
    p.slab_thickness_m = 16e-3;
    const CellPhantom ph = build_phantom(p, 0.064, 64);  // 1 mm cubic cells
    QCOMPARE(ph.nz, 16);
    QCOMPARE(ph.uz.size(), ph.size());
    auto type_at = [&](int ix, int iy, int iz) {
      return ph.type[(static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix];
    };
    const auto fluid = static_cast<std::uint8_t>(CellType::Fluid);
    const auto solid = static_cast<std::uint8_t>(CellType::Stationary);
    int fluid_mid = 0, fluid_out = 0;
    for (int iy = 0; iy < ph.ny; ++iy) {
      fluid_mid += type_at(32, iy, 8) == fluid;
      fluid_out += type_at(32, iy, 0) == fluid;
    }
    QVERIFY(fluid_mid >= 7 && fluid_mid <= 9);  // diameter 8 mm at z = +0.5 mm
    QCOMPARE(fluid_out, 0);                     // z = -7.5 mm, beyond the radius
    QCOMPARE(type_at(20, 32, 0), solid);        // the disc continues in every plane
    QCOMPARE(type_at(20, 32, 15), solid);
  }
};

QTEST_GUILESS_MAIN(TestSim3d)
#include "test_sim_3d.moc"
