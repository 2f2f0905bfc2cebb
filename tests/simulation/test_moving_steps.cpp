// The time-stepped (moving) cells' tables, host side: the step table plays the program (every sample
// once, back-to-back RF / spoil as zero-length steps, TR marks), and the face codes from which the
// per-step kernel's transport stencils are built name exactly the neighbours, open faces and walls of
// transport_cell_ops.hpp's gather (2-D tube with and without vessel ends inside the grid, 3-D slab).
#include <QTest>

#include <stdexcept>

#include "fluid_test_support.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/internal/moving_step_table.hpp"
#include "mrwb/simulation/internal/transport_stencil.hpp"
#include "mrwb/simulation/tr_progress.hpp"

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

}  // namespace

class TestMovingSteps : public QObject {
  Q_OBJECT
 private slots:
  void stepTableMatchesTheProgram() {
    const CellPhantom ph = tube_2d(94, 19);
    const SequenceProgram prog = short_ge(8, 10e-3);
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

  // Face codes against an independent walk of the grid: the rank of a fluid neighbour, open across the
  // grid edge or at a vessel end's non-fluid face, wall elsewhere; built in one range of ranks or several on
  // threads (each range starts its sweeps by a binary search).
  void faceRanksMatchTheGrid() {
    std::vector<CellPhantom> cases = {tube_2d(94, 19, false), tube_2d(94, 19, true), vessel_slab(60, 60, 14, 1e-3)};
    for (const CellPhantom& ph : cases) {
      const auto fluid = fluid_cells(ph);
      const int F = ph.nz > 1 ? 6 : 4;
      const bool ends = ph.open_end.size() == ph.size();
      std::vector<long> rank(ph.size(), -1);
      for (std::size_t r = 0; r < fluid.size(); ++r) rank[fluid[r]] = static_cast<long>(r);
      for (int parts : {1, 3, 7}) {
      const auto ranks = fluid_face_ranks(ph, fluid, parts);
      QCOMPARE(ranks.size(), fluid.size() * F);
      std::size_t open = 0, wall = 0, differ = 0;
      for (std::size_t r = 0; r < fluid.size(); ++r)
        for (int f = 0; f < F; ++f) {
          const std::size_t i = fluid[r];
          const long j = neighbour(ph, i, f);
          const std::int32_t expect = j >= 0 && ph.type[j] == k_fluid ? static_cast<std::int32_t>(rank[j])
                                      : j < 0 || (ends && ph.open_end[i]) ? k_face_open
                                                                           : k_face_wall;
          const std::int32_t code = ranks[r * F + f];
          differ += code != expect;
          open += code == k_face_open;
          wall += code == k_face_wall;
        }
      qInfo("%dx%dx%d in %d parts: %zu fluid cells, %zu face codes (%zu open, %zu wall), %zu differ", ph.nx, ph.ny,
            ph.nz, parts, fluid.size(), ranks.size(), open, wall, differ);
      QCOMPARE(differ, std::size_t{0});
      QVERIFY(open > 0 && wall > 0);
      }
    }
    const CellPhantom ph = tube_2d(94, 19);
    for (int parts : {1, 4}) {
      auto missing = fluid_cells(ph);  // the stencils need every fluid cell (the gather reads them all)
      missing.erase(missing.begin() + static_cast<long>(missing.size()) * 3 / 4);  // in the last part of 4
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fluid_face_ranks(ph, missing, parts));
      auto swapped = fluid_cells(ph);
      std::swap(swapped[swapped.size() - 2], swapped[swapped.size() - 1]);
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fluid_face_ranks(ph, swapped, parts));
      auto solid = fluid_cells(ph);
      solid.back() = static_cast<std::uint32_t>(ph.size());
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fluid_face_ranks(ph, solid, parts));
    }
  }
};

QTEST_GUILESS_MAIN(TestMovingSteps)
#include "test_moving_steps.moc"
