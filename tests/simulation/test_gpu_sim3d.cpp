// The CUDA simulator in 3-D and its hybrid path (non-fluid cells in closed form, fluid cells
// time-stepped over a compact list) against the CPU reference, which time-steps every cell of a moving
// phantom. Every case SKIPs visibly when no CUDA device is present.
#include <QTest>

#include <cmath>

#include "fixtures.hpp"
#include "gpu_sim_compare.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"

using namespace mrwb;

namespace {

using mrwb::test::spoiled_ge;

// nx × ny × nz cells of 0.5 mm of stationary tissue with a ball of a second tissue and off-resonance,
// background (PD 0) in the corners of the grid: static cells of every kind.
CellPhantom tissue_block(int nx, int ny, int nz) {
  CellPhantom ph = mrwb::test::stationary_volume(nx, ny, nz, 0.5e-3, 0.8f, 0.9f, 0.06f);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t i = (static_cast<std::size_t>(z) * ny + y) * nx + x;
        const double dx = x - 0.35 * nx, dy = y - 0.6 * ny, dz = z - 0.5 * nz;
        if (dx * dx + dy * dy + 4 * dz * dz < 0.04 * nx * nx) {
          ph.PD[i] = 0.6f;
          ph.T1_s[i] = 0.5f;
          ph.T2_s[i] = 0.04f;
          ph.dB_T[i] = 2e-7f;  // ~8.5 Hz
        }
        if (x + y < nx / 8) {
          ph.PD[i] = ph.T1_s[i] = ph.T2_s[i] = 0.f;
          ph.type[i] = static_cast<std::uint8_t>(CellType::Background);
        }
      }
  return ph;
}

// A straight vessel of blood along (1, 0.3, 0.2) through the block, plug-plus-parabolic flow, open
// where it crosses the grid's edge.
void add_vessel(CellPhantom& ph, double radius_cells, bool through_plane) {
  const double ex = 1 / std::sqrt(1.0 + 0.09 + (through_plane ? 0.04 : 0)), ey = 0.3 * ex, ez = through_plane ? 0.2 * ex : 0;
  ph.flow_dt_s = 1e-3;
  if (through_plane) ph.uz.assign(ph.size(), 0.f);
  for (int z = 0; z < ph.nz; ++z)
    for (int y = 0; y < ph.ny; ++y)
      for (int x = 0; x < ph.nx; ++x) {
        const std::size_t i = (static_cast<std::size_t>(z) * ph.ny + y) * ph.nx + x;
        const double px = x - 0.5 * ph.nx, py = y - 0.5 * ph.ny, pz = z - 0.5 * ph.nz;
        const double along = px * ex + py * ey + pz * ez;
        const double d2 = px * px + py * py + pz * pz - along * along;
        if (d2 > radius_cells * radius_cells) continue;
        const double u = 0.3 + 0.5 * (1 - d2 / (radius_cells * radius_cells));  // peak 0.8 cells per flow step
        ph.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
        ph.PD[i] = 0.9f;
        ph.T1_s[i] = 1.4f;
        ph.T2_s[i] = 0.25f;
        ph.dB_T[i] = 0.f;
        ph.ux[i] = static_cast<float>(u * ex);
        ph.uy[i] = static_cast<float>(u * ey);
        if (through_plane) ph.uz[i] = static_cast<float>(u * ez);
      }
}

// A spoiled GE of `matrix` lines with partition encoding along z: every phase-encoding interval also
// carries dk_z = (line mod 4 − 2) / fov_z, so the z positions enter the phase.
SequenceProgram ge_with_dkz(int matrix, double fov_m, double fov_z_m) {
  SequenceSpec seq;
  seq.matrix = matrix;
  seq.fov_m = fov_m;
  seq.dummy_scans = 8;
  seq.flip_angle_deg = 30;
  SequenceProgram prog = build_sequence_program(seq);
  int line = 0;
  for (std::size_t k = 0; k + 1 < prog.events.size(); ++k)
    if (prog.events[k].kind == EventKind::Free && prog.events[k + 1].kind == EventKind::Readout)
      prog.events[k].dk_z = ((line++ % 4) - 2) / fov_z_m;
  return prog;
}

}  // namespace

class TestGpuSim3d : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  // 2-D (nz = 1), a vessel through a large stationary region: the CUDA hybrid (closed-form stationary
  // cells, time-stepped fluid cells) against the CPU engine time-stepping every cell.
  void hybridMatchesCpuOnMovingSlice() {
    CellPhantom ph = tissue_block(192, 192, 1);
    add_vessel(ph, 6, false);
    expect_agreement(ph, spoiled_ge(64, ph.nx * ph.cell_size_m, 16), "2-D hybrid");
  }

  // 3-D static block with partition encoding (dk_z) and off-resonance: the closed-form path in 3-D.
  void static3dMatchesCpu() {
    const CellPhantom ph = tissue_block(64, 64, 16);
    expect_agreement(ph, ge_with_dkz(32, 64 * ph.cell_size_m, 16 * ph.cell_size_m), "3-D static");
  }

  // 3-D moving: an oblique vessel with through-plane velocity (six-face transport, uz), open grid
  // edges, partition encoding; hybrid CUDA against the CPU stepping every cell.
  void moving3dMatchesCpu() {
    CellPhantom ph = tissue_block(64, 64, 24);
    add_vessel(ph, 5, true);
    expect_agreement(ph, ge_with_dkz(32, 64 * ph.cell_size_m, 24 * ph.cell_size_m), "3-D moving");
  }

  // nz = 1 through the 3-D code: the same slice given as a one-plane volume with an empty uz and with a
  // zero uz gives the same k-space on the device, and both agree with the CPU.
  void slice2dUnchangedByThe3dPath() {
    CellPhantom a = tissue_block(96, 96, 1);
    add_vessel(a, 4, false);
    CellPhantom b = a;
    b.uz.assign(b.size(), 0.f);
    const SequenceProgram prog = spoiled_ge(32, a.nx * a.cell_size_m, 4);
    auto cuda = gpu::make_cuda_simulation_engine();
    std::vector<std::complex<float>> ka(static_cast<std::size_t>(prog.readouts) * prog.nx), kb(ka.size()), t(a.size());
    cuda->run(a, prog, ka, t, {}, {});
    cuda->run(b, prog, kb, t, {}, {});
    const double d = rel_rms(kb, ka);
    qInfo("nz = 1, uz empty vs zero: rel. RMS %.3g", d);
    QVERIFY(d <= 1e-6);
    expect_agreement(a, prog, "2-D via the 3-D path");
  }

  // The separable readout (readouts along x, three (T2, ΔB) groups incl. off-resonance) with four
  // coils of smooth complex sensitivity: k-space of every coil and the truth against the CPU's direct sums.
  void separableReadoutWithCoilsMatchesCpu() {
    const CellPhantom ph = tissue_block(80, 64, 6);
    CoilMaps coils;
    coils.ncoils = 4;
    coils.sens.resize(4 * ph.size());
    for (int c = 0; c < 4; ++c)
      for (std::size_t i = 0; i < ph.size(); ++i) {
        const double x = static_cast<double>(i % ph.nx) / ph.nx - 0.5 * (c & 1), y = static_cast<double>(i / ph.nx % ph.ny) / ph.ny - 0.5 * (c >> 1);
        coils.sens[c * ph.size() + i] = std::polar(static_cast<float>(std::exp(-2 * (x * x + y * y))), static_cast<float>(c + 3 * x));
      }
    const SequenceProgram prog = ge_with_dkz(32, 80 * ph.cell_size_m, 6 * ph.cell_size_m);
    std::vector<std::complex<float>> ka(4 * static_cast<std::size_t>(prog.readouts) * prog.nx), kb(ka.size()), ta(ph.size()),
        tb(ph.size());
    CpuSimulationEngine cpu;
    cpu.run(ph, prog, coils, ka, ta, {}, {});
    gpu::make_cuda_simulation_engine()->run(ph, prog, coils, kb, tb, {}, {});
    const double dk = rel_rms(kb, ka), dt = rel_rms(tb, ta);
    qInfo("separable readout, 4 coils: k-space rel. RMS %.3g, truth %.3g", dk, dt);
    QVERIFY(dk <= 1e-4);
    QVERIFY(dt <= 1e-4);
  }

  // The direct readout sums stay where the separable form does not apply: more (T2, ΔB) pairs than the
  // group table holds, and readouts with a gradient along y too (oblique k-space lines).
  void directReadoutWhereSeparableDoesNotApply() {
    CellPhantom ph = tissue_block(64, 48, 4);
    for (std::size_t i = 0; i < ph.size(); ++i) ph.T2_s[i] *= 1.f + 0.01f * static_cast<float>(i % 16);
    const SequenceProgram prog = ge_with_dkz(32, 64 * ph.cell_size_m, 4 * ph.cell_size_m);
    expect_agreement(ph, prog, "3-D static, 32 (T2, dB) pairs");
    const CellPhantom block = tissue_block(64, 48, 4);
    SequenceProgram oblique = prog;
    for (auto& e : oblique.events)
      if (e.kind == EventKind::Readout) e.dk_y = 0.25 * e.dk_x;
    expect_agreement(block, oblique, "3-D static, oblique readouts");
  }

  // Separable passes of every kind of pre-readout events: a spin echo (refocusing pulse between its
  // gradient intervals), bSSFP and TOF (tens of gradient intervals per pass: tissue factors and turns per
  // cell), and the 3-D GE with its phase-encoding interval cut into 3 (the composed maps with three
  // shared gradient turns, mrwb/simulation/internal/pass_operator.hpp) and into 6 pieces (more than the shared turns).
  void separablePassesOfEverySequenceMatchCpu() {
    const CellPhantom ph = tissue_block(64, 48, 4);
    for (const SequenceType type : {SequenceType::SpinEcho, SequenceType::Bssfp, SequenceType::Tof}) {
      SequenceSpec seq;
      seq.type = type;
      seq.matrix = 32;
      seq.fov_m = 64 * ph.cell_size_m;
      seq.dummy_scans = 4;
      // The spin echo takes TE and TR as given (the scenario checks them); the block builders' shortest.
      seq.TE_s = seq.type == SequenceType::SpinEcho ? 0.012 : 0;
      seq.TR_s = seq.type == SequenceType::SpinEcho ? 0.03 : 0;
      expect_agreement(ph, build_sequence_program(seq), name_of(type).c_str());
    }
    for (int pieces : {3, 6}) {
      SequenceProgram prog = ge_with_dkz(32, 64 * ph.cell_size_m, 4 * ph.cell_size_m);
      std::vector<SeqEvent> events;
      for (std::size_t k = 0; k < prog.events.size(); ++k) {
        const SeqEvent& e = prog.events[k];
        const bool encode = e.kind == EventKind::Free && k + 1 < prog.events.size() && prog.events[k + 1].kind == EventKind::Readout;
        if (!encode) {
          events.push_back(e);
          continue;
        }
        SeqEvent piece = e;
        piece.dt_s /= pieces;
        piece.dk_x /= pieces;
        piece.dk_y /= pieces;
        piece.dk_z /= pieces;
        events.insert(events.end(), pieces, piece);
      }
      prog.events = std::move(events);
      const std::string what = "3-D GE, phase encoding in " + std::to_string(pieces) + " gradient intervals";
      expect_agreement(ph, prog, what.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestGpuSim3d)
#include "test_gpu_sim3d.moc"
