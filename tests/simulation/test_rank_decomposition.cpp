// The slab decomposition of the CPU engine without MPI: the split arithmetic, the serial communicator, and
// N ranks played by N threads of this process (an in-process RankComm) against the one-process run on
// moving phantoms whose flow crosses the slab boundaries: 3-D (z slabs and y rows, the axis chosen by the work),
// 2-D (y rows) and the static path.
#include <QTest>

#include <cmath>
#include <thread>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/organ_slab.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "numeric.hpp"
#include "sim_ranks_fixture.hpp"
#include "thread_rank_comm.hpp"

using namespace mrwb;
using cf = std::complex<float>;
using mrwb_test::ThreadRankComm;
using mrwb_test::ThreadRanks;

namespace {

struct RunOut {
  std::vector<cf> samples, truth;
  std::vector<std::string> splits;
};

// The engine on `ph` as `ranks` ranks (0: no communicator at all); rank 0's samples and truth.
RunOut run_ranks(const CellPhantom& ph, const SequenceProgram& prog, int ranks, int threads = 1,
                 SplitAxis along = SplitAxis::Auto) {
  ThreadRanks shared(std::max(1, ranks));
  std::vector<RunOut> out(std::max(1, ranks));
  auto one = [&](int r) {
    CpuSimulationEngine engine(threads);
    engine.set_split_axis(along);
    ThreadRankComm comm(shared, r);
    if (ranks > 0) engine.set_rank_comm(&comm, [&](const SlabSplit& s) { out[r].splits.push_back(decomposition_text(s)); });
    out[r].samples.resize(static_cast<std::size_t>(prog.readouts) * prog.nx);
    out[r].truth.resize(ph.size());
    engine.run(ph, prog, out[r].samples, out[r].truth, {}, {});
  };
  std::vector<std::thread> pool;
  for (int r = 1; r < ranks; ++r) pool.emplace_back(one, r);
  one(0);
  for (auto& t : pool) t.join();
  return out[0];
}

// A vessel running obliquely through every plane of the slab axis (z in 3-D, y in 2-D) in stationary tissue,
// with off-resonance; its flow crosses every slab boundary.
CellPhantom oblique_vessel(int n, int nz, bool moving) {
  auto ph = uniform_phantom(n, n, 1e-3, 0.f, 0.f, 0.f, CellType::Background, nz);
  ph.uz.assign(ph.size(), 0.f);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < n; ++iy)
      for (int ix = 0; ix < n; ++ix) {
        const std::size_t i = (static_cast<std::size_t>(iz) * n + iy) * n + ix;
        const double x = ix - n / 2 + 0.5, y = iy - n / 2 + 0.5;
        if (x * x + y * y > 0.2 * n * n) continue;
        // 3-D: a tube along z, tilted in x; 2-D: a band along y.
        const bool vessel = nz > 1 ? std::abs(x - 0.3 * (iz - nz / 2)) < 2.5 && std::abs(y) < 3 : std::abs(x - 1) < 3;
        ph.PD[i] = vessel ? 0.9f : 0.6f + 0.02f * ix;
        ph.T1_s[i] = vessel ? 1.4f : 0.9f;
        ph.T2_s[i] = vessel ? 0.25f : 0.05f;
        ph.dB_T[i] = static_cast<float>(1e-7 * (ix - iy + iz));
        ph.type[i] = static_cast<std::uint8_t>(vessel ? CellType::Fluid : CellType::Stationary);
        if (vessel && moving) {
          ph.ux[i] = nz > 1 ? 0.15f : 0.1f;
          ph.uy[i] = nz > 1 ? 0.05f : 0.6f;
          ph.uz[i] = nz > 1 ? 0.6f : 0.f;
        }
      }
  if (moving) ph.flow_dt_s = 2e-5;
  return ph;
}

// A few encoded lines: gradient moments on every axis (z_moments false: x and y only), an RF per line, a
// spoiler, the truth mid-way.
SequenceProgram encoded_lines(int nx, int lines, double fov_m, bool z_moments = true) {
  using mrwb::test::free_event;
  SequenceProgram prog;
  const double dk = 1.0 / fov_m;
  for (int l = 0; l < lines; ++l) {
    prog.events.push_back(mrwb::test::rf_event(0.6, 0.2 * l));
    prog.events.push_back(free_event(8e-4, -0.5 * nx * dk, (l - lines / 2) * dk, z_moments ? 0.3 * dk : 0.0));
    SeqEvent ro;
    ro.kind = EventKind::Readout;
    ro.dt_s = 4e-5;
    ro.dk_x = dk;
    ro.dk_z = z_moments ? 0.05 * dk : 0.0;
    ro.n_samples = nx;
    ro.line = l;
    ro.truth_sample = l == lines / 2 ? nx / 2 : -1;
    prog.events.push_back(ro);
    prog.events.push_back(free_event(2e-3));
    prog.events.push_back(mrwb::test::spoil_event());
  }
  prog.nx = nx;
  prog.ny = lines;
  prog.readouts = lines;
  prog.TR_s = 8e-4 + nx * 4e-5 + 2e-3;
  return prog;
}

}  // namespace

class TestRankDecomposition : public QObject {
  Q_OBJECT
 private slots:
  // The premise of test_gpu_sim_ranks' idle-rank row: over 4 ranks with a 4-plane halo (the GPU ranks' deep
  // halo), the thin vessel's work-balanced split leaves rank 0 without a fluid cell in its held planes, the
  // others with some.
  void thinVesselLeavesOuterRanksWithoutFluid() {
    const CellPhantom ph = build_phantom(scenario_from_json_text(mrwb_test::k_idle_ranks_scenario, "idle ranks"));
    QVERIFY(phantom_moves(ph));
    const SlabSplit s = slab_split(ph, 4, 4, SplitAxis::Z);
    for (int r = 0; r < 4; ++r) {
      int fluid = 0;
      for (std::size_t i = s.held_begin(r) * ph.slice_size(); i < s.held_end(r) * ph.slice_size(); ++i)
        fluid += ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      qInfo("%s: rank %d holds %d fluid cells", decomposition_text(s).c_str(), r, fluid);
      if (r == 0)
        QCOMPARE(fluid, 0);
      else
        QVERIFY(fluid > 0);
    }
  }
  // Slabs of equal work (balance_slabs): with no halo term each within a plane's work of the mean; with a deep
  // halo the largest slab_work as small as any split of whole planes makes it (every split of the 40 planes
  // over 4 ranks tried); none thinner than the halo; with a deep halo a thin slab
  // in the dense planes counts its stepped halo planes; on a moving phantom the fluid cells, which equal slabs
  // would leave to one rank, spread evenly.
  void balanced_slabs_follow_the_work() {
    PlaneWork work{std::vector<double>(40, 1.0), std::vector<double>(40, 0.0)};
    for (int p = 20; p < 28; ++p) work.own[p] = 100.0, work.halo[p] = 99.0;
    const double work_total = 32 * 1.0 + 8 * 100.0;
    for (int halo : {1, 2, 4}) {
      SlabSplit s;
      s.planes = 40, s.ranks = 4, s.halo = halo, s.plane_cells = 1;
      balance_slabs(s, work);
      QCOMPARE(s.first.size(), std::size_t{5});
      QCOMPARE(s.begin(0), 0);
      QCOMPARE(s.end(3), 40);
      double largest = 0;
      for (int r = 0; r < 4; ++r) {
        QVERIFY2(s.end(r) - s.begin(r) >= std::max(1, halo), qPrintable(QString::fromStdString(decomposition_text(s))));
        largest = std::max(largest, slab_work(s, work, r));
      }
      // The best split by brute force.
      const int thin = std::max(1, halo);
      double best = 1e300;
      SlabSplit t = s;
      for (int b1 = thin; b1 <= 40 - 3 * thin; ++b1)
        for (int b2 = b1 + thin; b2 <= 40 - 2 * thin; ++b2)
          for (int b3 = b2 + thin; b3 <= 40 - thin; ++b3) {
            t.first = {0, b1, b2, b3, 40};
            double m = 0;
            for (int r = 0; r < 4; ++r) m = std::max(m, slab_work(t, work, r));
            best = std::min(best, m);
          }
      qInfo("halo %d: %s, largest slab work %.1f, best split's %.1f", halo, decomposition_text(s).c_str(), largest, best);
      if (halo == 1) {
        // No halo term: each bound nearest its share, every slab within one plane's work (100) of the mean.
        for (int r = 0; r < 4; ++r) QVERIFY(std::abs(slab_work(s, work, r) - work_total / 4) <= 100.0);
      } else {
        QVERIFY2(largest <= best * (1 + 1e-9), qPrintable(QString::fromStdString(decomposition_text(s))));
      }
    }
    // The halo term: slab r's work is its own planes' plus (H − d) / H of each stepped halo plane d deep.
    SlabSplit s;
    s.planes = 40, s.ranks = 4, s.halo = 4, s.plane_cells = 1;
    s.first = {0, 18, 22, 26, 40};
    // Rank 1 owns [18,22): own 1 + 1 + 100 + 100; lower halo planes 17, 16, 15 (halo work 0); upper 22, 23, 24
    // at 3/4, 2/4, 1/4 of 99.
    QCOMPARE(slab_work(s, work, 1), 202.0 + 99.0 * (0.75 + 0.5 + 0.25));
    QCOMPARE(slab_work(s, work, 0), 18.0 + 99.0 * 0.25);  // upper halo planes 18, 19, 20: 0, 0 and 99 at 1/4
    CellPhantom ph = uniform_phantom(4, 3, 1e-3, 1.f, 1.f, 0.1f, CellType::Stationary, 40);
    ph.flow_dt_s = 1e-3;
    ph.ux.assign(ph.size(), 0.f), ph.uy.assign(ph.size(), 0.f), ph.uz.assign(ph.size(), 0.f);
    for (std::size_t i = 20 * ph.slice_size(); i < 28 * ph.slice_size(); ++i) {
      ph.type[i] = static_cast<std::uint8_t>(CellType::Fluid);
      ph.uz[i] = 0.5f;
    }
    const SlabSplit even = slab_split(uniform_phantom(4, 3, 1e-3, 1.f, 1.f, 0.1f, CellType::Stationary, 40), 4);
    const SlabSplit balanced = slab_split(ph, 4);
    QVERIFY(even.first.empty());  // a still phantom: equal slabs
    auto fluid_of = [&](const SlabSplit& s, int r) {
      int n = 0;
      for (std::size_t i = s.begin(r) * ph.slice_size(); i < s.end(r) * ph.slice_size(); ++i)
        n += ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      return n;
    };
    QCOMPARE(fluid_of(even, 2), 96);  // equal slabs: every fluid cell on rank 2
    for (int r = 0; r < 4; ++r) {
      qInfo("rank %d: planes [%d,%d), %d fluid cells", r, balanced.begin(r), balanced.end(r), fluid_of(balanced, r));
      QVERIFY(std::abs(fluid_of(balanced, r) - 24) <= 12);  // 96 / 4, within one plane's 12
    }
  }

  void slab_split_arithmetic() {
    const CellPhantom ph = uniform_phantom(4, 3, 1e-3, 1.f, 1.f, 0.1f, CellType::Stationary, 70);
    const SlabSplit s = slab_split(ph, 3);
    QCOMPARE(s.axis, 2);
    QCOMPARE(s.planes, 70);
    QCOMPARE(s.plane_cells, std::size_t{12});
    QCOMPARE(s.halo, k_transport_halo_planes);
    QCOMPARE(decomposition_text(s), std::string("ranks 3: z planes [0,24) [24,47) [47,70), halo 1"));
    QCOMPARE(s.held_begin(0), 0);
    QCOMPARE(s.held_end(0), 25);
    QCOMPARE(s.held_begin(1), 23);
    QCOMPARE(s.held_end(2), 70);
    // One rank: the whole grid, no halo.
    const SlabSplit one = slab_split(ph, 1);
    QCOMPARE(one.begin(0), 0);
    QCOMPARE(one.end(0), 70);
    QCOMPARE(one.held_end(0), 70);
    QCOMPARE(one.halo, 0);
    // Every rank gets a plane: 70 ranks fit, 71 do not; the refusal names the option and the range.
    QCOMPARE(slab_split(ph, 70).end(69), 70);
    for (int bad : {0, 71}) {
      try {
        slab_split(ph, bad);
        QFAIL("no refusal");
      } catch (const InputError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("--ranks") != std::string::npos && what.find("allowed: 1 to 70") != std::string::npos,
                 what.c_str());
      }
    }
    // A 2-D grid splits along y.
    const SlabSplit flat = slab_split(uniform_phantom(8, 5, 1e-3, 1.f, 1.f, 0.1f, CellType::Stationary), 2);
    QCOMPARE(flat.axis, 1);
    QCOMPARE(flat.plane_cells, std::size_t{8});
    QCOMPARE(decomposition_text(flat), std::string("ranks 2: y rows [0,3) [3,5), halo 1"));
  }

  // A rank's slab as its own phantom (what GPU ranks play): the held planes at their place, the whole
  // phantom's time steps, and the halo's non-fluid cells empty while its fluid cells stay.
  void slab_phantom_of_a_rank() {
    const CellPhantom ph = oblique_vessel(12, 9, true);
    const SequenceProgram prog = encoded_lines(12, 4, 12e-3);
    const SlabSplit split = slab_split(ph, 3, 1, SplitAxis::Z);  // planes [0,3) [3,6) [6,9)
    const CellPhantom s = slab_phantom(ph, split, 1);
    QCOMPARE(s.nz, 5);
    QCOMPARE(s.z0_m, ph.z_m(2));
    QCOMPARE(max_courant_speed(s), max_courant_speed(ph));
    QCOMPARE(time_step_count(s, prog), time_step_count(ph, prog));
    int halo_fluid = 0;
    for (int iz = 0; iz < 5; ++iz)
      for (std::size_t c = 0; c < ph.slice_size(); ++c) {
        const std::size_t i = iz * ph.slice_size() + c, w = (iz + 2) * ph.slice_size() + c;
        const bool halo = iz == 0 || iz == 4, fluid = s.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
        QCOMPARE(s.type[i], ph.type[w]);
        QCOMPARE(s.uz[i], ph.uz[w]);
        QCOMPARE(s.PD[i], halo && !fluid ? 0.f : ph.PD[w]);
        halo_fluid += halo && fluid;
      }
    QVERIFY(halo_fluid > 0);
    // A slab without moving cells of its own still steps with the rest.
    CellPhantom still = ph;
    for (std::size_t i = 2 * ph.slice_size(); i < ph.size(); ++i) still.uz[i] = still.ux[i] = still.uy[i] = 0.f;
    const CellPhantom quiet = slab_phantom(still, slab_split(still, 3, 1, SplitAxis::Z), 2);
    QVERIFY(phantom_moves(quiet));
    QCOMPARE(max_courant_speed(quiet), max_courant_speed(still));
  }

  // A grid with y and z exchanged is the same object: swapping twice gives it back, and the swapped phantom
  // under the swapped program (y and z moments exchanged) gives the same k-space and, swapped back, the same
  // truth (the cells' sums in another order: float rounding only), with flow crossing every plane and row.
  void swapped_axes_play_the_same_scan() {
    CellPhantom ph = oblique_vessel(12, 9, true);
    for (std::size_t i = 0; i < ph.size(); ++i)
      if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) ph.uy[i] = 0.3f;
    const SequenceProgram prog = encoded_lines(12, 4, 12e-3);
    const CellPhantom sw = swap_y_z(ph);
    QCOMPARE(sw.ny, 9);
    QCOMPARE(sw.nz, 12);
    QCOMPARE(sw.y0_m, ph.z0_m);
    const std::size_t i = (static_cast<std::size_t>(5) * ph.ny + 7) * ph.nx + 3, j = (static_cast<std::size_t>(7) * sw.ny + 5) * sw.nx + 3;
    QCOMPARE(sw.uy[j], ph.uz[i]);  // cell (3, 7, 5) is cell (3, 5, 7) of the swapped grid
    QCOMPARE(sw.uz[j], ph.uy[i]);
    QCOMPARE(sw.dB_T[j], ph.dB_T[i]);
    const CellPhantom back = swap_y_z(sw);
    QVERIFY(back.PD == ph.PD && back.type == ph.type && back.ux == ph.ux && back.uy == ph.uy && back.uz == ph.uz &&
            back.dB_T == ph.dB_T && back.ny == ph.ny && back.z0_m == ph.z0_m);
    const RunOut a = run_ranks(ph, prog, 0), b = run_ranks(sw, swap_y_z(prog), 0);
    std::vector<cf> truth;
    swap_y_z_cells(b.truth, truth, sw.nx, sw.ny, sw.nz);
    const double ek = mrwb::test::rel_rms(b.samples, a.samples), et = mrwb::test::rel_rms(truth, a.truth);
    qInfo("swapped y and z: k-space %.3g, truth %.3g", ek, et);
    QVERIFY(mrwb::test::rel_rms(a.samples, std::vector<cf>(a.samples.size())) > 0.5);
    QVERIFY2(ek <= 1e-6 && et <= 1e-6, qPrintable(QString("%1 %2").arg(ek).arg(et)));
  }

  // A thin slab's vessel tree lies in a few of its z planes but spreads over its y rows: split automatically, the
  // organ slab goes by y rows, whose busiest rank has less work than the z planes' (each axis balanced with the
  // GPU ranks' 4-plane halo); named, either axis; the rows over 2 and 3 ranks give the one-process run (the
  // engine plays them with y and z swapped). At rest: z planes.
  void slab_split_picks_the_axis_with_less_work() {
    const OrganSlabSpec spec{40, 36, 12, 0.5e-3, 12, 1.25e-3, "liver"};
    const CellPhantom slab = organ_slab_phantom(spec, "test slab", std::size_t{1} << 30);
    for (int ranks : {2, 3}) {
      const SlabSplit autos = slab_split(slab, ranks, 4), z = slab_split(slab, ranks, 4, SplitAxis::Z),
                      y = slab_split(slab, ranks, 4, SplitAxis::Y);
      auto busiest = [&](const SlabSplit& s, const PlaneWork& w) {
        double m = 0;
        for (int r = 0; r < ranks; ++r) m = std::max(m, slab_work(s, w, r));
        return m;
      };
      const double wz = busiest(z, plane_work(slab, slab.slice_size())), wy = busiest(y, row_work(slab));
      qInfo("%d ranks: %s, busiest %.4g; %s, busiest %.4g; auto: %s", ranks, decomposition_text(z).c_str(), wz,
            decomposition_text(y).c_str(), wy, decomposition_text(autos).c_str());
      QVERIFY(!z.rows_of_3d && z.axis == 2 && y.rows_of_3d && y.axis == 1);
      QCOMPARE(y.plane_cells, static_cast<std::size_t>(spec.nx) * spec.nz);
      QVERIFY(wy < wz);
      QCOMPARE(decomposition_text(autos), decomposition_text(y));
      QVERIFY(decomposition_text(y).find("y rows [0,") != std::string::npos);
      QCOMPARE(played_split(y).axis, 2);
      QVERIFY_THROWS_EXCEPTION(std::logic_error, slab_phantom(slab, y, 0));
    }
    QCOMPARE(slab_split(uniform_phantom(4, 30, 1e-3, 1.f, 1.f, 0.1f, CellType::Stationary, 6), 3).axis, 2);
    // Named: a 2-D grid has no z planes; more ranks than rows and planes, refused naming both.
    QVERIFY_THROWS_EXCEPTION(InputError, slab_split(uniform_phantom(8, 5, 1e-3, 1.f, 1.f, 0.1f, CellType::Stationary), 2, 1, SplitAxis::Z));
    try {
      slab_split(slab, 37, 1);
      QFAIL("no refusal");
    } catch (const InputError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("12 z planes and 36 y rows") != std::string::npos && what.find("allowed: 1 to 36") != std::string::npos,
               what.c_str());
    }
    // Played: rows over 2 and 3 in-process ranks against one process, a program with moments on every axis.
    const SequenceProgram prog = encoded_lines(spec.nx, 6, spec.nx * spec.cell_m);
    const RunOut one = run_ranks(slab, prog, 0);
    for (int ranks : {2, 3}) {
      const RunOut rows = run_ranks(slab, prog, ranks, 1, SplitAxis::Y);
      QCOMPARE(rows.splits.size(), std::string::size_type{1});
      QVERIFY(rows.splits[0].find("y rows") != std::string::npos);
      const double ek = mrwb::test::rel_rms(rows.samples, one.samples), et = mrwb::test::rel_rms(rows.truth, one.truth);
      qInfo("%s: k-space %.3g, truth %.3g", rows.splits[0].c_str(), ek, et);
      QVERIFY2(ek <= 1e-6 && et <= 1e-6, qPrintable(QString("%1 %2").arg(ek).arg(et)));
    }
  }

  // The organ slab's rows built alone (ranks split along y build only theirs): every cell as in the whole build.
  void organ_slab_by_rows() {
    const OrganSlabSpec spec{40, 36, 12, 0.5e-3, 12, 1.25e-3, "liver"};
    const CellPhantom whole = organ_slab_phantom(spec, "test slab", std::size_t{1} << 30);
    OrganSlabPlanes part = organ_slab_planes(spec, "test slab", std::size_t{1} << 30, 0, spec.nz, 10, 23);
    QVERIFY(part.u_max_m_per_s > 0);
    scale_organ_slab_flow(part.ph, organ_slab_planes(spec, "test slab", std::size_t{1} << 30, 0, spec.nz).u_max_m_per_s);
    QCOMPARE(part.ph.ny, 13);
    QVERIFY(std::abs(part.ph.y0_m - whole.y_m(10)) < 1e-12);
    const CellPhantom want = crop_phantom(whole, 0, 10, 0, whole.nx, 13, whole.nz);
    QVERIFY(part.ph.type == want.type && part.ph.PD == want.PD && part.ph.ux == want.ux && part.ph.uy == want.uy &&
            part.ph.uz == want.uz);
    int fluid = 0;
    for (auto t : want.type) fluid += t == static_cast<std::uint8_t>(CellType::Fluid);
    QVERIFY(fluid > 0);
    QVERIFY_THROWS_EXCEPTION(InputError, organ_slab_planes(spec, "test slab", std::size_t{1} << 30, 0, spec.nz, 20, 20));
  }

  // The bench's organ slab built plane by plane, as ranks that hold only their planes build it: every cell
  // as in the whole build, once the parts agree on the top speed.
  void organ_slab_by_planes() {
    const OrganSlabSpec spec{40, 36, 12, 0.5e-3, 12, 1.25e-3, "liver"};
    const CellPhantom whole = organ_slab_phantom(spec, "test slab", std::size_t{1} << 30);
    int fluid = 0;
    for (auto t : whole.type) fluid += t == static_cast<std::uint8_t>(CellType::Fluid);
    QVERIFY(fluid > 100);
    const int parts[][2] = {{0, 5}, {3, 9}, {7, 12}};
    std::vector<OrganSlabPlanes> built;
    double top = 0;
    for (const auto& p : parts) {
      built.push_back(organ_slab_planes(spec, "test slab", std::size_t{1} << 30, p[0], p[1]));
      top = std::max(top, built.back().u_max_m_per_s);
    }
    for (std::size_t k = 0; k < built.size(); ++k) {
      CellPhantom& ph = built[k].ph;
      scale_organ_slab_flow(ph, top);
      QCOMPARE(ph.nz, parts[k][1] - parts[k][0]);
      QCOMPARE(ph.flow_dt_s, whole.flow_dt_s);
      QVERIFY(std::abs(ph.z0_m - whole.z_m(parts[k][0])) < 1e-12);
      const std::size_t first = static_cast<std::size_t>(parts[k][0]) * whole.slice_size();
      int differ = 0;
      for (std::size_t i = 0; i < ph.size(); ++i) {
        const std::size_t w = first + i;
        differ += ph.type[i] != whole.type[w] || ph.PD[i] != whole.PD[w] || ph.T1_s[i] != whole.T1_s[w] ||
                  ph.ux[i] != whole.ux[w] || ph.uy[i] != whole.uy[w] || ph.uz[i] != whole.uz[w];
      }
      QCOMPARE(differ, 0);
    }
    // A part of one plane would be a 2-D slice to the discretisation: refused.
    QVERIFY_THROWS_EXCEPTION(InputError, organ_slab_planes(spec, "test slab", std::size_t{1} << 30, 4, 5));
  }

  // A stack of copies of the slab, each between parenchyma caps: built by planes as a whole, each copy the slab
  // itself, and each copy's magnetization its own: over 2 ranks (the bound through the middle copy, blood
  // crossing it) the stack's truth on one copy is that copy's run alone at its place (a sub-volume), bit for
  // bit, and its signal three times that copy's (no encoding along z).
  void organ_slab_stack_is_its_copies() {
    const OrganSlabSpec spec{40, 36, 6, 0.5e-3, 12, 1.25e-3, "liver"};
    const int T = spec.nz + 2, copies = 3, total = organ_slab_stack_planes_total(spec, copies);
    QCOMPARE(total, 24);
    OrganSlabPlanes whole = organ_slab_stack_planes(spec, copies, "test stack", std::size_t{1} << 30, 0, total);
    const OrganSlabPlanes one = organ_slab_planes(spec, "test stack", std::size_t{1} << 30, 0, spec.nz);
    QCOMPARE(whole.u_max_m_per_s, one.u_max_m_per_s);
    scale_organ_slab_flow(whole.ph, whole.u_max_m_per_s);
    const CellPhantom& st = whole.ph;
    const std::size_t plane = st.slice_size();
    QVERIFY(std::abs(st.z_m(0) + st.z_m(total - 1)) < 1e-12);  // centred on the isocentre
    auto fluid_in = [&](const CellPhantom& ph, int z) {
      int f = 0;
      for (std::size_t i = z * plane; i < (z + 1) * plane; ++i) f += ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      return f;
    };
    QVERIFY(fluid_in(one.ph, 0) > 0 && fluid_in(one.ph, spec.nz - 1) > 0);  // vessels reach the slab's faces
    for (int k = 0; k < copies; ++k) {
      QCOMPARE(fluid_in(st, k * T), 0);  // the caps
      QCOMPARE(fluid_in(st, k * T + T - 1), 0);
      int differ = 0;
      for (std::size_t i = 0; i < one.ph.size(); ++i) {
        const std::size_t w = (k * T + 1) * plane + i;
        differ += st.type[w] != one.ph.type[i] || st.PD[w] != one.ph.PD[i] || st.T1_s[w] != one.ph.T1_s[i];
      }
      QCOMPARE(differ, 0);
    }
    // A part built alone: the whole stack's planes at their place.
    OrganSlabPlanes part = organ_slab_stack_planes(spec, copies, "test stack", std::size_t{1} << 30, T, 2 * T);
    scale_organ_slab_flow(part.ph, part.u_max_m_per_s);
    QVERIFY(std::abs(part.ph.z0_m - st.z_m(T)) < 1e-12);
    QVERIFY(std::equal(part.ph.uz.begin(), part.ph.uz.end(), st.uz.begin() + static_cast<std::ptrdiff_t>(T * plane)));
    QVERIFY_THROWS_EXCEPTION(InputError, organ_slab_stack_planes(spec, copies, "test stack", std::size_t{1} << 30, 20, 25));
    // A stack's plane work from one copy (with its caps), here for a stack 3 planes out of step.
    const OrganSlabPlanes shifted = organ_slab_stack_planes(spec, copies, "test stack", std::size_t{1} << 30, 0, total, 3);
    const OrganSlabPlanes period = organ_slab_stack_planes(spec, 1, "test stack", std::size_t{1} << 30, 0, T);
    const PlaneWork built = plane_work(shifted.ph, plane), tiled = periodic_plane_work(plane_work(period.ph, plane), total, 3);
    QVERIFY(built.own == tiled.own && built.halo == tiled.halo);
    QVERIFY(built.own[0] != built.own[T - 3]);  // the shift shows: plane 0 is the copy's plane 3, plane T - 3 a cap

    // Truth under moments on every axis; k-space with no encoding along z (where the copies differ only in place).
    const SequenceProgram prog = encoded_lines(spec.nx, 6, spec.nx * spec.cell_m);
    const RunOut stack = run_ranks(st, prog, 2, 1, SplitAxis::Z);
    QCOMPARE(stack.splits.size(), std::string::size_type{1});
    QVERIFY(stack.splits[0].find("[0,12) [12,24)") != std::string::npos);  // the bound in the middle copy
    int crossing = 0;  // blood moving through the bound's planes
    for (std::size_t i = 11 * plane; i < 13 * plane; ++i) crossing += st.uz[i] != 0.f;
    QVERIFY(crossing > 0);
    const RunOut sub = run_ranks(part.ph, prog, 0);
    std::vector<cf> stack_copy(stack.truth.begin() + static_cast<std::ptrdiff_t>(T * plane),
                               stack.truth.begin() + static_cast<std::ptrdiff_t>(2 * T * plane));
    const SequenceProgram flat = encoded_lines(spec.nx, 6, spec.nx * spec.cell_m, false);
    const RunOut stack_flat = run_ranks(st, flat, 2, 1, SplitAxis::Z), sub_flat = run_ranks(part.ph, flat, 0);
    std::vector<cf> thrice(sub_flat.samples.size());
    for (std::size_t i = 0; i < thrice.size(); ++i) thrice[i] = 3.f * sub_flat.samples[i];
    const double e_truth = mrwb::test::rel_rms(stack_copy, sub.truth), e_samples = mrwb::test::rel_rms(stack_flat.samples, thrice);
    qInfo("%s, %d fluid cells in a copy's first plane: the middle copy's truth against it alone %.3g, k-space "
          "against 3 times its %.3g", stack.splits[0].c_str(), fluid_in(one.ph, 0), e_truth, e_samples);
    QVERIFY(stack_copy == sub.truth);
    QVERIFY2(e_samples <= 1e-6, qPrintable(QString::number(e_samples)));
  }

  void serial_comm_is_one_rank() {
    SerialRankComm comm;
    QCOMPARE(comm.rank(), 0);
    QCOMPARE(comm.size(), 1);
    std::vector<std::complex<double>> v = {{1, 2}, {3, 4}};
    comm.sum_in_rank_order(v);
    QCOMPARE(v[1], std::complex<double>(3, 4));
    QVERIFY(comm.all_agree(true));
    QVERIFY(!comm.all_agree(false));
    // The engine with a one-rank communicator is the plain engine, bit for bit.
    const CellPhantom ph = oblique_vessel(12, 6, true);
    const SequenceProgram prog = encoded_lines(12, 4, 12e-3);
    CpuSimulationEngine plain(1), serial(1);
    serial.set_rank_comm(&comm);
    std::vector<cf> a(48), b(48), ta(ph.size()), tb(ph.size());
    plain.run(ph, prog, a, ta, {}, {});
    serial.run(ph, prog, b, tb, {}, {});
    QVERIFY(a == b);
    QVERIFY(ta == tb);
  }

  // Ranks as threads: the moving 3-D phantom split in z slabs, a 2-D one in y rows, and the static path.
  void ranks_equal_one_process_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("nz");
    QTest::addColumn<bool>("moving");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QString>("axis");
    QTest::newRow("3-D moving, 2 ranks, z planes") << 14 << 9 << true << 2 << "z";
    QTest::newRow("3-D moving, 3 ranks, z planes") << 14 << 9 << true << 3 << "z";
    QTest::newRow("3-D moving, a plane per rank") << 10 << 4 << true << 4 << "z";
    QTest::newRow("3-D moving, 2 ranks, y rows") << 14 << 9 << true << 2 << "y";
    QTest::newRow("3-D moving, 3 ranks, y rows") << 14 << 9 << true << 3 << "y";
    QTest::newRow("3-D moving, 3 ranks, the axis chosen") << 14 << 9 << true << 3 << "auto";
    QTest::newRow("2-D moving, 3 ranks") << 16 << 1 << true << 3 << "auto";
    QTest::newRow("3-D static, 3 ranks") << 14 << 9 << false << 3 << "auto";
  }
  void ranks_equal_one_process() {
    QFETCH(int, n);
    QFETCH(int, nz);
    QFETCH(bool, moving);
    QFETCH(int, ranks);
    QFETCH(QString, axis);
    const CellPhantom ph = oblique_vessel(n, nz, moving);
    const SequenceProgram prog = encoded_lines(n, 6, n * 1e-3);
    const SplitAxis along = *parse_split_axis(axis.toStdString());
    const RunOut one = run_ranks(ph, prog, 0, 2);
    const RunOut many = run_ranks(ph, prog, ranks, 1, along);
    QCOMPARE(many.splits.size(), std::size_t{1});
    const SlabSplit split = slab_split(ph, ranks, k_transport_halo_planes, along);
    QCOMPARE(many.splits[0], decomposition_text(split));
    QVERIFY(many.splits[0].find("ranks " + std::to_string(ranks) + ": " + (nz > 1 && !split.rows_of_3d ? "z planes" : "y rows")) == 0);
    if (axis != "auto") QCOMPARE(split.rows_of_3d, axis == "y");
    const double e_samples = mrwb::test::rel_rms(many.samples, one.samples);
    const double e_truth = mrwb::test::rel_rms(many.truth, one.truth);
    qInfo("%s: relative RMS samples %.3g, truth %.3g", many.splits[0].c_str(), e_samples, e_truth);
    QVERIFY2(e_samples <= 1e-6, qPrintable(QString::number(e_samples)));
    QVERIFY2(e_truth <= 1e-6, qPrintable(QString::number(e_truth)));
    // In slabs of the grid's own planes the cells are advanced exactly as in one process: only the signal's order
    // of summation differs. (In y rows of a 3-D grid its swapped twin's cells take the axes' phases in another order.)
    if (!split.rows_of_3d) QVERIFY(many.truth == one.truth);
  }
};

QTEST_GUILESS_MAIN(TestRankDecomposition)
#include "test_rank_decomposition.moc"
