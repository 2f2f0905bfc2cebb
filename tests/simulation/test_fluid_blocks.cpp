// Temporal blocking of the time-stepped fluid cells, host side: the step table, the region
// tables of build_fluid_blocks (every fluid cell interior of one part, halo = the K-hop neighbourhood,
// face codes pointing at the right entries) and the CPU twin of the blocked kernel against the plain
// time-stepped CPU engine (2-D tube, 3-D vessel slab, K = 1, 3, 8, many parts, 2 coils).
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <map>
#include <set>
#include <unordered_map>

#include "fluid_test_support.hpp"
#include "mrwb/simulation/fluid_blocks.hpp"

using namespace mrwb;
using namespace mrwb::fluid_test;

namespace {

// Neighbour of cell i through face f (+x, −x, +y, −y, +z, −z) or −1 across the grid edge.
long neighbour(const CellPhantom& ph, std::size_t i, int f) {
  const int ix = static_cast<int>(i % ph.nx), iy = static_cast<int>(i / ph.nx % ph.ny),
            iz = static_cast<int>(i / ph.slice_size());
  int d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  const int jx = ix + d[f][0], jy = iy + d[f][1], jz = iz + d[f][2];
  if (jx < 0 || jx >= ph.nx || jy < 0 || jy >= ph.ny || jz < 0 || jz >= ph.nz) return -1;
  return (static_cast<long>(jz) * ph.ny + jy) * ph.nx + jx;
}

// Every invariant of the region tables (fluid_blocks.hpp); QVERIFY-style failures via the return.
void check_regions(const CellPhantom& ph, const FluidBlocks& b, int K, std::size_t max_interior,
                   std::size_t max_region) {
  const auto fluid = fluid_cells(ph);
  const int F = ph.nz > 1 ? 6 : 4;
  QCOMPARE(b.steps, K);
  QCOMPARE(b.faces, F);
  QCOMPARE(b.hop_end.size(), b.parts() * (K + 1));
  QCOMPARE(b.face.size(), b.cell.size() * F);
  QCOMPARE(static_cast<std::size_t>(b.region_begin.back()), b.cell.size());
  const bool ends = ph.open_end.size() == ph.size();
  std::vector<int> owner(ph.size(), 0);
  std::size_t largest = 0;
  for (std::size_t p = 0; p < b.parts(); ++p) {
    const std::uint32_t r0 = b.region_begin[p], size = b.region_begin[p + 1] - r0;
    const std::uint32_t* he = b.hop_end.data() + p * (K + 1);
    QVERIFY(he[0] >= 1 && he[0] <= max_interior);
    QVERIFY(size <= max_region);
    QCOMPARE(he[K], size);
    largest = std::max<std::size_t>(largest, size);
    // Entry hops from hop_end; each hop's entries ascending in global index.
    std::vector<int> hop(size);
    for (int h = 0; h <= K; ++h) {
      const std::uint32_t from = h ? he[h - 1] : 0;
      QVERIFY(he[h] >= from);
      for (std::uint32_t e = from; e < he[h]; ++e) {
        hop[e] = h;
        if (e > from) QVERIFY(b.cell[r0 + e] > b.cell[r0 + e - 1]);
      }
    }
    for (std::uint32_t e = 0; e < he[0]; ++e) ++owner[b.cell[r0 + e]];
    // Independent multi-source BFS from the interior through fluid faces: the region must be exactly
    // the cells within K hops, each at its hop.
    std::unordered_map<long, int> dist;
    std::vector<long> frontier;
    for (std::uint32_t e = 0; e < he[0]; ++e) {
      dist[b.cell[r0 + e]] = 0;
      frontier.push_back(b.cell[r0 + e]);
    }
    for (int h = 1; h <= K; ++h) {
      std::vector<long> next;
      for (long i : frontier)
        for (int f = 0; f < F; ++f) {
          const long j = neighbour(ph, static_cast<std::size_t>(i), f);
          if (j >= 0 && ph.type[j] == k_fluid && !dist.count(j)) {
            dist[j] = h;
            next.push_back(j);
          }
        }
      frontier.swap(next);
    }
    QCOMPARE(dist.size(), static_cast<std::size_t>(size));
    std::unordered_map<long, int> local;
    for (std::uint32_t e = 0; e < size; ++e) {
      const auto it = dist.find(b.cell[r0 + e]);
      QVERIFY(it != dist.end());
      QCOMPARE(it->second, hop[e]);
      local[b.cell[r0 + e]] = static_cast<int>(e);
    }
    // Face codes: the entry that IS the neighbour, open exactly where the gather exchanges with the
    // outside, wall elsewhere (a fluid neighbour outside the region only at hop K).
    for (std::uint32_t e = 0; e < size; ++e) {
      const std::size_t i = b.cell[r0 + e];
      for (int f = 0; f < F; ++f) {
        const int code = b.face[(static_cast<std::size_t>(r0) + e) * F + f];
        const long j = neighbour(ph, i, f);
        if (j >= 0 && ph.type[j] == k_fluid) {
          if (local.count(j)) {
            QCOMPARE(code, local[j]);
            QCOMPARE(static_cast<long>(b.cell[r0 + code]), j);
          } else {
            QCOMPARE(code, static_cast<int>(k_face_wall));
            QCOMPARE(hop[e], K);
          }
        } else if (j < 0 || (ends && ph.open_end[i])) {
          QCOMPARE(code, static_cast<int>(k_face_open));
        } else {
          QCOMPARE(code, static_cast<int>(k_face_wall));
        }
      }
    }
  }
  QCOMPARE(b.max_region, largest);
  for (std::size_t i = 0; i < ph.size(); ++i) QCOMPARE(owner[i], ph.type[i] == k_fluid ? 1 : 0);
  std::size_t interior = 0;
  for (std::size_t p = 0; p < b.parts(); ++p) interior += b.interior(p);
  QCOMPARE(interior, fluid.size());
}

Run run_twin(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils, const FluidBlocks& blocks,
             const std::vector<FluidStep>& table) {
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  std::vector<float> mx(ph.size(), 0.f), my(ph.size(), 0.f), mz(ph.PD);
  std::vector<cd> s(per_coil * coils.ncoils);
  std::vector<cf> t(ph.size());
  run_fluid_blocks_cpu(ph, blocks, table, coils.sens, coils.ncoils, per_coil, mx, my, mz, s, t);
  mx.insert(mx.end(), my.begin(), my.end());
  mx.insert(mx.end(), mz.begin(), mz.end());
  return {s, to_cd(t), mx};
}

}  // namespace

class TestFluidBlocks : public QObject {
  Q_OBJECT
 private slots:
  void stepTableMatchesTheProgram() {
    const CellPhantom ph = tube_2d(94, 19);
    const SequenceProgram prog = short_ge(8, 94e-4);
    std::vector<std::pair<long, int>> trs_at;
    const auto table = fluid_step_table(ph, prog, trs_at);
    long timed = 0, zero = 0, truths = 0;
    std::vector<int> seen(static_cast<std::size_t>(prog.readouts) * prog.nx, 0);
    for (const FluidStep& s : table) {
      if (s.dt_s > 0) ++timed;
      else {
        ++zero;
        QVERIFY(s.op != 0);  // only a back-to-back op makes a zero-length step
      }
      if (s.sample >= 0) {
        QVERIFY(s.sample < static_cast<int>(seen.size()));
        ++seen[s.sample];
      }
      truths += s.truth;
      QCOMPARE(s.scale, static_cast<float>(s.dt_s / ph.flow_dt_s));
    }
    QCOMPARE(timed, time_step_count(ph, prog));
    long back_to_back = 0;  // instantaneous ops directly after another one
    for (std::size_t e = 1; e < prog.events.size(); ++e) {
      auto op = [&](std::size_t k) { return prog.events[k].kind == EventKind::Rf || prog.events[k].kind == EventKind::Spoil; };
      back_to_back += op(e) && op(e - 1);
    }
    QCOMPARE(zero, back_to_back);
    for (int v : seen) QCOMPARE(v, 1);  // every coil-0 sample index 0 .. readouts·nx − 1 once
    long truth_readouts = 0;
    for (const SeqEvent& e : prog.events) truth_readouts += e.kind == EventKind::Readout && e.truth_sample >= 0;
    QCOMPARE(truths, truth_readouts);
    QVERIFY(truths >= 1);
    const std::vector<int> marks = tr_progress_marks(prog);
    QVERIFY(!trs_at.empty());
    QCOMPARE(trs_at.back().second, marks.back());
    for (std::size_t k = 1; k < trs_at.size(); ++k) QVERIFY(trs_at[k].first >= trs_at[k - 1].first);
    qInfo("step table: %zu steps (%ld timed = time_step_count, %ld zero-length), %zu TR marks", table.size(), timed,
          zero, trs_at.size());
  }

  void regionsOf2dTube() {
    for (bool inside : {false, true}) {
      const CellPhantom ph = tube_2d(94, 19, inside);
      const auto fluid = fluid_cells(ph);
      for (int K : {1, 3, 8}) {
        const FluidBlocks b = build_fluid_blocks(ph, fluid, K, 64, 2048);
        check_regions(ph, b, K, 64, 2048);
        if (QTest::currentTestFailed()) return;
        qInfo("2-D tube%s K = %d: %zu parts, largest region %zu, redundancy %.3f", inside ? " (open ends)" : "", K,
              b.parts(), b.max_region, b.redundancy());
        QVERIFY(b.redundancy() >= 1.0);
      }
    }
    // A cap on the region splits parts further; K = 1 with one cell never exceeds 5 entries.
    const CellPhantom ph = tube_2d(94, 19);
    const FluidBlocks b = build_fluid_blocks(ph, fluid_cells(ph), 4, 1000, 120);
    check_regions(ph, b, 4, 1000, 120);
    QVERIFY(b.max_region <= 120);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, build_fluid_blocks(ph, fluid_cells(ph), 8, 64, 40));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, build_fluid_blocks(ph, fluid_cells(ph), 2, 64, 40000));
    auto missing = fluid_cells(ph);  // the tables need every fluid cell (the gather reads them all)
    missing.erase(missing.begin() + 100);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, build_fluid_blocks(ph, missing, 2, 64, 4096));
  }

  void regionsOf3dSlab() {
    const CellPhantom ph = vessel_slab(60, 60, 14, 1e-3);
    const auto fluid = fluid_cells(ph);
    QVERIFY(fluid.size() > 500);
    for (int K : {1, 3, 8}) {
      const FluidBlocks b = build_fluid_blocks(ph, fluid, K, 128, 8192);
      check_regions(ph, b, K, 128, 8192);
      if (QTest::currentTestFailed()) return;
      qInfo("3-D slab 60x60x14 (%zu fluid cells) K = %d: %zu parts, largest region %zu, redundancy %.3f", fluid.size(),
            K, b.parts(), b.max_region, b.redundancy());
    }
  }

  // The face-rank table (fluid_face_ranks, from which the per-step kernel's stencils are built) equals
  // the blocked tables with one part that holds every fluid cell at K = 1 (region-local index = rank
  // there): 2-D tube with and without vessel ends inside the grid, and the 3-D slab.
  void faceRanksMatchOnePartTables() {
    std::vector<CellPhantom> cases = {tube_2d(94, 19, false), tube_2d(94, 19, true), vessel_slab(60, 60, 14, 1e-3)};
    for (const CellPhantom& ph : cases) {
      const auto fluid = fluid_cells(ph);
      const FluidBlocks one = build_fluid_blocks(ph, fluid, 1, fluid.size(), fluid.size());
      QCOMPARE(one.parts(), std::size_t{1});
      const std::vector<std::int32_t> ranks = fluid_face_ranks(ph, fluid);
      QCOMPARE(ranks.size(), one.face.size());
      std::size_t open = 0, wall = 0, differ = 0;
      for (std::size_t k = 0; k < ranks.size(); ++k) {
        differ += ranks[k] != static_cast<std::int32_t>(one.face[k]);
        open += ranks[k] == k_face_open;
        wall += ranks[k] == k_face_wall;
      }
      qInfo("%dx%dx%d: %zu fluid cells, %zu face codes (%zu open, %zu wall), %zu differ", ph.nx, ph.ny, ph.nz,
            fluid.size(), ranks.size(), open, wall, differ);
      QCOMPARE(differ, std::size_t{0});
      QVERIFY(open > 0 && wall > 0);
    }
  }

  // The twin must reproduce the plain time-stepped engine (float sin/cos of the turn fraction vs the
  // engine's factors: rounding only), for any K and any partition.
  void twinMatchesEngine2d() {
    for (bool inside : {false, true}) {
      const CellPhantom ph = tube_2d(94, 19, inside);
      const SequenceProgram prog = short_ge(8, 94e-4);
      const CoilMaps one;
      const Run ref = run_engine(ph, prog, one);
      std::vector<std::pair<long, int>> trs_at;
      const auto table = fluid_step_table(ph, prog, trs_at);
      // Per cell the twin does the same float operations for any K and partition: truth bit for bit.
      const Run single = run_twin(ph, prog, one, build_fluid_blocks(ph, fluid_cells(ph), 1, 1 << 20, 32767), table);
      for (int K : inside ? std::vector<int>{3} : std::vector<int>{1, 3, 8}) {
        const FluidBlocks b = build_fluid_blocks(ph, fluid_cells(ph), K, 64, 4096);
        const Run twin = run_twin(ph, prog, one, b, table);
        QVERIFY(twin.truth == single.truth);
        QVERIFY(twin.state == single.state);  // K = 8: an odd number of launches, the final copy-back
        const double dk = rel_l2(twin.samples, ref.samples), dt = rel_l2(twin.truth, ref.truth);
        qInfo("2-D tube%s K = %d, %zu parts, %zu steps: k-space rel L2 %.3g, truth rel L2 %.3g",
              inside ? " (open ends)" : "", K, b.parts(), table.size(), dk, dt);
        QVERIFY(dk < 1e-5);
        QVERIFY(dt < 1e-5);
      }
    }
  }

  void twinMatchesEngineTwoCoils() {
    const CellPhantom ph = tube_2d(94, 19);
    const SequenceProgram prog = short_ge(8, 94e-4);
    const CoilMaps coils = two_coils(ph);
    const Run ref = run_engine(ph, prog, coils);
    std::vector<std::pair<long, int>> trs_at;
    const auto table = fluid_step_table(ph, prog, trs_at);
    const FluidBlocks b = build_fluid_blocks(ph, fluid_cells(ph), 3, 64, 4096);
    const Run twin = run_twin(ph, prog, coils, b, table);
    const std::size_t per_coil = ref.samples.size() / 2;
    for (int c = 0; c < 2; ++c) {
      const std::vector<cd> a(twin.samples.begin() + c * per_coil, twin.samples.begin() + (c + 1) * per_coil);
      const std::vector<cd> r(ref.samples.begin() + c * per_coil, ref.samples.begin() + (c + 1) * per_coil);
      const double d = rel_l2(a, r);
      qInfo("2-D tube, 2 coils, K = 3: coil %d k-space rel L2 %.3g", c, d);
      QVERIFY(d < 1e-5);
    }
    const double dt = rel_l2(twin.truth, ref.truth);
    QVERIFY(dt < 1e-5);
    // The maps matter: coil 1 differs from coil 0 by far more than rounding.
    const std::vector<cd> c0(ref.samples.begin(), ref.samples.begin() + per_coil);
    const std::vector<cd> c1(ref.samples.begin() + per_coil, ref.samples.end());
    QVERIFY(rel_l2(c1, c0) > 0.1);
  }

  void twinMatchesEngine3d() {
    const CellPhantom ph = vessel_slab(60, 60, 14, 1e-3);
    const SequenceProgram prog = short_ge(8, 60e-3, true);
    const CoilMaps one;
    const Run ref = run_engine(ph, prog, one);
    std::vector<std::pair<long, int>> trs_at;
    const auto table = fluid_step_table(ph, prog, trs_at);
    for (int K : {1, 3, 8}) {
      const FluidBlocks b = build_fluid_blocks(ph, fluid_cells(ph), K, 128, 16384);
      const Run twin = run_twin(ph, prog, one, b, table);
      const double dk = rel_l2(twin.samples, ref.samples), dt = rel_l2(twin.truth, ref.truth);
      qInfo("3-D slab K = %d, %zu parts, %zu steps: k-space rel L2 %.3g, truth rel L2 %.3g", K, b.parts(),
            table.size(), dk, dt);
      QVERIFY(dk < 1e-5);
      QVERIFY(dt < 1e-5);
    }
  }

  // A planted error must show: the transport played at twice its Courant scale.
  void plantedErrorFails() {
    const CellPhantom ph = tube_2d(94, 19);
    const SequenceProgram prog = short_ge(8, 94e-4);
    const CoilMaps one;
    const Run ref = run_engine(ph, prog, one);
    std::vector<std::pair<long, int>> trs_at;
    const auto table = fluid_step_table(ph, prog, trs_at);
    const FluidBlocks b = build_fluid_blocks(ph, fluid_cells(ph), 3, 64, 4096);
    // Doubled: past the Courant limit (Σ|u|·scale up to 1.7), the twin blows up (NaN must fail too).
    for (float factor : {2.f, 1.15f}) {
      auto planted = table;
      for (FluidStep& s : planted) s.scale *= factor;
      const Run twin = run_twin(ph, prog, one, b, planted);
      const double dk = rel_l2(twin.samples, ref.samples);
      qInfo("planted error (scale x%.2f): k-space rel L2 %.3g", factor, dk);
      QVERIFY(!(dk <= 1e-3));
    }
  }

  // The build must stay well under a second at the bench slab's size: 350,000-odd fluid cells (straight
  // vessels of radius 3 cells) in a 1000 × 1000 × 70 grid.
  void buildIsFastAtBenchSize() {
    CellPhantom ph;
    ph.nx = 1000;
    ph.ny = 1000;
    ph.nz = 70;
    ph.cell_size_m = 2e-4;
    ph.type.assign(ph.size(), static_cast<std::uint8_t>(CellType::Stationary));
    auto mark = [&](int ix, int iy, int iz) {
      if (ix >= 0 && ix < ph.nx && iy >= 0 && iy < ph.ny && iz >= 0 && iz < ph.nz)
        ph.type[(static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix] = k_fluid;
    };
    for (int v = 0; v < 13; ++v) {
      const int c = 40 + v * 70, zc = 15 + (v * 17) % 40;
      for (int a = -3; a <= 3; ++a)
        for (int bb = -3; bb <= 3; ++bb) {
          if (a * a + bb * bb > 9) continue;
          for (int t = 0; t < 1000; ++t) v < 8 ? mark(t, c + a, zc + bb) : mark(c + a, t, zc + bb);
        }
    }
    const auto fluid = fluid_cells(ph);
    QVERIFY(fluid.size() > 300000);
    for (int K : {4, 8, 16}) {
      const auto t0 = std::chrono::steady_clock::now();
      const FluidBlocks b = build_fluid_blocks(ph, fluid, K, 256, 8192);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      qInfo("bench-size build: %zu fluid cells in 1000x1000x70, K = %d, interior <= 256: %.3f s, %zu parts, "
            "largest region %zu, redundancy %.3f",
            fluid.size(), K, s, b.parts(), b.max_region, b.redundancy());
      QVERIFY(s < 5.0);  // generous on a loaded 2-core runner; the figure above is the one to read
    }
  }
};

QTEST_GUILESS_MAIN(TestFluidBlocks)
#include "test_fluid_blocks.moc"
