// The Lagrangian spin-tracking engine's CUDA twin against the CPU engine (both play the spin operations of
// lagrangian_spin_ops.hpp on the schedule of lagrangian_plan.hpp), and the shared operations on the CPU.
// The GPU cases SKIP visibly when no CUDA device is present.
#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "fluid_test_support.hpp"
#include "numeric.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/internal/lagrangian_plan.hpp"
#include "mrwb/simulation/internal/lagrangian_spin_ops.hpp"
#include "mrwb/simulation/lagrangian_engine.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/simulation/cuda_lagrangian_engine.hpp"

using namespace mrwb;
using mrwb::test::rel_rms;

// QSKIP returns from the test function it is written in, so this is a macro.
#define NEED_DEVICE() \
  if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())))

namespace {

using cf = std::complex<float>;

// The fluid tests' 2-D tube (Poiseuille ux, a small uy, ΔB on the blood, inflow through the grid's left
// edge) with two rows of stationary muscle-like tissue, so still spins take part too.
CellPhantom tube_with_tissue(int nx, int ny) {
  CellPhantom ph = fluid_test::tube_2d(nx, ny);
  for (int iy : {0, ny - 1})
    for (int ix = 0; ix < nx; ++ix) {
      const std::size_t i = static_cast<std::size_t>(iy) * nx + ix;
      ph.PD[i] = 0.8f;
      ph.T1_s[i] = 0.9f;
      ph.T2_s[i] = 0.05f;
      ph.dB_T[i] = 1e-7f;
    }
  return ph;
}

// A 3-D block of static tissue crossed by a vessel along (1, 0.3, 0.2) with plug-plus-parabolic flow
// (peak 0.8 cells per flow step), open where it crosses the grid's edge.
CellPhantom vessel_3d(int nx, int ny, int nz, double radius_cells) {
  CellPhantom ph = uniform_phantom(nx, ny, 1e-3, 0.7f, 0.9f, 0.05f, CellType::Stationary, nz);
  ph.flow_dt_s = 1e-3;
  const double ex = 1 / std::sqrt(1.0 + 0.09 + 0.04), ey = 0.3 * ex, ez = 0.2 * ex;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t i = (static_cast<std::size_t>(z) * ny + y) * nx + x;
        const double px = x - 0.5 * nx, py = y - 0.5 * ny, pz = z - 0.5 * nz;
        const double along = px * ex + py * ey + pz * ez;
        const double d2 = px * px + py * py + pz * pz - along * along;
        if (d2 > radius_cells * radius_cells) continue;
        const double u = 0.3 + 0.5 * (1 - d2 / (radius_cells * radius_cells));
        ph.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
        ph.PD[i] = 0.9f;
        ph.T1_s[i] = 1.4f;
        ph.T2_s[i] = 0.25f;
        ph.ux[i] = static_cast<float>(u * ex);
        ph.uy[i] = static_cast<float>(u * ey);
        ph.uz[i] = static_cast<float>(u * ez);
      }
  return ph;
}

// A phase-contrast-like program: a bipolar gradient along x (first moment encoding velocity, zero net
// moment) before every line's phase encoding; with_dkz adds partition encoding.
SequenceProgram bipolar(SequenceProgram prog, double fov_m, bool with_dkz) {
  std::vector<SeqEvent> out;
  int line = 0;
  for (std::size_t k = 0; k < prog.events.size(); ++k) {
    const SeqEvent& e = prog.events[k];
    if (e.kind == EventKind::Free && k + 1 < prog.events.size() && prog.events[k + 1].kind == EventKind::Readout) {
      SeqEvent lobe;
      lobe.dt_s = 1e-3;
      lobe.dk_x = 3.0 / fov_m;
      out.push_back(lobe);
      lobe.dk_x = -lobe.dk_x;
      out.push_back(lobe);
      SeqEvent pe = e;
      if (with_dkz) pe.dk_z = ((line++ % 4) - 2) / fov_m;
      out.push_back(pe);
      continue;
    }
    out.push_back(e);
  }
  prog.events = std::move(out);
  return prog;
}

struct Result {
  std::vector<cf> samples, truth;
  SpinTrackingStats stats;
};
template <typename Engine>
Result play(Engine& engine, const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils) {
  Result r{std::vector<cf>(static_cast<std::size_t>(prog.readouts) * prog.nx * coils.ncoils), std::vector<cf>(ph.size()), {}};
  engine.run(ph, prog, coils, r.samples, r.truth, {}, {});
  r.stats = dynamic_cast<SpinTracker&>(engine).last_run_stats();
  return r;
}

void compare(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils, const char* what) {
  LagrangianCpuEngine cpu;
  auto cuda = gpu::make_cuda_lagrangian_engine();
  QElapsedTimer t;
  t.start();
  const Result a = play(cpu, ph, prog, coils);
  const double cpu_s = t.nsecsElapsed() * 1e-9;
  t.restart();
  const Result b = play(*cuda, ph, prog, coils);
  const double cuda_s = t.nsecsElapsed() * 1e-9;
  const double dk = rel_rms(b.samples, a.samples), dt = rel_rms(b.truth, a.truth);
  qInfo("%s: %dx%dx%d cells, %zu initial spins, %zu born (CUDA %zu), %.3g spin-steps (CUDA %.3g); CPU %.3f s, CUDA %.3f s; "
        "k-space rel. RMS %.3g, truth %.3g",
        what, ph.nx, ph.ny, ph.nz, a.stats.initial_spins, a.stats.spins_born, b.stats.spins_born, a.stats.spin_steps,
        b.stats.spin_steps, cpu_s, cuda_s, dk, dt);
  QVERIFY(a.stats.spins_born > 0);
  QCOMPARE(b.stats.spins_born, a.stats.spins_born);  // the same births
  QCOMPARE(b.stats.spin_steps, a.stats.spin_steps);  // and the same deaths
  QVERIFY(dk <= 1e-4);
  QVERIFY(dt <= 1e-4);
}

}  // namespace

class TestGpuLagrangian : public QObject {
  Q_OBJECT
 private slots:
  // Births are a function of (seed, face, serial): the same spin every time, inside its face's cell, within
  // the depth the inflow came in during the move; the count delivered by time t is floor(rate·t).
  void birthsAreDeterministic() {
    using namespace lagrangian;
    const Face f{3, 5, 0, 0, -1, 0, 0.5, 0.5 * 9};
    const double h = 0.3;
    for (std::uint64_t k = 0; k < 2000; ++k) {
      const Spin a = born_spin(f, 7, k, h, false, 42, 0.9f, 1.f / 9), b = born_spin(f, 7, k, h, false, 42, 0.9f, 1.f / 9);
      QCOMPARE(std::memcmp(&a, &b, sizeof a), 0);
      QCOMPARE(a.ix, 3);
      QCOMPARE(a.iy, 5);
      QVERIFY(a.fx >= -0.5f && a.fx <= -0.5f + 0.5 * h + 1e-6);  // side −1: near the lower x face
      QVERIFY(a.fy >= -0.5f && a.fy < 0.5f);
      QCOMPARE(a.m.Mz, 0.9f);
    }
    const Spin c = born_spin(f, 7, 1, h, false, 43, 0.9f, 1.f / 9), d = born_spin(f, 7, 1, h, false, 42, 0.9f, 1.f / 9);
    QVERIFY(c.fy != d.fy);  // another seed, another jitter
    QCOMPARE(delivered(f, 10.0), std::int64_t(45));
    QCOMPARE(births(f, 1.0, 2.0) + births(f, 2.0, 10.0), delivered(f, 10.0) - delivered(f, 1.0));
  }

  // A move crossing cells keeps the offset in [-0.5, 0.5) and follows the cell's velocity; leaving the
  // fluid ends the spin. A face with no flux stops it short: the velocity falls linearly to the face's.
  void moveFollowsCells() {
    using namespace lagrangian;
    std::vector<CellFlow> flow(4, CellFlow{0.25f, 0.f, 0.f, 0.f, 0.f, 0.f, 1.f, 0.f});
    flow[3].fluid = 0.f;
    Spin p{0, 0, 0, 0.f, 0.f, 0.f, {0.f, 0.f, 1.f}, 1.f, 0, 1};
    CellFlow u = flow[0];
    int moves = 0;
    while (move<false>(p, u, 1.f, flow.data(), 4, 1, 1)) {
      QVERIFY(p.fx >= -0.5f && p.fx < 0.5f);
      ++moves;
    }
    QCOMPARE(moves, 9);  // x = 0.25 · k reaches cell 3 (x >= 2.5) at k = 10
    QCOMPARE(p.ix, 3);

    flow[1].d_x = -0.25f;  // cell 1's upper face a wall: 0.25 at its lower face, 0 at its upper one
    Spin q{0, 0, 0, 0.f, 0.f, 0.f, {0.f, 0.f, 1.f}, 1.f, 0, 1};
    u = flow[0];
    for (int k = 0; k < 200; ++k) QVERIFY(move<false>(q, u, 1.f, flow.data(), 4, 1, 1));
    QCOMPARE(q.ix, 1);  // still short of the wall at x = 1.5
    QVERIFY(q.fx > 0.49f && q.fx < 0.5f);
  }

  // The CPU engine is deterministic: two runs of a tube with inflow give the same bits.
  void cpuEngineIsDeterministic() {
    const CellPhantom ph = tube_with_tissue(48, 16);
    const SequenceProgram prog = fluid_test::short_ge(16, 0.01);
    LagrangianCpuEngine a, b;
    const Result ra = play(a, ph, prog, CoilMaps{}), rb = play(b, ph, prog, CoilMaps{});
    QVERIFY(ra.stats.spins_born > 0);
    QCOMPARE(rel_rms(ra.samples, rb.samples), 0.0);
  }

  // The bar: CUDA within 1e-4 relative RMS of the CPU engine, k-space and truth, with the same spins born
  // and the same spin-steps. 2-D: Poiseuille tube with inflow, off-resonance, still tissue, two coils;
  // spoiled GE and a bipolar (phase-contrast-like) program.
  void tube2dMatchesCpu() {
    NEED_DEVICE();
    const CellPhantom ph = tube_with_tissue(64, 24);
    const double fov = 0.02;
    const SequenceProgram ge = fluid_test::short_ge(32, fov);
    compare(ph, ge, CoilMaps{}, "2-D tube, GE");
    compare(ph, ge, fluid_test::two_coils(ph), "2-D tube, GE, 2 coils");
    compare(ph, bipolar(ge, fov, false), CoilMaps{}, "2-D tube, bipolar");
  }
  // 3-D: an oblique vessel with through-plane flow in static tissue; GE and bipolar with partition encoding.
  void vessel3dMatchesCpu() {
    NEED_DEVICE();
    const CellPhantom ph = vessel_3d(32, 24, 8, 3.0);
    const double fov = 32 * 1e-3;
    SequenceSpec seq;
    seq.matrix = 32;
    seq.fov_m = fov;
    seq.dummy_scans = 4;
    seq.flip_angle_deg = 30;
    const SequenceProgram ge = build_sequence_program(seq);
    compare(ph, ge, CoilMaps{}, "3-D vessel, GE");
    compare(ph, bipolar(ge, fov, true), CoilMaps{}, "3-D vessel, bipolar + kz");
  }
  // A cancelled run throws Cancelled and writes nothing.
  void cancelIsHonoured() {
    NEED_DEVICE();
    const CellPhantom ph = tube_with_tissue(64, 24);
    const SequenceProgram prog = fluid_test::short_ge(32, 0.02);
    auto cuda = gpu::make_cuda_lagrangian_engine();
    CancelToken cancel;
    cancel.cancel();
    std::vector<cf> s(static_cast<std::size_t>(prog.readouts) * prog.nx), t(ph.size());
    QVERIFY_THROWS_EXCEPTION(Cancelled, cuda->run(ph, prog, s, t, {}, cancel));
  }
};

QTEST_GUILESS_MAIN(TestGpuLagrangian)
#include "test_gpu_lagrangian.moc"
