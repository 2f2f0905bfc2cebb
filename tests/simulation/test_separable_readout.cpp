// The separable readout (mrwb/simulation/internal/separable_readout.hpp, CPU twin of the CUDA engine's closed-form readout)
// against the direct per-cell sum the engines otherwise compute: every cell stepped dwell by dwell with
// bloch::precess_relax and C_c·Mxy summed over cells at each sample (a direct DFT).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "fixtures.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/internal/pass_operator.hpp"
#include "mrwb/simulation/internal/separable_readout_signal.hpp"
#include "numeric.hpp"

using namespace mrwb;
using cd = std::complex<double>;

namespace {

using mrwb::test::free_event;
using mrwb::test::rel_rms;
using mrwb::test::rf_event;
using mrwb::test::spoil_event;

constexpr double k_pi = 3.14159265358979323846;

// nx × ny × nz cells of 0.4 mm: three tissues (one with off-resonance, one with a negative one), a few
// background cells (PD = 0).
CellPhantom three_tissues(int nx, int ny, int nz) {
  CellPhantom ph = mrwb::test::stationary_volume(nx, ny, nz, 0.4e-3, 0.8f, 0.9f, 0.05f);
  for (std::size_t i = 0; i < ph.size(); ++i) {
    const int x = static_cast<int>(i % nx), y = static_cast<int>(i / nx % ny);
    if ((x + 2 * y) % 3 == 1) {
      ph.PD[i] = 0.6f, ph.T1_s[i] = 0.5f, ph.T2_s[i] = 0.03f, ph.dB_T[i] = 3e-7f;
    } else if ((x * y) % 5 == 2) {
      ph.PD[i] = 1.0f, ph.T1_s[i] = 1.4f, ph.T2_s[i] = 0.2f, ph.dB_T[i] = -1e-7f;
    }
    if (x + y < 3) ph.PD[i] = ph.T1_s[i] = ph.T2_s[i] = 0.f;
  }
  return ph;
}

// A state far from equilibrium: random transverse and longitudinal parts (zero where PD = 0).
std::vector<bloch::Mag> random_state(const CellPhantom& ph, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<bloch::Mag> m(ph.size(), bloch::Mag{0.f, 0.f, 0.f});
  for (std::size_t i = 0; i < m.size(); ++i)
    if (ph.PD[i] != 0.f) m[i] = {0.6f * u(rng), 0.6f * u(rng), u(rng)};
  return m;
}

CoilMaps random_coils(const CellPhantom& ph, int ncoils, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  CoilMaps c;
  c.ncoils = ncoils;
  c.sens.resize(static_cast<std::size_t>(ncoils) * ph.size());
  for (auto& s : c.sens) s = {u(rng), u(rng)};
  return c;
}

SeqEvent readout_along_x(const CellPhantom& ph, int samples, double dwell_s) {
  SeqEvent e;
  e.kind = EventKind::Readout;
  e.dt_s = dwell_s;
  e.dk_x = 1.0 / (ph.nx * ph.cell_size_m);
  e.n_samples = samples;
  e.truth_sample = samples / 2;
  return e;
}

// The direct reference: per dwell, sample Σ C_c·Mxy, then one precess_relax per cell (factors in
// double, applied in float, as the engines do).
void direct_readout(const CellPhantom& ph, const CoilMaps& coils, const SeqEvent& e, std::vector<bloch::Mag>& m,
                    std::vector<cd>& signal, std::vector<std::complex<float>>& truth) {
  const std::size_t n = ph.size();
  constexpr double gamma_bar = bloch::gamma_rad_per_s_T / (2 * k_pi);
  for (int j = 0; j < e.n_samples; ++j) {
    for (int c = 0; c < coils.ncoils; ++c) {
      cd s{};
      for (std::size_t i = 0; i < n; ++i) {
        const std::complex<float> mxy(m[i].Mx, m[i].My);
        s += cd(coils.uniform() ? mxy : coils.sens[static_cast<std::size_t>(c) * n + i] * mxy);
      }
      signal[static_cast<std::size_t>(c) * e.n_samples + j] += s;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (ph.PD[i] == 0.f) continue;
      if (j == e.truth_sample) truth[i] = {m[i].Mx, m[i].My};
      const double theta = 2 * k_pi * (e.dk_x * ph.x_m(static_cast<int>(i % ph.nx)) + gamma_bar * ph.dB_T[i] * e.dt_s);
      const float E2 = static_cast<float>(std::exp(-e.dt_s / ph.T2_s[i]));
      const float omE1 = static_cast<float>(-std::expm1(-e.dt_s / ph.T1_s[i]));
      bloch::precess_relax(m[i], ph.PD[i], omE1, E2, static_cast<float>(std::cos(theta)),
                           static_cast<float>(std::sin(theta)));
    }
  }
}

double state_rel_rms(const std::vector<bloch::Mag>& a, const std::vector<bloch::Mag>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += std::pow(a[i].Mx - b[i].Mx, 2) + std::pow(a[i].My - b[i].My, 2) + std::pow(a[i].Mz - b[i].Mz, 2);
    den += std::pow(b[i].Mx, 2) + std::pow(b[i].My, 2) + std::pow(b[i].Mz, 2);
  }
  return std::sqrt(num / den);
}

// Separable vs direct on one readout: signal, state after the readout and truth, all within `bar`.
void expect_separable_equals_direct(const CellPhantom& ph, const CoilMaps& coils, const SeqEvent& e, double bar) {
  separable::ReadoutGroups groups;
  QVERIFY(separable::readout_groups(ph, false, groups));
  QCOMPARE(groups.count, 3);
  std::vector<bloch::Mag> m_sep = random_state(ph, 7), m_dir = m_sep;
  const std::size_t ns = static_cast<std::size_t>(coils.ncoils) * e.n_samples;
  std::vector<cd> s_sep(ns), s_dir(ns);
  std::vector<std::complex<float>> t_sep(ph.size()), t_dir(ph.size());
  separable::play_separable_readout(ph, coils, groups, e, m_sep, s_sep, t_sep);
  direct_readout(ph, coils, e, m_dir, s_dir, t_dir);
  const double ds = rel_rms(s_sep, s_dir), dm = state_rel_rms(m_sep, m_dir), dt = rel_rms(t_sep, t_dir);
  qInfo("%d coil(s), %d samples: signal rel. RMS %.3g, state %.3g, truth %.3g", coils.ncoils, e.n_samples, ds, dm, dt);
  QVERIFY(ds <= bar);
  QVERIFY(dm <= bar);
  QVERIFY(dt <= bar);
}

}  // namespace

class TestSeparableReadout : public QObject {
  Q_OBJECT
 private slots:
  void uniformCoilMatchesDirectSum() {
    const CellPhantom ph = three_tissues(48, 10, 4);
    expect_separable_equals_direct(ph, CoilMaps{}, readout_along_x(ph, 48, 2e-5), 1e-5);
  }

  // Several coils and a long readout (T2 decay and off-resonance visible over it).
  void coilsMatchDirectSum() {
    const CellPhantom ph = three_tissues(32, 8, 3);
    expect_separable_equals_direct(ph, random_coils(ph, 3, 11), readout_along_x(ph, 96, 1e-4), 1e-5);
  }

  // Exactness of the composition: z^n of n dwells against n single-dwell operators composed in double
  // (the closed form rounds a few times in float, the float-stepped engines n times).
  void advanceIsTheComposedOperator() {
    bloch::Mag a{0.3f, -0.4f, 0.2f};
    const float PD = 0.9f, T1 = 0.8f, T2 = 0.07f;
    const double dt = 3e-5, phi = 0.3712;  // cycles per dwell (n·φ not a whole turn)
    const int n = 200;
    double mx = a.Mx, my = a.My, mz = a.Mz;
    const double c = std::cos(2 * k_pi * phi), s = std::sin(2 * k_pi * phi), E2 = std::exp(-dt / T2),
                 omE1 = -std::expm1(-dt / T1);
    for (int k = 0; k < n; ++k) {
      const double x = mx * c + my * s, y = -mx * s + my * c;
      mx = E2 * x;
      my = E2 * y;
      mz += omE1 * (PD - mz);
    }
    separable::advance(a, PD, T1, T2, phi, dt, n);
    const double err = std::max({std::abs(a.Mx - mx), std::abs(a.My - my), std::abs(a.Mz - mz)});
    qInfo("after %d dwells: closed form (%.7f, %.7f, %.7f), composed in double (%.7f, %.7f, %.7f), max error %.3g", n,
          a.Mx, a.My, a.Mz, mx, my, mz, err);
    QVERIFY(err < 1e-6);
  }

  // The CUDA pass's factorisation: the pre-readout events of a tissue composed into affine maps split at
  // the gradient intervals (mrwb/simulation/internal/pass_operator.hpp), each gradient's turn applied per cell, against the
  // events played one by one on each cell as the CPU engine does (one turn of gradient plus off-resonance
  // per Free interval); and z^n as the product of its column part and its tissue part.
  void composedPassMatchesEventByEvent() {
    auto rf = [](double flip_deg, double phase_rad) { return rf_event(flip_deg * k_pi / 180, phase_rad); };
    // A spin-echo-like pass: spoil, recovery, excitation, prephaser, refocusing, crusher, wait.
    const std::vector<SeqEvent> events = {spoil_event(), free_event(5e-3, 0, 0, 0), rf(30, 0.3),
                                          free_event(3e-3, -640, -320, 50), rf(180, k_pi / 2),
                                          free_event(1e-3, 0, 0, 200), free_event(5e-4, 0, 0, 0)};
    const TissueValue t = {0.8f, 0.9f, 0.05f, 2e-7f};
    const std::vector<separable::AffineMap> maps = separable::compose_pass(events, t);
    QCOMPARE(maps.size(), std::size_t{3});
    const double gamma_cycles = bloch::gamma_rad_per_s_T / (2 * k_pi);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    double worst = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const double x = 0.05 * u(rng), y = 0.05 * u(rng), z = 0.004 * u(rng);
      bloch::Mag a{u(rng), u(rng), 0.5f + 0.5f * u(rng)}, b = a;
      for (const SeqEvent& e : events) {  // event by event
        if (e.kind == EventKind::Rf)
          bloch::rf_rotate(a, static_cast<float>(std::cos(e.flip_rad)), static_cast<float>(std::sin(e.flip_rad)),
                           static_cast<float>(std::cos(e.phase_rad)), static_cast<float>(std::sin(e.phase_rad)));
        else if (e.kind == EventKind::Spoil)
          bloch::spoil(a);
        else {
          float c, s;
          separable::turn(e.dk_x * x + e.dk_y * y + e.dk_z * z + gamma_cycles * t[3] * e.dt_s, c, s);
          bloch::precess_relax(a, t[0], static_cast<float>(-std::expm1(-e.dt_s / t[1])),
                               static_cast<float>(std::exp(-e.dt_s / t[2])), c, s);
        }
      }
      std::size_t next = 0;  // composed maps and the gradient turns between them
      separable::apply(maps[next++], b);
      for (const SeqEvent& e : events)
        if (separable::has_gradient(e)) {
          float c, s;
          separable::turn(e.dk_x * x + e.dk_y * y + e.dk_z * z, c, s);
          separable::gradient_turn(b, c, s);
          separable::apply(maps[next++], b);
        }
      worst = std::max({worst, static_cast<double>(std::abs(a.Mx - b.Mx)), static_cast<double>(std::abs(a.My - b.My)),
                        static_cast<double>(std::abs(a.Mz - b.Mz))});
    }
    qInfo("composed pass (3 maps, 2 gradient turns) vs event by event, 200 cells: max |difference| %.3g", worst);
    QVERIFY(worst < 2e-6);

    // z^n = exp(−i 2π n dk_x x) · E2^n exp(−i 2π n γ̄ ΔB dt), against the joint power.
    const double dt = 8e-6, dkx = 5.0;
    const int n = 256;
    double worst_z = 0;
    for (double x : {-0.1, -0.0371, 0.0, 0.0523, 0.0999}) {
      float re, im, cre, cim;
      separable::power(separable::dwell_cycles(dkx, x, t[3], dt), dt, t[2], n, re, im);
      separable::power(dkx * x, dt, 0.f, n, cre, cim);
      const separable::ReadoutTissueFactors f = separable::readout_tissue_factors(dt, n, 17, t[1], t[2], t[3]);
      const std::complex<float> z = std::complex<float>(cre, cim) * std::complex<float>(f.zn_re, f.zn_im);
      worst_z = std::max(worst_z, static_cast<double>(std::abs(z - std::complex<float>(re, im))));
    }
    qInfo("z^n as column part times tissue part: max |difference| %.3g", worst_z);
    QVERIFY(worst_z < 1e-6);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, separable::compose_pass(std::vector<SeqEvent>{events[0], readout_along_x(three_tissues(4, 2, 1), 8, 1e-5)}, t));
  }

  // Where a closed-form pass may leave Mxy out: after every readout of the spoiled GE but its last (ideal spoiling
  // before each excitation), never in bSSFP; and playing the events from such a point gives the same state whatever
  // Mxy it starts from.
  void transverseReadUntilASpoil() {
    SeqEvent free, spoil, rf, ro;
    free.kind = EventKind::Free;
    free.dt_s = 1e-3;
    free.dk_x = 3.0;
    spoil.kind = EventKind::Spoil;
    rf.kind = EventKind::Rf;
    rf.flip_rad = 0.5;
    ro.kind = EventKind::Readout;
    ro.n_samples = 4;
    const std::vector<SeqEvent> ev{ro, free, free, spoil, rf, free, ro, free, rf, ro, free};
    const std::vector<bool> read = separable::transverse_reads(ev);
    QCOMPARE(read, (std::vector<bool>{true, false, false, false, true, true, true, true, true, true, true, true}));
    // [0] a readout; [1], [2] Free up to a Spoil; [3] the Spoil itself; [4] an RF; [5] Free, then a readout; [7] Free,
    // then an RF; [10] Free to the program's end, and [11] the end: the final state is kept.

    SequenceSpec q;
    q.matrix = 16;
    q.dummy_scans = 3;
    for (const SequenceType type : {SequenceType::SpoiledGre, SequenceType::Bssfp}) {
      q.type = type;
      q.TE_s = type == SequenceType::Bssfp ? q.TR_s / 2 : 0.004;
      const SequenceProgram p = build_sequence_program(q);
      const std::vector<bool> read_p = separable::transverse_reads(p.events);
      QCOMPARE(read_p.size(), p.events.size() + 1);
      int readouts = 0, dropped = 0;
      for (std::size_t k = 0; k < p.events.size(); ++k) {
        if (p.events[k].kind != EventKind::Readout) continue;
        ++readouts;
        if (read_p[k + 1]) continue;
        ++dropped;
        // From there on, Mxy = (0.3, -0.2) and Mxy = 0 end alike once the Spoil is played.
        bloch::Mag a{0.3f, -0.2f, 0.7f}, b{0.f, 0.f, 0.7f};
        for (std::size_t j = k + 1; j < p.events.size() && p.events[j].kind != EventKind::Rf; ++j) {
          const SeqEvent& e = p.events[j];
          if (e.kind == EventKind::Spoil) {
            bloch::spoil(a);
            bloch::spoil(b);
            continue;
          }
          const float omE1 = static_cast<float>(-std::expm1(-e.dt_s / 0.8)), E2 = static_cast<float>(std::exp(-e.dt_s / 0.05));
          bloch::precess_relax(a, 1.f, omE1, E2, 0.6f, 0.8f);
          bloch::precess_relax(b, 1.f, omE1, E2, 0.6f, 0.8f);
        }
        QCOMPARE(a.Mx, b.Mx);
        QCOMPARE(a.My, b.My);
        QCOMPARE(a.Mz, b.Mz);
      }
      qInfo("%s: %d readouts, Mxy left out after %d", type == SequenceType::Bssfp ? "bSSFP" : "spoiled GE", readouts, dropped);
      QCOMPARE(readouts, q.matrix);  // one a phase-encode line, none in the dummy scans
      QCOMPARE(dropped, type == SequenceType::SpoiledGre ? readouts - 1 : 0);
    }
  }

  // Which readouts and phantoms qualify: gradient along x only; at most k_max_readout_groups (T2, ΔB)
  // pairs; fluid cells left out when skipped; a cell outside the table is refused, not dropped.
  void applicability() {
    CellPhantom ph = three_tissues(16, 4, 2);
    SeqEvent e = readout_along_x(ph, 8, 1e-5);
    QVERIFY(separable::readout_is_separable(e));
    e.dk_y = 1.0;
    QVERIFY(!separable::readout_is_separable(e));
    e.dk_y = 0;
    e.dk_z = 1.0;
    QVERIFY(!separable::readout_is_separable(e));
    e.dk_z = 0;
    e.kind = EventKind::Free;
    QVERIFY(!separable::readout_is_separable(e));

    separable::ReadoutGroups groups;
    ph.type[20] = static_cast<std::uint8_t>(CellType::Fluid);
    ph.T2_s[20] = 0.25f;
    QVERIFY(separable::readout_groups(ph, true, groups));
    QCOMPARE(groups.count, 3);
    QVERIFY(separable::readout_groups(ph, false, groups));
    QCOMPARE(groups.count, 4);
    for (int k = 0; k < separable::k_max_readout_groups; ++k) ph.T2_s[40 + k] = 0.3f + 0.01f * k;
    QVERIFY(!separable::readout_groups(ph, false, groups));

    separable::ReadoutGroups three;
    QVERIFY(separable::readout_groups(three_tissues(16, 4, 2), false, three));
    std::vector<bloch::Mag> m = random_state(ph, 3);
    std::vector<cd> s(8);
    std::vector<std::complex<float>> t(ph.size());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             separable::play_separable_readout(ph, CoilMaps{}, three, readout_along_x(ph, 8, 1e-5), m, s, t));
  }
};

QTEST_GUILESS_MAIN(TestSeparableReadout)
#include "test_separable_readout.moc"
