// CPU reference of the simulator, static path: with no transport every cell evolves independently, so
// cells are split into fixed chunks, each chunk plays the whole program, and the per-chunk signal sums
// (double) are added in chunk order: the result does not depend on the thread count. The per-cell
// operators are the ones the CUDA kernels use (mrwb/simulation/bloch_cell_ops.hpp). Moving phantoms go to the
// time-stepped path (cpu_engine_moving.cpp).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cell_state_chunk.hpp"
#include "event_factors.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/tr_progress.hpp"

namespace mrwb {
namespace {

using cplx = std::complex<double>;

struct ChunkRun {
  const CellPhantom& ph;
  const SequenceProgram& prog;
  const CoilMaps& coils;
  std::size_t begin, end;
  cplx* sums;  // ncoils × readouts × nx, this chunk's partial signal
  std::complex<float>* cell_truth;
  const CancelToken& cancel;
  const std::vector<int>& marks;                // tr_progress_marks of prog
  const std::function<void(int)>& on_trs;       // called with the TRs this chunk has just completed
  const CellStatePlan& plan;

  void operator()() const {
    const std::size_t n = end - begin;
    const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
    std::vector<bloch::Mag> m(n);
    for (std::size_t k = 0; k < n; ++k) m[k] = {0.f, 0.f, ph.PD[begin + k]};
    EventFactors f;
    CellStateChunk states(plan, ph, begin, end);
    int readout_index = 0, mark = 0;
    for (std::size_t ei = 0; ei < prog.events.size(); ++ei) {
      const SeqEvent& e = prog.events[ei];
      if (marks[ei] > mark) {  // the TR(s) before this event are done
        on_trs(marks[ei] - mark);
        mark = marks[ei];
      }
      if (states.on()) {
        if (plan.shift_before[ei] != 0)
          states.catch_up_and_shift(m, plan.shift_before[ei]);
        else if (e.kind == EventKind::Readout && states.diffuses())
          states.catch_up(m);  // order 0 is read with its diffusion up to the readout
        states.played(e);
      }
      switch (e.kind) {
        case EventKind::Rf: {
          if (cancel.cancelled()) return;  // polled per TR, dummy scans included
          const float ca = static_cast<float>(std::cos(e.flip_rad)), sa = static_cast<float>(std::sin(e.flip_rad));
          const float cp = static_cast<float>(std::cos(e.phase_rad)), sp = static_cast<float>(std::sin(e.phase_rad));
          if (states.on())
            states.rotate(m, epg::cell::rf_transition(ca, sa, cp, sp));
          else
            for (auto& mk : m) bloch::rf_rotate(mk, ca, sa, cp, sp);
          break;
        }
        case EventKind::Free:
          if (e.rf_centre) break;  // a mark of no length: the states shift there (done above)
          compute_event_factors(ph, e.dt_s, e.dk_x, e.dk_y, e.dk_z, begin, end, f);
          for (std::size_t k = 0; k < n; ++k)
            bloch::precess_relax(m[k], ph.PD[begin + k], f.omE1[k], f.E2[k], f.c[k], f.s[k]);
          break;
        case EventKind::Spoil:
          for (auto& mk : m) bloch::spoil(mk);
          if (states.on()) states.spoil(m);
          break;
        case EventKind::Readout: {
          compute_event_factors(ph, e.dt_s, e.dk_x, e.dk_y, e.dk_z, begin, end, f);
          for (int j = 0; j < e.n_samples; ++j) {
            if (cancel.cancelled()) return;  // per sample: a large chunk's readout can take long
            const std::size_t sample = static_cast<std::size_t>(readout_index) * prog.nx + j;
            if (coils.uniform()) {
              double sx = 0, sy = 0;
              for (std::size_t k = 0; k < n; ++k) {
                sx += m[k].Mx;
                sy += m[k].My;
              }
              sums[sample] += cplx(sx, sy);
            } else {
              for (int c = 0; c < coils.ncoils; ++c) {
                const std::complex<float>* C = coils.sens.data() + static_cast<std::size_t>(c) * ph.size() + begin;
                double sx = 0, sy = 0;
                for (std::size_t k = 0; k < n; ++k) {
                  sx += C[k].real() * m[k].Mx - C[k].imag() * m[k].My;
                  sy += C[k].real() * m[k].My + C[k].imag() * m[k].Mx;
                }
                sums[c * per_coil + sample] += cplx(sx, sy);
              }
            }
            if (j == e.truth_sample)
              for (std::size_t k = 0; k < n; ++k) cell_truth[begin + k] = {m[k].Mx, m[k].My};
            for (std::size_t k = 0; k < n; ++k)
              bloch::precess_relax(m[k], ph.PD[begin + k], f.omE1[k], f.E2[k], f.c[k], f.s[k]);
          }
          ++readout_index;
          break;
        }
      }
    }
    if (!marks.empty() && marks.back() > mark) on_trs(marks.back() - mark);
  }
};

}  // namespace

bool phantom_moves(const CellPhantom& ph) {
  if (ph.flow_dt_s <= 0) return false;
  if (ph.whole_courant_speed > 0) return true;  // a slab of a moving phantom steps with it
  // A parallel search (the liver slab's first moving cell lies tens of millions of cells in); every
  // part stops once any part has found one.
  const float *ux = ph.ux.data(), *uy = ph.uy.data(), *uz = ph.uz.data();
  const std::size_t n = ph.ux.size(), nz = ph.uz.size();
  std::atomic<bool> found{false};
  auto search = [&](std::size_t size, auto moves) {
    for_each_range(size, range_parts(size), [&](int, std::size_t begin, std::size_t end) {
      for (std::size_t i0 = begin; i0 < end && !found.load(std::memory_order_relaxed); i0 += 65536)
        for (std::size_t i = i0; i < std::min(end, i0 + 65536); ++i)
          if (moves(i)) {
            found.store(true, std::memory_order_relaxed);
            return;
          }
    });
  };
  search(n, [&](std::size_t i) { return ux[i] != 0.f || uy[i] != 0.f; });
  if (!found) search(nz, [&](std::size_t i) { return uz[i] != 0.f; });
  return found;
}

double max_courant_speed(const CellPhantom& ph) {
  if (ph.whole_courant_speed > 0) return ph.whole_courant_speed;
  // A parallel pass: called at every set-up, over 70 M cells for the liver slab.
  const float *ux = ph.ux.data(), *uy = ph.uy.data(), *uz = ph.uz.size() == ph.size() ? ph.uz.data() : nullptr;
  const std::uint8_t* type = ph.type.data();
  const int parts = range_parts(ph.size());
  std::vector<float> part_max(static_cast<std::size_t>(parts), 0.f);
  for_each_range(ph.size(), parts, [&](int p, std::size_t begin, std::size_t end) {
    // |ux| + (|uy| + |uz|) in float: the same for a grid with y and z swapped (swap_y_z: ranks split in y
    // rows), so both take the same time steps.
    float u = 0.f;
    for (std::size_t i = begin; i < end; ++i)
      if (type[i] == static_cast<std::uint8_t>(CellType::Fluid))
        u = std::max(u, std::abs(ux[i]) + (std::abs(uy[i]) + (uz ? std::abs(uz[i]) : 0.f)));
    part_max[static_cast<std::size_t>(p)] = u;
  });
  return static_cast<double>(*std::max_element(part_max.begin(), part_max.end()));
}

CpuSimulationEngine::CpuSimulationEngine(int threads) { set_threads(threads); }

void CpuSimulationEngine::set_threads(int threads) {
  threads_ = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void CpuSimulationEngine::run(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                              std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                              const ProgressFn& progress, const CancelToken& cancel) {
  if (!coils.uniform() && coils.sens.size() != static_cast<std::size_t>(coils.ncoils) * ph.size())
    throw std::invalid_argument("coil maps do not match the phantom");
  if (!ph.uz.empty() && ph.uz.size() != ph.size()) throw std::invalid_argument("uz does not match the phantom");
  std::fill(cell_truth.begin(), cell_truth.end(), std::complex<float>{});
  held_cell_states_.clear();
  if (play_decomposed(ph, prog, coils, samples, cell_truth, progress, cancel)) return;
  // A static phantom's cells never exchange magnetization, so each plays every event in closed form
  // (exact: no sub-steps, a Free interval is one rotation and one relaxation). A moving phantom's
  // transport couples neighbours, so the whole grid is advanced in Courant sub-steps together
  // (Jurczuk et al. 2016 Eq. 1). The CUDA engine splits the two by cell instead (cuda_simulation_engine.cu).
  if (force_time_stepping_ || phantom_moves(ph)) {
    if (prog.cell_states)
      throw InputError("sequence.fidelity.spoiling: \"states\" (dephasing within each cell) runs for still phantoms "
                       "only so far (allowed for moving blood: \"ideal\", \"gradients\")");
    run_time_stepped(ph, prog, coils, samples, cell_truth, progress, cancel);
  } else {
    run_static(ph, prog, coils, samples, cell_truth, progress, cancel);
  }
}

void CpuSimulationEngine::run_static(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                                     std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                                     const ProgressFn& progress, const CancelToken& cancel) {
  // This rank's cells (all of them in one process): no transport, so no halo.
  const SlabSplit split = rank_split(ph);
  const int rank = decomposed() ? comm_->rank() : 0;
  const std::size_t first = split.begin(rank) * split.plane_cells;
  const std::size_t cells = split.end(rank) * split.plane_cells - first;
  const std::size_t n_samples = static_cast<std::size_t>(coils.ncoils) * prog.readouts * prog.nx;
  const CellStatePlan plan = plan_cell_states(prog, ph);
  if (prog.cell_states) held_cell_states_ = plan.summary();
  // Chunk size fixed by the problem, not by the thread count (determinism); at most 64 chunks, and with cell
  // states at most 64 MiB of states per chunk.
  std::size_t chunk = std::max<std::size_t>(4096, (cells + 63) / 64);
  if (plan.active) chunk = std::min(chunk, std::max<std::size_t>(256, (std::size_t{64} << 20) / plan.bytes_per_cell()));
  const std::size_t n_chunks = (cells + chunk - 1) / chunk;
  constexpr double kPartialBudget = 8.0 * (1 << 30);
  if (plan.active && 16.0 * static_cast<double>(n_chunks) * static_cast<double>(n_samples) > kPartialBudget)
    throw InputError("sequence.fidelity.spoiling: \"states\" on " + std::to_string(cells) + " cells and " +
                     std::to_string(n_samples) + " samples needs " + std::to_string(n_chunks) +
                     " partial sums of the signal, over 8 GiB (allowed: fewer cells or samples, or \"ideal\")");
  std::vector<cplx> partial(n_chunks * n_samples, cplx{});

  // Progress per TR: TRs completed by all chunks together; TR k is reported once all chunks' share of
  // TRs adds up to k whole TRs.
  const std::vector<int> marks = tr_progress_marks(prog);
  const int total = marks.empty() ? 0 : marks.back();
  std::atomic<std::size_t> next{0}, trs_done{0};
  std::mutex progress_mutex;
  int reported = 0;
  const std::function<void(int)> on_trs = [&](int k) {
    const std::size_t d = trs_done += static_cast<std::size_t>(k);
    if (!progress) return;
    const int tr = static_cast<int>(d / n_chunks);
    std::lock_guard lock(progress_mutex);
    while (reported < tr) progress(static_cast<double>(++reported) / total, "simulate");
  };
  auto worker = [&] {
    for (;;) {
      const std::size_t ci = next++;
      if (ci >= n_chunks || cancel.cancelled()) return;
      ChunkRun run{ph, prog, coils, first + ci * chunk, first + std::min(cells, (ci + 1) * chunk), partial.data() + ci * n_samples,
                   cell_truth.data(), cancel, marks, on_trs, plan};
      run();
    }
  };
  std::vector<std::thread> pool;
  const int t = static_cast<int>(std::min<std::size_t>(threads_, n_chunks));
  for (int i = 1; i < t; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  cancel.throw_if_cancelled();

  if (decomposed()) {
    std::vector<cplx> sums(n_samples);
    for (std::size_t j = 0; j < n_samples; ++j)
      for (std::size_t ci = 0; ci < n_chunks; ++ci) sums[j] += partial[ci * n_samples + j];
    reduce_samples(sums, samples);
    comm_->gather_to_root(cell_truth, first, first + cells);
    return;
  }
  for (std::size_t j = 0; j < n_samples; ++j) {
    cplx acc{};
    for (std::size_t ci = 0; ci < n_chunks; ++ci) acc += partial[ci * n_samples + j];
    samples[j] = std::complex<float>(static_cast<float>(acc.real()), static_cast<float>(acc.imag()));
  }
}

}  // namespace mrwb
