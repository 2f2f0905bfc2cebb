// CPU reference of the simulator, time-stepped path (moving phantoms): every step applies Eq. 1 of
// Jurczuk et al. 2016, M(t+Δt) = A_MRI · [M + ΔM_F], to all cells, reading the old state and writing a second
// buffer (no step reads what it writes). Rows (ny·nz of them in 3-D, row r = iz·ny + iy) are split into
// fixed blocks; threads meet at a barrier
// after each step, whose completion adds the blocks' signal sums in block order (deterministic for any
// thread count), swaps the buffers and polls cancellation.
// As one rank of a slab decomposition (rank_decomposition.hpp) the process holds its slab's planes and
// the halo planes beside them, advances its own rows only, and the barrier's completion also refreshes
// the halo planes of the buffer the next step reads; the signal's partial sums stay in double until
// they are summed over the ranks in rank order.
#include <algorithm>
#include <barrier>
#include <cmath>
#include <thread>
#include <vector>

#include "event_factors.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/internal/moving_step_table.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/tr_progress.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"
#include "mrwb/simulation/transport_limited_ops.hpp"

namespace mrwb {
namespace {

using cplx = std::complex<double>;


}  // namespace

namespace {
constexpr std::size_t k_cells_per_thread_min = 16384;
}  // namespace

void CpuSimulationEngine::run_time_stepped(const CellPhantom& ph, const SequenceProgram& prog,
                                           const CoilMaps& coils, std::span<std::complex<float>> samples,
                                           std::span<std::complex<float>> cell_truth, const ProgressFn& progress,
                                           const CancelToken& cancel) {
  const int nx = ph.nx, ny = ph.ny;
  const std::size_t n = ph.size();
  const float* uz = ph.uz.size() == n ? ph.uz.data() : nullptr;
  // Rows [row_lo, row_hi) are this rank's (all of them in one process), [held_lo, held_hi) with its halo;
  // the buffers hold the held rows, the local grid is held_rows · nx cells (ny_l × nz_l rows).
  const SlabSplit split = rank_split(ph);
  const int rank = decomposed() ? comm_->rank() : 0;
  const int plane_rows = split.axis == 2 ? ny : 1;
  const int row_lo = split.begin(rank) * plane_rows, row_hi = split.end(rank) * plane_rows;
  const int held_lo = split.held_begin(rank) * plane_rows, held_hi = split.held_end(rank) * plane_rows;
  const int rows = row_hi - row_lo;
  const std::size_t base = static_cast<std::size_t>(held_lo) * nx;  // global index of local cell 0
  const std::size_t n_held = static_cast<std::size_t>(held_hi - held_lo) * nx;
  const int ny_l = split.axis == 2 ? ny : held_hi - held_lo, nz_l = split.axis == 2 ? (held_hi - held_lo) / ny : 1;
  const float *ux_l = ph.ux.data() + base, *uy_l = ph.uy.data() + base, *uz_l = uz ? uz + base : nullptr;
  const std::uint8_t* type_l = ph.type.data() + base;
  const float* PD_l = ph.PD.data() + base;
  const std::uint8_t* open_end_l = ph.open_end.size() == n ? ph.open_end.data() + base : nullptr;
  const int ncoils = coils.ncoils;
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  const double dt_cfl = courant_dt_s(ph);  // 0: no limit
  auto substeps = [&](double dt) { return courant_substeps(dt, dt_cfl); };
  const bool moving = dt_cfl > 0;

  std::vector<float> buf[2][3];
  for (auto& b : buf)
    for (auto& v : b) v.assign(n_held, 0.f);
  std::copy_n(PD_l, n_held, buf[0][2].begin());  // M = PD·z
  int cur = 0;
  std::vector<float> c(n_held), s(n_held), omE1(n_held), E2(n_held);
  std::vector<cplx> rank_sums(decomposed() ? ncoils * per_coil : 0);  // this rank's signal, summed over ranks at the end
  // The halo planes of buffer b from the neighbours' slabs.
  auto exchange_halos = [&](int b) {
    const std::size_t h = static_cast<std::size_t>(split.halo) * plane_rows * nx;
    const std::size_t own_lo = static_cast<std::size_t>(row_lo - held_lo) * nx, own_hi = static_cast<std::size_t>(row_hi - held_lo) * nx;
    const bool lower = rank > 0, upper = rank + 1 < split.ranks;
    RankComm::HaloField fields[3];
    for (int k = 0; k < 3; ++k) {
      float* m = buf[b][k].data();
      fields[k] = {lower ? std::span<const float>(m + own_lo, h) : std::span<const float>{},
                   upper ? std::span<const float>(m + own_hi - h, h) : std::span<const float>{},
                   lower ? std::span<float>(m + own_lo - h, h) : std::span<float>{},
                   upper ? std::span<float>(m + own_hi, h) : std::span<float>{}};
    }
    comm_->exchange_halos(fields);
  };

  // Fixed row blocks (not per thread): the reduction order does not depend on the thread count.
  const int block_rows = std::max(1, rows / 64);
  const int n_blocks = (rows + block_rows - 1) / block_rows;
  std::vector<cplx> partial(static_cast<std::size_t>(n_blocks) * ncoils);
  // Every step ends at a barrier; below k_cells_per_thread_min cells a thread's share of a step costs less
  // than waking it (the futex hand-off dominated a 64^2-cell phase-contrast run: 40 % in the kernel).
  const int by_size = static_cast<int>(std::max<std::size_t>(1, static_cast<std::size_t>(rows) * nx / k_cells_per_thread_min));
  const int n_threads = std::max(1, std::min({threads_, n_blocks, by_size}));

  // Step state shared with the barrier's completion (written before arriving, read after).
  long sample_index = -1;  // coil-0 index of the sample taken this step, or -1
  bool swap = false;       // the phase ending at this barrier was a step (dst buffer written)
  bool stop = false;
  bool halo_stale = true;  // the own rows changed in place (or never sent) since the last exchange
  const std::vector<int> marks = tr_progress_marks(prog);
  auto complete = [&]() noexcept {
    if (sample_index >= 0) {
      for (int coil = 0; coil < ncoils; ++coil) {
        cplx acc{};
        for (int b = 0; b < n_blocks; ++b) acc += partial[static_cast<std::size_t>(b) * ncoils + coil];
        if (decomposed())
          rank_sums[coil * per_coil + sample_index] = acc;
        else
          samples[coil * per_coil + sample_index] = {static_cast<float>(acc.real()), static_cast<float>(acc.imag())};
      }
    }
    if (swap) cur ^= 1;
    // What the next step reads: after every step, and at a fence after RF or spoiling (static cells: nothing).
    if (decomposed() && moving && (swap || halo_stale)) exchange_halos(cur);
    halo_stale = false;
    stop = cancel.cancelled();
  };
  std::barrier sync(n_threads, complete);

  const bool frame = in_gradient_frame(flow_transport_) && moving;
  const bool limited = second_order(flow_transport_) && moving;
  const std::vector<FrameChange> frame_change = frame_changes(prog);  // moving_step_table.hpp
  auto worker = [&](int t) {
    // The gradient frame (transport_cell_ops.hpp: face_turn, frame_turn_by_motion): k in cycles per cell, followed by every thread alike.
    double frame_k_cell[3] = {0, 0, 0};
    float face_turn[12];
    if (frame) transport::frame_face_turns(frame_k_cell, face_turn);
    auto frame_set = [&](double kx_cell, double ky_cell, double kz_cell) {
      if (!frame) return;
      frame_k_cell[0] = kx_cell;
      frame_k_cell[1] = ky_cell;
      frame_k_cell[2] = kz_cell;
      transport::frame_face_turns(frame_k_cell, face_turn);
    };
    auto frame_add = [&](double dkx, double dky, double dkz) {
      frame_set(frame_k_cell[0] + dkx * ph.cell_size_m, frame_k_cell[1] + dky * ph.cell_size_m,
                frame_k_cell[2] + dkz * ph.cell_size_m);
    };
    // The k a moving cell's turn takes over the next step: its mean over the step, the frame's k plus half the
    // step's moment (k grows evenly over a step), so the turn is 2π·u·∫k dt exactly for a constant velocity.
    // (At the step's start instead, a Free interval taken in few steps lost up to half its moment's motion
    // phase: three quarters of a plain GRE readout's flow phase at 1 mm cells, docs/flow_transport.md.)
    double motion_k_cell[3] = {0, 0, 0};
    auto motion_k = [&](double dkx, double dky, double dkz) {
      transport::frame_motion_k(frame_k_cell, dkx, dky, dkz, ph.cell_size_m, motion_k_cell);
    };
    // This thread's blocks: t, t + T, t + 2T, ...
    auto for_own_rows = [&](auto&& fn) {
      for (int b = t; b < n_blocks; b += n_threads)
        for (int r = b * block_rows; r < std::min(rows, (b + 1) * block_rows); ++r) fn(b, row_lo + r);
    };
    auto factors = [&](double dt, double dkx, double dky, double dkz) {
      EventFactors f;
      for (int b = t; b < n_blocks; b += n_threads) {  // per block: the x table once per block, not per row
        const std::size_t r0 = static_cast<std::size_t>(row_lo + b * block_rows) * nx;
        const std::size_t r1 = static_cast<std::size_t>(row_lo + std::min(rows, (b + 1) * block_rows)) * nx;
        compute_event_factors(ph, dt, dkx, dky, dkz, r0, r1, f);
        std::copy(f.c.begin(), f.c.end(), c.begin() + (r0 - base));
        std::copy(f.s.begin(), f.s.end(), s.begin() + (r0 - base));
        std::copy(f.omE1.begin(), f.omE1.end(), omE1.begin() + (r0 - base));
        std::copy(f.E2.begin(), f.E2.end(), E2.begin() + (r0 - base));
      }
    };
    // One step: optional sample of the current state, then transport + Bloch into the other buffer.
    auto step = [&](double scale, long sample, bool truth) {
      const int src = cur, dst = cur ^ 1;
      const float *Ax = buf[src][0].data(), *Ay = buf[src][1].data(), *Az = buf[src][2].data();
      float *Bx = buf[dst][0].data(), *By = buf[dst][1].data(), *Bz = buf[dst][2].data();
      for_own_rows([&](int b, int r) {
        const bool first_row = r == row_lo + b * block_rows;
        const int rl = r - held_lo;  // the row in the held grid
        const int iy = rl % ny_l, iz = rl / ny_l;
        if (sample >= 0) {
          for (int coil = 0; coil < ncoils; ++coil) {
            cplx acc = first_row ? cplx{} : partial[static_cast<std::size_t>(b) * ncoils + coil];
            double sx = 0, sy = 0;
            const std::size_t r0 = static_cast<std::size_t>(rl) * nx;
            if (coils.uniform()) {
              for (int ix = 0; ix < nx; ++ix) {
                sx += Ax[r0 + ix];
                sy += Ay[r0 + ix];
              }
            } else {
              const std::complex<float>* C = coils.sens.data() + static_cast<std::size_t>(coil) * n + base + r0;
              for (int ix = 0; ix < nx; ++ix) {
                sx += C[ix].real() * Ax[r0 + ix] - C[ix].imag() * Ay[r0 + ix];
                sy += C[ix].real() * Ay[r0 + ix] + C[ix].imag() * Ax[r0 + ix];
              }
            }
            partial[static_cast<std::size_t>(b) * ncoils + coil] = acc + cplx(sx, sy);
          }
        }
        for (int ix = 0; ix < nx; ++ix) {
          const std::size_t l = static_cast<std::size_t>(rl) * nx + ix, i = base + l;  // held and global index
          if (truth) cell_truth[i] = {Ax[l], Ay[l]};
          bloch::Mag m{Ax[l], Ay[l], Az[l]};
          if (moving) {
            auto tm = transport::donor_cell_gather<float>(ix, iy, iz, nx, ny_l, nz_l, Ax, Ay, Az, ux_l, uy_l, uz_l, type_l,
                                                          PD_l, static_cast<float>(scale), true, open_end_l, nullptr,
                                                          frame ? face_turn : nullptr);
            if (limited) {
              const auto A = transport::limited_gather_correction<float>(ix, iy, iz, nx, ny_l, nz_l, Ax, Ay, Az, ux_l, uy_l,
                                                                         uz_l, type_l, PD_l, static_cast<float>(scale), true,
                                                                         open_end_l, face_turn);
              tm = {tm.x + A.x, tm.y + A.y, tm.z + A.z};
            }
            if (frame && ph.type[i] == transport::k_fluid)
              transport::frame_turn_by_motion(tm, motion_k_cell, ph.ux[i], ph.uy[i], uz ? uz[i] : 0.f, scale);
            m = {tm.x, tm.y, tm.z};
          }
          bloch::precess_relax(m, ph.PD[i], omE1[l], E2[l], c[l], s[l]);
          Bx[l] = m.Mx;
          By[l] = m.My;
          Bz[l] = m.Mz;
        }
      });
      if (t == 0) {
        sample_index = sample;
        swap = true;
      }
      sync.arrive_and_wait();
    };
    auto fence = [&] {  // a barrier that is not a step: no sample, no swap
      if (t == 0) {
        sample_index = -1;
        swap = false;
      }
      sync.arrive_and_wait();
    };
    auto in_place = [&](auto&& fn) {  // instantaneous per-cell operation on the current buffer
      if (t == 0) halo_stale = true;  // read by the next barrier's completion
      for_own_rows([&](int, int r) {
        for (int ix = 0; ix < nx; ++ix) {
          const std::size_t i = static_cast<std::size_t>(r - held_lo) * nx + ix;
          bloch::Mag m{buf[cur][0][i], buf[cur][1][i], buf[cur][2][i]};
          fn(m);
          buf[cur][0][i] = m.Mx;
          buf[cur][1][i] = m.My;
          buf[cur][2][i] = m.Mz;
        }
      });
    };

    int readout = 0, reported = 0;
    for (std::size_t ei = 0; ei < prog.events.size(); ++ei) {
      const SeqEvent& e = prog.events[ei];
      if (stop) return;
      switch (e.kind) {
        case EventKind::Rf: {
          const float ca = static_cast<float>(std::cos(e.flip_rad)), sa = static_cast<float>(std::sin(e.flip_rad));
          const float cp = static_cast<float>(std::cos(e.phase_rad)), sp = static_cast<float>(std::sin(e.phase_rad));
          in_place([&](bloch::Mag& m) { bloch::rf_rotate(m, ca, sa, cp, sp); });
          // The frame's k at a pulse (frame_changes): a refocusing pulse conjugates, a shaped excitation's peak restarts.
          if (frame_change[ei] == FrameChange::Conjugate) frame_set(-frame_k_cell[0], -frame_k_cell[1], -frame_k_cell[2]);
          if (frame_change[ei] == FrameChange::Restart) frame_set(0, 0, 0);
          break;  // the next Free/Readout starts with a fence before reading neighbours
        }
        case EventKind::Spoil:
          in_place([](bloch::Mag& m) { bloch::spoil(m); });
          // Mxy = 0 everywhere: the frame restarts for free.
          frame_set(0, 0, 0);
          break;
        case EventKind::Free: {
          const int k = substeps(e.dt_s);
          fence();  // neighbours are read by the next step: all in-place work must be finished first
          factors(e.dt_s / k, e.dk_x / k, e.dk_y / k, e.dk_z / k);
          for (int j = 0; j < k && !stop; ++j) {
            motion_k(e.dk_x / k, e.dk_y / k, e.dk_z / k);
            step(e.dt_s / k / (ph.flow_dt_s > 0 ? ph.flow_dt_s : 1.0), -1, false);
            frame_add(e.dk_x / k, e.dk_y / k, e.dk_z / k);
          }
          break;
        }
        case EventKind::Readout: {
          const int k = substeps(e.dt_s);
          fence();
          factors(e.dt_s / k, e.dk_x / k, e.dk_y / k, e.dk_z / k);
          const double scale = e.dt_s / k / (ph.flow_dt_s > 0 ? ph.flow_dt_s : 1.0);
          for (int j = 0; j < e.n_samples && !stop; ++j)
            for (int sub = 0; sub < k && !stop; ++sub) {
              motion_k(e.dk_x / k, e.dk_y / k, e.dk_z / k);
              step(scale, sub == 0 ? static_cast<long>(readout) * prog.nx + j : -1, sub == 0 && j == e.truth_sample);
              frame_add(e.dk_x / k, e.dk_y / k, e.dk_z / k);
            }
          ++readout;
          break;
        }
      }
      if (t == 0 && progress)  // per TR: the steps of this event are done (barrier after each)
        while (reported < marks[ei]) progress(static_cast<double>(++reported) / marks.back(), "simulate");
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < n_threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
  cancel.throw_if_cancelled();
  if (decomposed()) {
    reduce_samples(rank_sums, samples);
    comm_->gather_to_root(cell_truth, static_cast<std::size_t>(row_lo) * nx, static_cast<std::size_t>(row_hi) * nx);
  }
}

}  // namespace mrwb
