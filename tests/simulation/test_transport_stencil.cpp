// Per-cell transport stencils of the fluid cells (mrwb/simulation/internal/transport_stencil.hpp), host side: the
// stencil step equals transport_cell_ops.hpp's donor-cell gather cell by cell (2-D with open grid edges
// and vessel ends, 3-D with through-plane flow, a converging 3-D flow with six inflow faces),
// conserves total magnetization in a closed vessel, and its CPU twin (the CUDA kernel's twin) reproduces
// the plain time-stepped CPU engine; a planted error fails.
#include <QTest>

#include <cmath>
#include <cstring>
#include <random>

#include "fluid_test_support.hpp"
#include "mrwb/simulation/internal/transport_stencil.hpp"

using namespace mrwb;
using namespace mrwb::fluid_test;

namespace {

// Random magnetization of every cell (the gather reads only fluid neighbours, but any cell may hold it).
void random_state(const CellPhantom& ph, std::vector<float>& mx, std::vector<float>& my, std::vector<float>& mz,
                  unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  mx.resize(ph.size());
  my.resize(ph.size());
  mz.resize(ph.size());
  for (std::size_t i = 0; i < ph.size(); ++i) {
    mx[i] = u(rng);
    my[i] = u(rng);
    mz[i] = u(rng);
  }
}

// The fluid cells' entries of a grid array, in rank order (the stencil's compact layout).
std::vector<float> compact(const std::vector<std::uint32_t>& fluid, const std::vector<float>& grid) {
  std::vector<float> c(fluid.size());
  for (std::size_t r = 0; r < fluid.size(); ++r) c[r] = grid[fluid[r]];
  return c;
}

// `steps` transport steps alone (scale 1, no Bloch operator) of the compact state cx, cy, cz by stencil s, in
// the gradient frame of `face_turn` when given.
void transport_steps(const FluidStencil& s, int steps, std::vector<float>& cx, std::vector<float>& cy,
                     std::vector<float>& cz, const float* face_turn = nullptr) {
  for (int step = 0; step < steps; ++step) {
    std::vector<float> nx(cx.size()), ny(cy.size()), nz(cz.size());
    for (std::size_t r = 0; r < cx.size(); ++r) {
      float fresh = 0.f;
      const auto m = fluid::stencil_transport(s, r, cx.data(), cy.data(), cz.data(), 1.f, &fresh, face_turn);
      nx[r] = m.x;
      ny[r] = m.y;
      nz[r] = m.z;
    }
    cx.swap(nx);
    cy.swap(ny);
    cz.swap(nz);
  }
}

// Largest difference between the stencil step and donor_cell_gather over every fluid cell, relative to
// the largest |M| change of a step (what a wrong coefficient would show up in). `limited`: both with the
// limited second-order correction (limited_stencil_correction against limited_gather_correction), in the
// gradient frame of `face_turn` when given.
double worst_cell_difference(const CellPhantom& ph, float scale, bool limited = false, const float* face_turn = nullptr) {
  const auto fluid = fluid_cells(ph);
  const FluidStencil s = build_fluid_stencil(ph, fluid, limited);
  std::vector<float> mx, my, mz;
  random_state(ph, mx, my, mz, 7);
  const std::vector<float> cx = compact(fluid, mx), cy = compact(fluid, my), cz = compact(fluid, mz);
  const float* uz = ph.uz.size() == ph.size() ? ph.uz.data() : nullptr;
  const std::uint8_t* ends = ph.open_end.size() == ph.size() ? ph.open_end.data() : nullptr;
  double worst = 0, largest_change = 0;
  for (std::size_t r = 0; r < fluid.size(); ++r) {
    const std::size_t i = fluid[r];
    const int ix = static_cast<int>(i % ph.nx), iy = static_cast<int>(i / ph.nx % ph.ny),
              iz = static_cast<int>(i / ph.slice_size());
    float fresh_ref = 0.f, fresh = 0.f;
    auto ref = transport::donor_cell_gather<float>(ix, iy, iz, ph.nx, ph.ny, ph.nz, mx.data(), my.data(), mz.data(),
                                                   ph.ux.data(), ph.uy.data(), uz, ph.type.data(), ph.PD.data(), scale,
                                                   true, ends, &fresh_ref, face_turn);
    if (limited) {
      const auto A = transport::limited_gather_correction<float>(ix, iy, iz, ph.nx, ph.ny, ph.nz, mx.data(), my.data(),
                                                                 mz.data(), ph.ux.data(), ph.uy.data(), uz,
                                                                 ph.type.data(), ph.PD.data(), scale, true, ends, face_turn);
      ref = {ref.x + A.x, ref.y + A.y, ref.z + A.z};
    }
    const auto got = fluid::stencil_transport(s, r, cx.data(), cy.data(), cz.data(), scale, &fresh, face_turn);
    worst = std::max({worst, std::abs(static_cast<double>(got.x) - ref.x), std::abs(static_cast<double>(got.y) - ref.y),
                      std::abs(static_cast<double>(got.z) - ref.z), std::abs(static_cast<double>(fresh) - fresh_ref)});
    largest_change = std::max({largest_change, std::abs(static_cast<double>(ref.x) - cx[r]),
                               std::abs(static_cast<double>(ref.z) - cz[r])});
  }
  qInfo("%dx%dx%d, %zu fluid cells, %d slots%s, scale %.2f: worst |stencil - gather| %.3g (largest change %.3g)", ph.nx,
        ph.ny, ph.nz, fluid.size(), s.in_slots, limited ? ", limited" : "", scale, worst, largest_change);
  return largest_change > 0 ? worst / largest_change : HUGE_VAL;
}

Run run_twin(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
             const std::vector<FluidStep>& table, const std::vector<FrameStep>& frames = {}, bool limited = false) {
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  const auto fluid = fluid_cells(ph);
  const FluidStencil st = build_fluid_stencil(ph, fluid, limited);
  std::vector<float> mx(ph.size(), 0.f), my(ph.size(), 0.f), mz(ph.PD);
  std::vector<cd> s(per_coil * coils.ncoils);
  std::vector<cf> t(ph.size());
  run_fluid_stencil_cpu(ph, fluid, st, table, frames, coils.sens, coils.ncoils, per_coil, mx, my, mz, s, t);
  mx.insert(mx.end(), my.begin(), my.end());
  mx.insert(mx.end(), mz.begin(), mz.end());
  return {s, to_cd(t), mx};
}

// A 3-D block of blood whose velocities all point at its centre cell: that cell has six inflow faces.
CellPhantom converging_3d() {
  CellPhantom ph = uniform_phantom(7, 7, 1e-4, 1.f, 1.2f, 0.2f, CellType::Fluid, 7);
  ph.flow_dt_s = 1e-4;
  for (int iz = 0; iz < 7; ++iz)
    for (int iy = 0; iy < 7; ++iy)
      for (int ix = 0; ix < 7; ++ix) {
        const std::size_t i = (static_cast<std::size_t>(iz) * 7 + iy) * 7 + ix;
        ph.ux[i] = 0.1f * static_cast<float>(3 - ix);
        ph.uy[i] = 0.08f * static_cast<float>(3 - iy);
        ph.uz[i] = 0.05f * static_cast<float>(3 - iz);
      }
  return ph;
}

}  // namespace

class TestFluidStencil : public QObject {
  Q_OBJECT
 private slots:
  // Cell by cell the stencil step is the donor-cell gather, regrouped: rounding only.
  void stencilEqualsGather() {
    for (bool inside : {false, true})
      for (float scale : {1.f, 0.156f}) QVERIFY(worst_cell_difference(tube_2d(94, 19, inside), scale) < 1e-5);
    CellPhantom slab = vessel_slab(60, 60, 14, 1e-3);
    QVERIFY(slab.uz.size() == slab.size());
    QVERIFY(worst_cell_difference(slab, 1.f) < 1e-5);
    const CellPhantom conv = converging_3d();
    QCOMPARE(build_fluid_stencil(conv, fluid_cells(conv)).in_slots, 6);  // beyond the preloaded slots
    QVERIFY(worst_cell_difference(conv, 1.f) < 1e-5);
  }

  // The limited second-order correction: the stencil's listed faces give the grid gather's correction cell
  // by cell, in the lab frame and in the gradient frame, with open grid edges and vessel ends (fresh UU),
  // in 3-D, and in a converging flow with six inflow faces.
  void limitedStencilEqualsGather() {
    FrameStep frame{};
    const double k_cell[3] = {0.23, -0.11, 0.07};
    transport::frame_face_turns(k_cell, frame.face_turn);
    for (const float* turn : {static_cast<const float*>(nullptr), static_cast<const float*>(frame.face_turn)}) {
      for (bool inside : {false, true})
        for (float scale : {1.f, 0.156f}) QVERIFY(worst_cell_difference(tube_2d(94, 19, inside), scale, true, turn) < 1e-5);
      QVERIFY(worst_cell_difference(vessel_slab(60, 60, 14, 1e-3), 1.f, true, turn) < 1e-5);
      QVERIFY(worst_cell_difference(converging_3d(), 1.f, true, turn) < 1e-5);
    }
    const CellPhantom tube = tube_2d(94, 19);
    const FluidStencil s = build_fluid_stencil(tube, fluid_cells(tube), true);
    QVERIFY(s.limited_slots >= 2);  // the x faces and the y faces of the swirl
  }

  // Built in ranges of ranks on threads, the stencil is the one-range stencil bit for bit: every array, with
  // and without the limited correction (each range sums its cells' faces in the same order).
  void stencilDoesNotDependOnParts() {
    const std::vector<CellPhantom> cases = {tube_2d(94, 19, true), vessel_slab(60, 60, 14, 1e-3), converging_3d()};
    auto same_bytes = [](const auto& a, const auto& b) {  // memcmp takes no null pointer, even for 0 bytes
      return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
    };
    for (const CellPhantom& ph : cases)
      for (bool limited : {false, true}) {
        const auto fluid = fluid_cells(ph);
        const FluidStencil one = build_fluid_stencil(ph, fluid, limited, 1);
        QVERIFY(one.in_slots >= 1);
        for (int parts : {2, 5}) {
          const FluidStencil s = build_fluid_stencil(ph, fluid, limited, parts);
          QCOMPARE(s.nf, one.nf);
          QCOMPARE(s.in_slots, one.in_slots);
          QCOMPARE(s.limited_slots, one.limited_slots);
          QVERIFY(same_bytes(s.out, one.out));
          QVERIFY(same_bytes(s.fresh, one.fresh));
          QVERIFY(same_bytes(s.inflow, one.inflow));
          QVERIFY(same_bytes(s.limited, one.limited));
        }
      }
  }

  // Transport alone in a closed vessel (walls all round, no open face) conserves Σ M.
  void closedVesselConserves() {
    CellPhantom ph = tube_2d(40, 19);
    for (std::size_t i = 0; i < ph.size(); ++i)  // cut the tube off from the grid edges: walls at both ends
      if (i % ph.nx == 0 || i % ph.nx == static_cast<std::size_t>(ph.nx) - 1) ph.type[i] = 1;
    const auto fluid = fluid_cells(ph);
    const FluidStencil s = build_fluid_stencil(ph, fluid);
    for (float f : s.fresh) QCOMPARE(f, 0.f);
    std::vector<float> mx, my, mz;
    random_state(ph, mx, my, mz, 3);
    for (float& v : mz) v += 1.f;  // positive, so Σ Mz is not near zero
    std::vector<float> cx = compact(fluid, mx), cy = compact(fluid, my), cz = compact(fluid, mz);
    transport_steps(s, 1000, cx, cy, cz);
    double sz = 0, sz0 = 0;
    for (std::size_t r = 0; r < fluid.size(); ++r) {
      sz += cz[r];
      sz0 += mz[fluid[r]];
    }
    qInfo("closed vessel, 1000 stencil steps (float): Sum Mz drift %.3g relative", std::abs(sz - sz0) / sz0);
    QVERIFY(std::abs(sz - sz0) / sz0 < 1e-4);
  }

  // The closed box of the conservation bar (test_sim_transport's: a rotating flow, walls all round), moved by
  // the stencil the CUDA kernel plays: Σ M drifts at most 1e-6 of Σ|M| per 1000 float steps, in the lab frame
  // and in the gradient frame (Σ m, m = M·exp(+i 2π k·x)).
  void closedBoxConservesOnTheStencil() {
    // Solid-body-like rotation, |u| + |v| <= 0.9 cells per step, zero normal velocity at the walls, in an n²
    // block of blood with a one-cell stationary wall all round (the stencil opens the grid's edge).
    const int n = 64;
    CellPhantom boxed = uniform_phantom(n + 2, n + 2, 1e-3, 1.f, 1.f, 1.f, CellType::Stationary);
    boxed.flow_dt_s = 1e-3;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const std::size_t i = static_cast<std::size_t>(y + 1) * (n + 2) + x + 1;
        const double sx = std::sin(M_PI * (x + 0.5) / n), sy = std::sin(M_PI * (y + 0.5) / n);
        boxed.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
        boxed.ux[i] = static_cast<float>(0.45 * sx * sx * std::sin(2 * M_PI * (y + 0.5) / n));
        boxed.uy[i] = static_cast<float>(-0.45 * sy * sy * std::sin(2 * M_PI * (x + 0.5) / n));
      }
    const auto cells = fluid_cells(boxed);
    for (bool limited : {false, true})
    for (const double k : {0.0, 0.3}) {
      const FluidStencil st = build_fluid_stencil(boxed, cells, limited);
      for (float f : st.fresh) QCOMPARE(f, 0.f);
      QCOMPARE(st.limited_slots > 0, limited);
      FrameStep frame{};
      const double k_cell[3] = {k, -0.17 * (k != 0), 0};
      transport::frame_face_turns(k_cell, frame.face_turn);
      std::vector<float> mx, my, mz;
      random_state(boxed, mx, my, mz, 5);
      std::vector<float> cx = compact(cells, mx), cy = compact(cells, my), cz = compact(cells, mz);
      auto totals = [&](double (&t)[3], double& mag) {
        long double s[3] = {0, 0, 0};
        mag = 0;
        for (std::size_t r = 0; r < cells.size(); ++r) {
          const int x = static_cast<int>(cells[r] % (n + 2)), y = static_cast<int>(cells[r] / (n + 2));
          const long double a = 2 * M_PI * (k_cell[0] * x + k_cell[1] * y);
          s[0] += cx[r] * std::cos(a) - cy[r] * std::sin(a);
          s[1] += cx[r] * std::sin(a) + cy[r] * std::cos(a);
          s[2] += cz[r];
          mag += std::abs(cx[r]) + std::abs(cy[r]) + std::abs(cz[r]);
        }
        for (int c = 0; c < 3; ++c) t[c] = static_cast<double>(s[c]);
      };
      double before[3], after[3], mag;
      totals(before, mag);
      transport_steps(st, 1000, cx, cy, cz, k != 0 ? frame.face_turn : nullptr);
      totals(after, mag);
      double worst = 0;
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(after[c] - before[c]));
      qInfo("closed box 64x64 on the stencil%s, %s, 1000 float steps: drift of the total %.3g of sum |M|",
            limited ? " (limited second order)" : "", k != 0 ? "gradient frame k = (0.3, -0.17) per cell" : "lab frame",
            worst / mag);
      QVERIFY(worst / mag <= 1e-6);
    }
  }

  // A front and a smooth bump carried by plug flow along a channel (c = 0.4 per step, 40 steps: 16 cells):
  // the limited transport stays within the initial bounds (no overshoot, Mz and |Mxy| alike, the transverse
  // part at an arbitrary phase), keeps the front sharper than the donor cell, and carries the bump with a
  // far smaller error than the donor cell against the exact shift.
  void limitedTransportIsBoundedAndSharp() {
    const int nx = 120, ny = 7;
    CellPhantom ph = uniform_phantom(nx, ny, 1e-3, 1.f, 1.f, 0.1f, CellType::Fluid);
    ph.flow_dt_s = 1e-3;
    std::fill(ph.ux.begin(), ph.ux.end(), 0.4f);
    std::fill(ph.uy.begin(), ph.uy.end(), 0.f);
    const auto fluid = fluid_cells(ph);
    auto profile = [&](int shape, double shift, int ix) {  // 0: front (1 behind, 0 ahead), 1: a Gaussian bump
      const double x = ix - shift;
      return shape == 0 ? (x < 30 ? 1.0 : 0.0) : std::exp(-0.5 * std::pow((x - 40) / 4.0, 2));
    };
    const double phase = 0.7;
    double width[2] = {0, 0}, err[2] = {0, 0};
    for (int limited = 0; limited < 2; ++limited) {
      const FluidStencil st = build_fluid_stencil(ph, fluid, limited == 1);
      for (int shape = 0; shape < 2; ++shape) {
        std::vector<float> cx(fluid.size()), cy(fluid.size()), cz(fluid.size());
        for (std::size_t r = 0; r < fluid.size(); ++r) {
          const double v = profile(shape, 0, static_cast<int>(fluid[r] % nx));
          cx[r] = static_cast<float>(v * std::cos(phase));
          cy[r] = static_cast<float>(v * std::sin(phase));
          cz[r] = static_cast<float>(v);
        }
        transport_steps(st, 40, cx, cy, cz);
        double lo = 0, hi = 0, e2 = 0, n2 = 0;
        int mid = 0;
        for (std::size_t r = 0; r < fluid.size(); ++r) {
          const int ix = static_cast<int>(fluid[r] % nx), iy = static_cast<int>(fluid[r] / nx);
          const double mxy = std::hypot(cx[r], cy[r]);
          lo = std::min({lo, static_cast<double>(cz[r])});
          hi = std::max({hi, static_cast<double>(cz[r]), mxy});
          // Fresh spins (Mz = PD = 1, Mxy = 0) enter at the left edge; compare downstream of them.
          if (ix < 26) continue;
          if (shape == 0 && iy == 3 && cz[r] > 0.1f && cz[r] < 0.9f) ++mid;
          const double exact = profile(shape, 16, ix);
          e2 += std::pow(cz[r] - exact, 2) + std::pow(mxy - exact, 2);
          n2 += 2 * exact * exact;
        }
        qInfo("%s, %s after 40 steps at c = 0.4: Mz in [%.3g, %.3g] (|Mxy| <= %.3g)%s, rel L2 error %.3g",
              limited ? "limited" : "donor cell", shape == 0 ? "front" : "bump", lo, hi, hi,
              shape == 0 ? qPrintable(QString(", %1 cells between 10 and 90 %").arg(mid)) : "", std::sqrt(e2 / n2));
        QVERIFY(lo >= -1e-6);
        QVERIFY(hi <= 1 + 1e-6);
        if (shape == 0) width[limited] = mid;
        else err[limited] = std::sqrt(e2 / n2);
      }
    }
    QVERIFY(width[1] <= width[0] / 2);
    QVERIFY(err[1] <= err[0] / 3);
  }

  // The CUDA kernel's CPU twin reproduces the plain time-stepped engine (2-D with and without vessel
  // ends, 2 coils, 3-D slab with a z moment).
  void twinMatchesEngine() {
    struct Case {
      const char* name;
      CellPhantom ph;
      SequenceProgram prog;
      CoilMaps coils;
    };
    std::vector<Case> cases;
    cases.push_back({"2-D tube", tube_2d(94, 19), short_ge(8, 10e-3), {}});
    cases.push_back({"2-D tube with vessel ends", tube_2d(94, 19, true), short_ge(8, 10e-3), {}});
    {
      CellPhantom ph = tube_2d(94, 19);
      CoilMaps c = two_coils(ph);
      cases.push_back({"2-D tube, 2 coils", std::move(ph), short_ge(8, 10e-3), std::move(c)});
    }
    cases.push_back({"3-D slab", vessel_slab(60, 60, 14, 1e-3), short_ge(8, 60e-3, true), {}});
    {
      // A spin echo: the frame meets a refocusing pulse with k != 0 and changes sign there.
      CellPhantom ph = tube_2d(94, 19, true);
      SequenceProgram se = short_ge(8, 10e-3);
      se.events.clear();
      const SequenceProgram ge = short_ge(8, 10e-3);
      for (const SeqEvent& e : ge.events) {
        se.events.push_back(e);
        if (e.kind == EventKind::Readout) {  // a refocusing pulse and a second echo after each readout
          SeqEvent rf;
          rf.kind = EventKind::Rf;
          rf.flip_rad = M_PI;
          rf.phase_rad = M_PI / 2;
          se.events.push_back(rf);
        }
      }
      cases.push_back({"2-D tube, refocusing pulses", std::move(ph), std::move(se), {}});
    }
    for (FlowTransport transport :
         {FlowTransport::GradientFrame, FlowTransport::DonorCell, FlowTransport::GradientFrameLimited})
      for (const Case& c : cases) {
        CpuSimulationEngine engine;
        engine.set_flow_transport(transport);
        const Run ref = run_engine(c.ph, c.prog, c.coils, engine);
        std::vector<std::pair<long, int>> trs_at;
        // As the CUDA engine builds it: in the gradient frame every RF pulse has a step of its own.
        const bool frame = in_gradient_frame(transport);
        const auto table = fluid_step_table(c.ph, c.prog, trs_at, frame);
        const auto frames = frame ? fluid_frame_table(table, c.ph.cell_size_m) : std::vector<FrameStep>{};
        const Run twin = run_twin(c.ph, c.prog, c.coils, table, frames, second_order(transport));
        const double dk = rel_l2(twin.samples, ref.samples), dt = rel_l2(twin.truth, ref.truth);
        qInfo("%s (%s), %zu steps: k-space rel L2 %.3g, truth rel L2 %.3g", c.name, std::string(to_string(transport)).c_str(),
              table.size(), dk, dt);
        QVERIFY(dk < 1e-5);
        QVERIFY(dt < 1e-5);
      }
  }

  // The frame table follows the CPU engine's rules: k adds each step's moment after the step, restarts at a
  // spoil and changes sign at a refocusing pulse; the face turns are exp(±i 2π k·cell) per axis.
  void frameTableFollowsTheProgram() {
    std::vector<FluidStep> t(5);
    for (FluidStep& s : t) {
      s.dk_x = 100;  // cycles/m: 0.1 cycles per 1 mm cell
      s.dk_y = -50;
    }
    t[2].op = 1;
    t[2].frame = static_cast<std::int16_t>(FrameChange::Conjugate);
    t[4].op = 2;
    t[4].frame = static_cast<std::int16_t>(FrameChange::Restart);
    const auto f = fluid_frame_table(t, 1e-3);
    // k at each step's start (after its frame change): the face turns'; the moving cell's turn takes k's mean
    // over the step, half a step's moment (0.05, −0.025 cells) further.
    const double kx[5] = {0, 0.1, -0.2, -0.1, 0};
    for (int j = 0; j < 5; ++j) {
      QVERIFY(std::abs(f[j].k_cell[0] - (kx[j] + 0.05)) < 1e-6);
      QVERIFY(std::abs(f[j].k_cell[1] - (-kx[j] / 2 - 0.025)) < 1e-6);
      QVERIFY(std::abs(f[j].face_turn[0] - std::cos(2 * M_PI * kx[j])) < 1e-6);  // +x
      QVERIFY(std::abs(f[j].face_turn[1] - std::sin(2 * M_PI * kx[j])) < 1e-6);
      QVERIFY(std::abs(f[j].face_turn[3] + std::sin(2 * M_PI * kx[j])) < 1e-6);  // −x: the conjugate
    }
  }

  // Where the frame changes in a program: a spoil restarts, a lone 180° conjugates and a lone 20° keeps; a
  // shaped excitation (pieces with gradient intervals between) restarts at its largest piece, a shaped
  // refocusing pulse conjugates there.
  void frameChangesOfAProgram() {
    SequenceProgram p;
    auto rf = [&](double flip_deg) {
      SeqEvent e;
      e.kind = EventKind::Rf;
      e.flip_rad = flip_deg * M_PI / 180;
      p.events.push_back(e);
    };
    auto add = [&](EventKind k) {
      SeqEvent e;
      e.kind = k;
      e.dt_s = 1e-4;
      e.n_samples = 1;
      p.events.push_back(e);
    };
    add(EventKind::Spoil);  // 0
    rf(20);                 // 1: lone excitation
    add(EventKind::Free);   // 2
    rf(180);                // 3: lone refocusing
    add(EventKind::Readout);
    for (double a : {5.0, 12.0, 5.0}) {  // 5, 7, 9: a shaped 22° excitation
      rf(a);
      add(EventKind::Free);
    }
    add(EventKind::Readout);  // 11
    for (double a : {50.0, 80.0, 50.0}) {  // 12, 14, 16: a shaped 180° pulse
      rf(a);
      add(EventKind::Free);
    }
    const auto c = frame_changes(p);
    QCOMPARE(c.size(), p.events.size());
    QVERIFY(c[0] == FrameChange::Restart);
    QVERIFY(c[1] == FrameChange::Keep);
    QVERIFY(c[3] == FrameChange::Conjugate);
    QVERIFY(c[5] == FrameChange::Keep && c[7] == FrameChange::Restart && c[9] == FrameChange::Keep);
    QVERIFY(c[12] == FrameChange::Keep && c[14] == FrameChange::Conjugate && c[16] == FrameChange::Keep);
  }

  // A planted error must show: the transport played at 1.15 times its Courant scale.
  void plantedErrorFails() {
    const CellPhantom ph = tube_2d(94, 19);
    const SequenceProgram prog = short_ge(8, 10e-3);
    const Run ref = run_engine(ph, prog, {});
    std::vector<std::pair<long, int>> trs_at;
    auto table = fluid_step_table(ph, prog, trs_at);
    for (FluidStep& s : table) s.scale *= 1.15f;
    const double dk = rel_l2(run_twin(ph, prog, {}, table).samples, ref.samples);
    qInfo("planted error (scale x1.15): k-space rel L2 %.3g", dk);
    QVERIFY(!(dk <= 1e-3));
  }
};

QTEST_GUILESS_MAIN(TestFluidStencil)
#include "test_transport_stencil.moc"
