// CUDA twins against their CPU references. Every case SKIPs visibly when no CUDA device is present.
#include <QTest>

#include <cmath>
#include <random>

#include "fluid_test_support.hpp"
#include "gpu_sim_compare.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/cancel_latency.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/internal/transport_stencil.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"

using namespace mrwb;

namespace {
// Blood (PD 0.9, T1 1.4 s, T2 0.25 s) in cell i of a test phantom; the caller sets its velocity.
void make_blood(CellPhantom& ph, std::size_t i) {
  ph.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
  ph.PD[i] = 0.9f;
  ph.T1_s[i] = 1.4f;
  ph.T2_s[i] = 0.25f;
}
}  // namespace

class TestGpu : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  // One Bloch step on 1M random cells: device vs host within 2 ulp-ish (1e-6 absolute, |M| <= 1).
  void blochStepMatchesCpu() {
    const std::size_t n = 1 << 20;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f), p(0.f, 1.f);
    std::vector<bloch::Mag> m(n);
    std::vector<float> pd(n), omE1(n), e2(n), c(n), s(n);
    for (std::size_t i = 0; i < n; ++i) {
      m[i] = {u(rng), u(rng), u(rng)};
      pd[i] = p(rng);
      omE1[i] = p(rng);  // 1 − E1
      e2[i] = p(rng);
      const float th = 10 * u(rng);
      c[i] = std::cos(th);
      s[i] = std::sin(th);
    }
    auto cpu = m;
    for (std::size_t i = 0; i < n; ++i) bloch::precess_relax(cpu[i], pd[i], omE1[i], e2[i], c[i], s[i]);
    gpu::precess_relax_on_device(m, pd, omE1, e2, c, s);
    float worst = 0;
    for (std::size_t i = 0; i < n; ++i)
      worst = std::max({worst, std::abs(m[i].Mx - cpu[i].Mx), std::abs(m[i].My - cpu[i].My), std::abs(m[i].Mz - cpu[i].Mz)});
    qInfo("Bloch step, %zu cells: max |GPU - CPU| = %.3g", n, worst);
    QVERIFY(worst <= 1e-6f);
  }

  // The whole spoiled-GE simulation of the default scenario: k-space and truth within 1e-4 relative RMS.
  void engineMatchesCpu() {
    Scenario s = scenario_preset("straight_vessel");
    CpuSimulationEngine cpu;
    auto cuda = gpu::make_cuda_simulation_engine();
    const SimulationResult a = simulate(s, cpu, {}, {});
    const SimulationResult b = simulate(s, *cuda, {}, {});
    const double dk = rel_rms(b.raw.kspace, a.raw.kspace);
    const double dt = rel_rms(b.truth.data, a.truth.data);
    qInfo("default scenario: CPU %.3f s, CUDA %.3f s; k-space rel. RMS diff %.3g, truth %.3g", a.seconds, b.seconds,
          dk, dt);
    QVERIFY(dk <= 1e-4);
    QVERIFY(dt <= 1e-4);
  }

  // Eight loop coils (Biot–Savart sensitivities), all coils reduced in the same pass on the device.
  void multiCoilEngineMatchesCpu() {
    Scenario s = scenario_preset("straight_vessel");
    s.coils.count = 8;
    CpuSimulationEngine cpu;
    auto cuda = gpu::make_cuda_simulation_engine();
    const SimulationResult a = simulate(s, cpu, {}, {});
    const SimulationResult b = simulate(s, *cuda, {}, {});
    const double dk = rel_rms(b.raw.kspace, a.raw.kspace);
    qInfo("default scenario, 8 coils: CPU %.3f s, CUDA %.3f s; k-space rel. RMS diff %.3g", a.seconds, b.seconds, dk);
    QCOMPARE(b.raw.ncoils, 8);
    QVERIFY(dk <= 1e-4);
  }

  // Moving phantom (time-stepped path: transport + Bloch each step): plug flow along a vessel and a
  // sheared flow, spoiled GE; CUDA vs CPU k-space and truth within 1e-4 relative RMS.
  void timeSteppedEngineMatchesCpu() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = 64;
    s.sequence.dummy_scans = 40;
    CellPhantom ph = build_phantom(s.phantom, s.sequence.fov_m, s.sequence.matrix);
    ph.flow_dt_s = 1e-3;
    for (std::size_t i = 0; i < ph.size(); ++i)
      if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
        const double y = ph.y_m(static_cast<int>(i / ph.nx));
        ph.ux[i] = static_cast<float>(0.6 * std::cos(30 * M_PI / 180) * (1 - 1000 * std::abs(y) / 40));
        ph.uy[i] = static_cast<float>(0.3 * std::sin(30 * M_PI / 180));
      }
    expect_agreement(ph, build_sequence_program(s.sequence), "moving phantom, 104 TRs");
  }

  // A vessel with its inlet and outlet inside the grid (open ends), Poiseuille-like flow, and a spoiling
  // event right before every RF (two instantaneous operators in a row, which the CUDA step table folds
  // into a zero-length step): CUDA vs CPU k-space and truth within 1e-4 relative RMS.
  void openEndsAndBackToBackOpsMatchCpu() {
    const int nx = 128, ny = 128;
    CellPhantom ph = uniform_phantom(nx, ny, 0.5e-3, 0.7f, 0.9f, 0.05f, CellType::Stationary);
    const std::size_t n = ph.size();
    ph.open_end.assign(n, 0);
    ph.flow_dt_s = 1e-3;
    for (int y = 50; y < 78; ++y)
      for (int x = 20; x < 108; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * nx + x;
        const double r = (y + 0.5 - 64) / 14;
        make_blood(ph, i);
        ph.ux[i] = static_cast<float>(0.9 * (1 - r * r));
        ph.open_end[i] = x == 20 || x == 107;
      }
    SequenceSpec seq;
    seq.matrix = 64;
    seq.fov_m = nx * ph.cell_size_m;
    seq.dummy_scans = 20;
    const SequenceProgram ge = build_sequence_program(seq);
    SequenceProgram prog = ge;
    prog.events.clear();
    for (const SeqEvent& e : ge.events) {
      if (e.kind == EventKind::Rf) {
        SeqEvent sp;
        sp.kind = EventKind::Spoil;
        prog.events.push_back(sp);
      }
      prog.events.push_back(e);
    }
    expect_agreement(ph, prog, "open vessel ends, spoil+RF back to back");
  }

  // A large all-fluid grid (304,000 cells) over many step-graph launches: Jurczuk et al. 2016's
  // Poiseuille tube, 8 TRs. CUDA vs CPU k-space and truth within 1e-4 relative RMS.
  void largeFluidGridMatchesCpu() {
    const int nx = 640, ny = 475;
    CellPhantom ph = uniform_phantom(nx, ny, 1e-4, 0.9f, 1.4f, 0.25f, CellType::Fluid);
    ph.flow_dt_s = 1e-4;
    for (int iy = 0; iy < ny; ++iy) {
      const double r = (iy + 0.5) / ny * 2 - 1;
      for (int ix = 0; ix < nx; ++ix) ph.ux[static_cast<std::size_t>(iy) * nx + ix] = static_cast<float>(0.8 * (1 - r * r));
    }
    SequenceSpec seq;
    seq.matrix = 8;
    seq.fov_m = nx * ph.cell_size_m;
    seq.dummy_scans = 0;
    expect_agreement(ph, build_sequence_program(seq), "large all-fluid tube, 8 TRs");
    // A smooth ΔB map gives every fluid cell its own tissue: beyond the kernel's tissue table (65,536
    // entries), so the per-cell tissue path runs.
    for (std::size_t i = 0; i < ph.size(); ++i) ph.dB_T[i] = static_cast<float>(1e-7 * static_cast<double>(i) / ph.size());
    expect_agreement(ph, build_sequence_program(seq), "large all-fluid tube, 8 TRs, 304,000 distinct dB (per-cell tissue)");
  }

  // A smooth ΔB map over every cell (102,400 distinct tissues, beyond the 16-bit tissue table of the
  // closed-form kernels, so their per-cell tissue path runs), still and with a fluid band time-stepped
  // beside it: CUDA vs CPU k-space and truth within 1e-4 relative RMS.
  void perCellClosedFormTissueMatchesCpu() {
    const int nx = 320, ny = 320;
    CellPhantom ph = uniform_phantom(nx, ny, 0.25e-3, 0.8f, 0.9f, 0.06f, CellType::Stationary);
    for (std::size_t i = 0; i < ph.size(); ++i) ph.dB_T[i] = static_cast<float>(5e-7 * static_cast<double>(i) / ph.size());
    SequenceSpec seq;
    seq.matrix = 64;
    seq.fov_m = nx * ph.cell_size_m;
    seq.dummy_scans = 10;
    const SequenceProgram ge = build_sequence_program(seq);
    expect_agreement(ph, ge, "still, 102,400 distinct closed-form tissues");
    ph.flow_dt_s = 1e-3;
    for (int y = 140; y < 180; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * nx + x;
        const double r = (y + 0.5 - 160) / 20;
        ph.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
        ph.ux[i] = static_cast<float>(0.9 * (1 - r * r));
      }
    expect_agreement(ph, ge, "fluid band beside 89,600 distinct closed-form tissues");
  }

  // The per-step stencil kernel on an open-ended 2-D vessel with oblique flow, on a 3-D slab vessel with
  // through-plane flow and on a converging 3-D flow whose centre cell has six inflow faces (slots beyond
  // the preloaded ones). CUDA vs CPU within 1e-4 relative RMS each.
  void stencilStepsMatchCpu() {
    const int nx = 96, ny = 64;
    CellPhantom flat = uniform_phantom(nx, ny, 0.5e-3, 0.7f, 0.9f, 0.05f, CellType::Stationary);
    flat.open_end.assign(flat.size(), 0);
    flat.flow_dt_s = 1e-3;
    CellPhantom slab = uniform_phantom(48, 32, 0.5e-3, 0.7f, 0.9f, 0.05f, CellType::Stationary, 8);
    slab.flow_dt_s = 1e-3;
    for (int y = 20; y < 44; ++y)
      for (int x = 10; x < 86; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * nx + x;
        const double r = (y + 0.5 - 32) / 12;
        make_blood(flat, i);
        flat.ux[i] = static_cast<float>(0.7 * (1 - r * r));
        flat.uy[i] = 0.15f;
        flat.open_end[i] = x == 10 || x == 85;
      }
    for (int z = 1; z < 7; ++z)
      for (int y = 10; y < 22; ++y)
        for (int x = 0; x < 48; ++x) {
          const std::size_t i = (static_cast<std::size_t>(z) * 32 + y) * 48 + x;
          make_blood(slab, i);
          slab.ux[i] = 0.6f;
          slab.uz[i] = z < 4 ? 0.2f : -0.2f;
        }
    CellPhantom sink = uniform_phantom(16, 16, 0.5e-3, 0.7f, 0.9f, 0.05f, CellType::Stationary, 8);
    sink.flow_dt_s = 1e-3;
    for (int z = 1; z < 8; ++z)
      for (int y = 3; y < 14; ++y)
        for (int x = 3; x < 14; ++x) {
          const std::size_t i = (static_cast<std::size_t>(z) * 16 + y) * 16 + x;
          make_blood(sink, i);
          sink.ux[i] = 0.05f * static_cast<float>(8 - x);  // every velocity points at cell (8, 8, 4)
          sink.uy[i] = 0.05f * static_cast<float>(8 - y);
          sink.uz[i] = 0.05f * static_cast<float>(4 - z);
        }
    QCOMPARE(build_fluid_stencil(sink, fluid_test::fluid_cells(sink)).in_slots, 6);
    auto program = [](const CellPhantom& ph) {
      SequenceSpec seq;
      seq.matrix = 16;
      seq.fov_m = std::max(0.01, ph.nx * ph.cell_size_m);  // the builders' smallest FOV for the small sink
      seq.dummy_scans = 4;
      return build_sequence_program(seq);
    };
    for (FlowTransport t : {FlowTransport::GradientFrame, FlowTransport::DonorCell, FlowTransport::GradientFrameLimited}) {
      expect_agreement(flat, program(flat), "2-D open vessel, oblique flow (per-step stencil kernel)", t);
      expect_agreement(slab, program(slab), "3-D slab vessel (per-step stencil kernel)", t);
      expect_agreement(sink, program(sink), "3-D converging flow (per-step stencil kernel, 6 inflow slots)", t);
    }
    // A spin echo: the 180° pulse meets a non-zero frame k (its turns do not commute with the RF, so the
    // kernel applies the pulse before transport on those steps), and the frame changes sign there.
    SequenceSpec se;
    se.type = SequenceType::SpinEcho;
    se.matrix = 16;
    se.TR_s = 0.05;
    se.TE_s = 0.02;
    se.fov_m = flat.nx * flat.cell_size_m;
    se.dummy_scans = 2;
    for (FlowTransport t : {FlowTransport::GradientFrame, FlowTransport::DonorCell, FlowTransport::GradientFrameLimited})
      expect_agreement(flat, build_sequence_program(se), "2-D open vessel, spin echo (per-step stencil kernel)", t);
  }

  // The per-step stencil kernel with the ranks of a block (its span) forced to other sizes than step_blocks
  // chooses: partial warps, a block's threads taking 1 to 4 cells, many rounds of blocks (a step of 2,880 fluid
  // cells in 90 blocks of 32), and a light last round, in rank order and in the orders of an exchange's steps. CUDA vs
  // CPU within 1e-4 relative RMS each.
  void stepSpansMatchCpu() {
    CellPhantom slab = uniform_phantom(48, 32, 0.5e-3, 0.7f, 0.9f, 0.05f, CellType::Stationary, 8);
    slab.flow_dt_s = 1e-3;
    for (int z = 1; z < 7; ++z)
      for (int y = 8; y < 24; ++y)
        for (int x = 9; x < 39; ++x) {
          const std::size_t i = (static_cast<std::size_t>(z) * 32 + y) * 48 + x;
          make_blood(slab, i);
          slab.ux[i] = 0.6f;
          slab.uy[i] = y < 16 ? 0.1f : -0.1f;
          slab.uz[i] = z < 4 ? 0.2f : -0.2f;
        }
    SequenceSpec seq;
    seq.matrix = 16;
    seq.fov_m = 0.024;
    seq.dummy_scans = 2;
    const SequenceProgram ge = build_sequence_program(seq);
    for (const char* cells : {"1", "4"})
      for (const char* span : {"32", "96", "736", "1024"}) {
        qputenv("MRWB_STEP_CELLS", cells);
        qputenv("MRWB_STEP_SPAN", span);  // clamped to the block's 256 threads times its cells a thread
        const std::string what = std::string("3-D slab vessel, ") + cells + " cells a thread at most, span " + span;
        expect_agreement(slab, ge, what.c_str());
      }
    qunsetenv("MRWB_STEP_SPAN");
    // A light last round (step_blocks.hpp) forced on rounds of a few blocks: at one cell a thread, three rounds of
    // 3 blocks of 256 and 576 cells in 3 blocks of 192; at four, one round of 2 blocks of 1024 and 832 cells in 2
    // of 416.
    qputenv("MRWB_STEP_TAIL", "2");
    for (const auto& [cells, round_blocks] : {std::pair{"1", "3"}, std::pair{"4", "2"}}) {
      qputenv("MRWB_STEP_CELLS", cells);
      qputenv("MRWB_STEP_SLOTS", round_blocks);
      const std::string what = std::string("3-D slab vessel, ") + cells + " cells a thread at most, rounds of " + round_blocks +
                               " blocks, a light last round";
      expect_agreement(slab, ge, what.c_str());
    }
    // The orders a halo exchange asks of the blocks (step_layout), forced on this run without exchange: a step that
    // reads a halo (its lowest eighth of ranks waiting) launches the light round last on its lowest ranks and starts
    // the full blocks past the waiting ones; a step that stores one (its highest eighth) starts with them and puts
    // the light round on the middle ranks.
    for (const char* role : {"receive", "push"}) {
      qputenv("MRWB_STEP_ROLE", role);
      for (const auto& [cells, round_blocks] : {std::pair{"1", "3"}, std::pair{"4", "2"}}) {
        qputenv("MRWB_STEP_CELLS", cells);
        qputenv("MRWB_STEP_SLOTS", round_blocks);
        const std::string what = std::string("3-D slab vessel, ") + cells + " cells a thread at most, rounds of " +
                                 round_blocks + " blocks, a light last round, in the order of a step that " +
                                 (std::string(role) == "push" ? "stores" : "reads") + " a halo";
        expect_agreement(slab, ge, what.c_str());
      }
    }
    qunsetenv("MRWB_STEP_ROLE");
    qunsetenv("MRWB_STEP_TAIL");
    qunsetenv("MRWB_STEP_SLOTS");
    qunsetenv("MRWB_STEP_CELLS");
  }

  // Progress once per TR and a prompt cancel on the closed-form and the time-stepped CUDA paths (the
  // 100 ms figure is in the bench).
  void progressAndCancelOnTheGpu() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = 64;
    s.sequence.dummy_scans = 10;
    s.phantom.cells_per_voxel = 16;  // 1024² cells: long enough runs to cancel
    for (bool moving : {false, true}) {
      CellPhantom ph = build_phantom(s.phantom, s.sequence.fov_m, s.sequence.matrix);
      if (moving) {
        ph.flow_dt_s = 1e-3;
        for (std::size_t i = 0; i < ph.size(); ++i)
          if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) ph.ux[i] = 0.5f;
      }
      const auto prog = build_sequence_program(s.sequence);
      std::vector<std::complex<float>> k(prog.readouts * prog.nx), t(ph.size());
      auto cuda = gpu::make_cuda_simulation_engine();
      std::vector<double> fractions;
      cuda->run(ph, prog, k, t, [&](double f, std::string_view) { fractions.push_back(f); }, {});
      qInfo("%s CUDA path: %zu progress reports for 10 dummy TRs + %d lines", moving ? "time-stepped" : "static",
            fractions.size(), prog.readouts);
      QCOMPARE(static_cast<int>(fractions.size()), 10 + prog.readouts);
      for (std::size_t j = 1; j < fractions.size(); ++j) QVERIFY(fractions[j] > fractions[j - 1]);
      QCOMPARE(fractions.back(), 1.0);

      // Cancel 200 ms into a run of many seconds (dummy scans: no progress reports to wait for).
      // The builders allow 10,000 dummy TRs: that program played 2 (moving) or 20 (static) times over.
      SequenceSpec long_seq = s.sequence;
      long_seq.dummy_scans = 10000;
      const SequenceProgram once = build_sequence_program(long_seq);
      SequenceProgram long_prog = once;
      for (int r = 1; r < (moving ? 2 : 20); ++r) {
        long_prog.events.insert(long_prog.events.end(), once.events.begin(), once.events.end());
        long_prog.readouts += once.readouts;
      }
      const double latency = cancel_latency_s(*cuda, ph, long_prog, 0.2);
      qInfo("%s CUDA path: cancel honoured after %.1f ms", moving ? "time-stepped" : "static", latency * 1e3);
      QVERIFY(latency >= 0);  // it was still running, and threw Cancelled
      QVERIFY(latency < 1.0);
    }
  }

  void cancelStopsTheGpuRun() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.dummy_scans = 10000;  // the builders' maximum
    auto cuda = gpu::make_cuda_simulation_engine();
    CancelToken token;
    token.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, simulate(s, *cuda, {}, token));
  }
};

QTEST_GUILESS_MAIN(TestGpu)
#include "test_gpu.moc"
