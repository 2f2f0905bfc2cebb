// Kernels of the closed-form part of the CUDA simulator (closed_form_player.cuh) and their launches.
#include "closed_form_player.cuh"

namespace mrwb::gpu::sim {
namespace {

struct CellIndex {
  int ix, iy, iz;
};
__device__ CellIndex cell_index(const CellGrid& g, std::size_t i) {
  const unsigned u = static_cast<unsigned>(i);  // n < 2^31 checked on the host
  const unsigned row = u / static_cast<unsigned>(g.nx);
  return {static_cast<int>(u - row * static_cast<unsigned>(g.nx)), static_cast<int>(row % static_cast<unsigned>(g.ny)),
          static_cast<int>(row / static_cast<unsigned>(g.ny))};
}
// Gradient phase of cell c over an interval of moment dk [cycles]: dk·r.
__device__ double gradient_cycles(const CellGrid& g, const CellIndex& c, double dkx, double dky, double dkz) {
  return dkx * (g.x0 + c.ix * g.cell) + dky * (g.y0 + c.iy * g.cell) + dkz * (g.z0 + c.iz * g.cell);
}

__device__ void rotation_of(double cycles, float& c, float& s) {
  const double frac = cycles - rint(cycles);
  double sd, cd;
  sincospi(2.0 * frac, &sd, &cd);
  c = static_cast<float>(cd);
  s = static_cast<float>(sd);
}

// Relaxation factors over dt: 1 − E1 (via expm1, precise for short steps) and E2.
__device__ void relax_of(double dt, float t1, float t2, float& omE1, float& E2) {
  omE1 = t1 > 0.f ? static_cast<float>(-expm1(-dt / t1)) : 0.f;
  E2 = t2 > 0.f ? static_cast<float>(exp(-dt / t2)) : 1.f;
}

// Closed-form path: plays events [e_begin, e_end) for the cells list[first .. last) (list == nullptr:
// cells first .. last of the grid), skipping those with closed-form PD = 0, k_cells_per_thread cells per thread (a block takes k_block·k_cells_per_thread
// consecutive entries, strided by k_block so loads coalesce). A readout's signal is summed over the
// thread's cells, warp-reduced per sample into shared memory and added to the global sums once per
// `flush` samples: one block barrier per flush instead of two per sample, and one warp reduction per
// k_cells_per_thread cells (the shuffles bound this kernel).
__global__ void play_events(CellGrid g, const DeviceEvent* __restrict__ ev, int e_begin, int e_end, CellData d,
                            const std::uint32_t* __restrict__ list, std::size_t first, std::size_t last) {
  constexpr int C = k_cells_per_thread;
  __shared__ float2 part[k_readout_slots];  // [sample of the flush][coil][warp]
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int flush = max(1, min(32, k_readout_slots / (k_warps * g.ncoils)));
  bool active[C];
  std::size_t i[C];
  bloch::Mag m[C];
  float pd[C], t1[C], t2[C], db[C], cs[C], sn[C], omE1[C], E2[C];
  CellIndex c[C];
#pragma unroll
  for (int q = 0; q < C; ++q) {
    const std::size_t k = first + static_cast<std::size_t>(blockIdx.x) * (k_block * C) + q * k_block + threadIdx.x;
    active[q] = k < last;  // inactive cells still join the block reductions (with zero signal)
    i[q] = active[q] ? (list ? list[k] : k) : 0;
    const float4 t = active[q] ? closed_form_tissue(d, i[q]) : float4{};
    active[q] = t.x != 0.f;
    m[q] = {0.f, 0.f, 0.f};
    pd[q] = t.x;
    t1[q] = t.y;
    t2[q] = t.z;
    db[q] = t.w;
    c[q] = {0, 0, 0};
    if (active[q]) {
      m[q] = {d.Mx[i[q]], d.My[i[q]], d.Mz[i[q]]};
      c[q] = cell_index(g, i[q]);
    }
  }
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  double2* slot = d.sums + (blockIdx.x % k_signal_slots) * g.samples;
  for (int e = e_begin; e < e_end; ++e) {
    const DeviceEvent E = ev[e];
    if (E.kind == static_cast<int>(EventKind::Rf)) {
#pragma unroll
      for (int q = 0; q < C; ++q) bloch::rf_rotate(m[q], E.cos_flip, E.sin_flip, E.cos_phase, E.sin_phase);
      continue;
    }
    if (E.kind == static_cast<int>(EventKind::Spoil)) {
#pragma unroll
      for (int q = 0; q < C; ++q) bloch::spoil(m[q]);
      continue;
    }
#pragma unroll
    for (int q = 0; q < C; ++q) {
      rotation_of(gradient_cycles(g, c[q], E.dk_x, E.dk_y, E.dk_z) + gamma_cycles * db[q] * E.dt_s, cs[q], sn[q]);
      relax_of(E.dt_s, t1[q], t2[q], omE1[q], E2[q]);
    }
    if (E.kind == static_cast<int>(EventKind::Free)) {
#pragma unroll
      for (int q = 0; q < C; ++q) bloch::precess_relax(m[q], pd[q], omE1[q], E2[q], cs[q], sn[q]);
      continue;
    }
    // Readout: sample, then step one dwell.
    for (int j0 = 0; j0 < E.n_samples; j0 += flush) {
      const int jn = min(flush, E.n_samples - j0);
      for (int jj = 0; jj < jn; ++jj) {
        for (int coil = 0; coil < g.ncoils; ++coil) {
          float2 v = make_float2(0.f, 0.f);
#pragma unroll
          for (int q = 0; q < C; ++q)
            if (active[q]) {
              const float2 s = coil_signal(g, d.sens, coil, i[q], m[q].Mx, m[q].My);
              v.x += s.x;
              v.y += s.y;
            }
          v = warp_sum(v);
          if (lane == 0) part[(jj * g.ncoils + coil) * k_warps + warp] = v;
        }
#pragma unroll
        for (int q = 0; q < C; ++q) {
          if (active[q] && j0 + jj == E.truth_sample) d.truth[i[q]] = make_float2(m[q].Mx, m[q].My);
          bloch::precess_relax(m[q], pd[q], omE1[q], E2[q], cs[q], sn[q]);
        }
      }
      __syncthreads();
      for (int t = threadIdx.x; t < jn * g.ncoils; t += blockDim.x) {
        double sx = 0, sy = 0;
        for (int w = 0; w < k_warps; ++w) {
          sx += part[t * k_warps + w].x;
          sy += part[t * k_warps + w].y;
        }
        const int jj = t / g.ncoils, coil = t - jj * g.ncoils;
        double2* out = &slot[coil * g.per_coil + E.sample_offset + j0 + jj];
        atomicAdd(&out->x, sx);
        atomicAdd(&out->y, sy);
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int q = 0; q < C; ++q)
    if (active[q]) {
      d.Mx[i[q]] = m[q].Mx;
      d.My[i[q]] = m[q].My;
      d.Mz[i[q]] = m[q].Mz;
    }
}

__device__ float2 turn_of(double turns) {
  float2 r;
  separable::turn(turns, r.x, r.y);
  return r;
}
__device__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// Separable readout (mrwb/simulation/internal/separable_readout.hpp; CPU twin separable_readout.cpp) for a group of events
// ending at a readout along x: one thread per column x over `rows_per_block` rows (y, z), coalesced
// along x. Each cell plays the group's RF / Free / spoil events, adds C_c·Mxy(0) to its thread's
// P_{c,g} (shared memory, one slot per thread), records its truth and is advanced over the whole readout
// in closed form; each thread then adds its sums to P[coil][group][x] (double atomics, one per column
// and block). Cells with closed-form PD = 0 (fluid cells of a moving phantom among them) are left alone;
// every other cell is in `groups` (checked on the host).
// What does not depend on the cell is not computed per cell (per cell, the pass was bound by instruction
// issue; now by the latency of its loads, hence rows loaded ahead):
//  - the gradient's turn exp(i 2π dk·r) of the first k_sep_max_gradients gradient intervals is a column
//    factor (per thread) times a row factor (per block, shared), as the CPU twin's event_factors.cpp;
//  - the readout's exp(−i 2π n dk_x x) is taken once per thread;
//  - Table (a few tissues, at most k_sep_max_gradients gradient intervals before the readout): the events
//    before the readout are affine maps per tissue entry composed on the host (mrwb/simulation/internal/pass_operator.hpp),
//    so a cell plays maps and gradient turns, then the readout with its tissue factors from the same
//    table (`pass`: [entry][map rows ..., readout factors]). Otherwise each cell plays the events with
//    its tissue factors computed by the same functions.
// load_xy / store_xy false: the pass starts from Mxy = 0 / leaves its Mxy unstored, where it is never read
// (separable::transverse_reads: a Spoil before the next excitation); the Mz alone then crosses passes.
// Depth rows of loads in flight per thread, at least MinBlocks blocks per SM (registers).
template <bool Table, int MinBlocks, int Depth>
__global__ void __launch_bounds__(k_sep_block, MinBlocks)
    separable_pass(CellGrid g, const DeviceEvent* __restrict__ ev, int e_begin, int e_end, CellData d,
                   separable::ReadoutGroups groups, int rows_per_block, int n_grad, const float4* __restrict__ pass,
                   double2* __restrict__ P, bool load_xy, bool store_xy) {
  extern __shared__ float2 shared[];
  const int G = groups.count, terms = g.ncoils * G;
  float2* acc = shared;                      // [coil·G + group][thread]
  float2* col = acc + terms * k_sep_block;   // [gradient slot][thread]: exp(i 2π dk_x x)
  float2* row = col + n_grad * k_sep_block;  // [gradient slot][row of the block]: exp(i 2π (dk_y y + dk_z z))
  for (int t = 0; t < terms; ++t) acc[t * k_sep_block + threadIdx.x] = make_float2(0.f, 0.f);
  const int ix = blockIdx.x * k_sep_block + threadIdx.x;
  const int rows = g.ny * g.nz, r0 = blockIdx.y * rows_per_block, r1 = min(rows, r0 + rows_per_block);
  const double x_m = g.x0 + ix * g.cell;
  for (int e = e_begin, slot = 0; e < e_end - 1 && slot < n_grad; ++e) {
    if (!ev[e].gradient) continue;
    const DeviceEvent& E = ev[e];
    col[slot * k_sep_block + threadIdx.x] = turn_of(E.dk_x * x_m);
    for (int t = threadIdx.x; t < r1 - r0; t += k_sep_block) {
      const int r = r0 + t, iy = r % g.ny, iz = r / g.ny;
      row[slot * rows_per_block + t] = turn_of(E.dk_y * (g.y0 + iy * g.cell) + E.dk_z * (g.z0 + iz * g.cell));
    }
    ++slot;
  }
  __syncthreads();
  if (ix >= g.nx) return;  // no block barrier below
  const DeviceEvent R = ev[e_end - 1];
  const int width = pass_table_width(n_grad + 1);
  // The column's part of z^n and of z^t (truth): exp(−i 2π n dk_x x).
  float2 xn, xt = make_float2(1.f, 0.f);
  separable::power(R.dk_x * x_m, R.dt_s, 0.f, R.n_samples, xn.x, xn.y);
  if (R.truth_sample >= 0) separable::power(R.dk_x * x_m, R.dt_s, 0.f, R.truth_sample, xt.x, xt.y);
  // Each cell is read and written by this thread only: restrict lets the next row's loads be issued
  // before this row's stores.
  float* __restrict__ Mx = d.Mx;
  float* __restrict__ My = d.My;
  float* __restrict__ Mz = d.Mz;
  int iy = r0 % g.ny, iz = r0 / g.ny;  // row r = iz·ny + iy, counted along (no division per row)
  // Software pipeline: the tissue entries and states of the next Depth rows are loaded before this row is
  // played (slot q holds row r + q), so a thread's loads are in flight while it computes (row by row the
  // pass waited on them: latency-bound). A cell with PD = 0 holds M = 0: its state is read, never written.
  std::size_t i = static_cast<std::size_t>(r0) * g.nx + ix;
  int next_entry[Depth];
  float4 next_tissue[Depth];
  bloch::Mag next_m[Depth];
  auto load = [&](int q, std::size_t j) {
    if constexpr (Table)
      next_entry[q] = d.entry[j];
    else
      next_tissue[q] = closed_form_tissue(d, j);
    next_m[q] = {load_xy ? Mx[j] : 0.f, load_xy ? My[j] : 0.f, Mz[j]};
  };
#pragma unroll
  for (int q = 0; q < Depth; ++q)
    if (r0 + q < r1) load(q, i + static_cast<std::size_t>(q) * g.nx);
  for (int r = r0; r < r1; ++r, i += g.nx) {
    const CellIndex c{ix, iy, iz};
    if (++iy == g.ny) {
      iy = 0;
      ++iz;
    }
    const int entry = Table ? next_entry[0] : 0;
    const float4 tissue = Table ? d.tissue[entry] : next_tissue[0];
    bloch::Mag m = next_m[0];
#pragma unroll
    for (int q = 0; q + 1 < Depth; ++q) {
      next_entry[q] = next_entry[q + 1];
      next_tissue[q] = next_tissue[q + 1];
      next_m[q] = next_m[q + 1];
    }
    if (r + Depth < r1) load(Depth - 1, i + static_cast<std::size_t>(Depth) * g.nx);
    const float pd = tissue.x, t1 = tissue.y, t2 = tissue.z, db = tissue.w;
    if (pd == 0.f) continue;
    separable::ReadoutTissueFactors f;
    int grp;
    if constexpr (Table) {
      const float4* T = pass + static_cast<std::size_t>(entry) * width;
      for (int k = 0; k <= n_grad; ++k) {  // map k, then the turn of gradient interval k + 1
        const float4 a = T[3 * k], b = T[3 * k + 1], cz = T[3 * k + 2];
        m = {a.x * m.Mx + a.y * m.My + a.z * m.Mz + a.w, b.x * m.Mx + b.y * m.My + b.z * m.Mz + b.w,
             cz.x * m.Mx + cz.y * m.My + cz.z * m.Mz + cz.w};
        if (k < n_grad) {
          const float2 gr = cmul(col[k * k_sep_block + threadIdx.x], row[k * rows_per_block + (r - r0)]);
          separable::gradient_turn(m, gr.x, gr.y);
        }
      }
      const float4 a = T[width - 2], b = T[width - 1];
      f = {a.x, a.y, a.z, b.x, b.y};
      grp = __float_as_int(a.w);
    } else {
      for (int e = e_begin, slot = 0; e < e_end - 1; ++e) {  // the events before the readout
        const DeviceEvent& E = ev[e];
        const int kind = E.kind;
        if (kind == static_cast<int>(EventKind::Rf)) {
          bloch::rf_rotate(m, E.cos_flip, E.sin_flip, E.cos_phase, E.sin_phase);
          continue;
        }
        if (kind == static_cast<int>(EventKind::Spoil)) {
          bloch::spoil(m);
          continue;
        }
        const bool gradient = E.gradient;
        const int my_slot = slot;
        slot += gradient;
        const separable::FreeTissueFactors ff = separable::free_tissue_factors(E.dt_s, t1, t2, db);
        if (m.Mx == 0.f && m.My == 0.f) {
          // Spoiled (or never excited): only Mz recovers; the rotation and E2 would multiply zeros.
          m.Mz = m.Mz + ff.omE1 * (pd - m.Mz);
          continue;
        }
        float2 rot = make_float2(ff.c, ff.s);
        if (gradient) {
          const float2 gr = my_slot < n_grad ? cmul(col[my_slot * k_sep_block + threadIdx.x], row[my_slot * rows_per_block + (r - r0)])
                                             : turn_of(gradient_cycles(g, c, E.dk_x, E.dk_y, E.dk_z));
          rot = cmul(gr, rot);
        }
        bloch::precess_relax(m, pd, ff.omE1, ff.E2, rot.x, rot.y);
      }
      f = separable::readout_tissue_factors(R.dt_s, R.n_samples, R.truth_sample, t1, t2, db);
      grp = separable::group_of(groups, t2, db);
    }
    for (int coil = 0; coil < g.ncoils; ++coil) {
      const float2 s = coil_signal(g, d.sens, coil, i, m.Mx, m.My);
      float2& a = acc[(coil * G + grp) * k_sep_block + threadIdx.x];
      a.x += s.x;
      a.y += s.y;
    }
    if (R.truth_sample >= 0) {
      const float2 zt = cmul(xt, make_float2(f.zt_re, f.zt_im));
      d.truth[i] = cmul(make_float2(m.Mx, m.My), zt);
    }
    if (store_xy) {
      const float2 mxy = cmul(make_float2(m.Mx, m.My), cmul(xn, make_float2(f.zn_re, f.zn_im)));
      Mx[i] = mxy.x;
      My[i] = mxy.y;
    }
    Mz[i] = m.Mz + f.omE1n * (pd - m.Mz);
  }
  for (int t = 0; t < terms; ++t) {
    const float2 a = acc[t * k_sep_block + threadIdx.x];
    if (a.x == 0.f && a.y == 0.f) continue;
    atomicAdd(&P[t * g.nx + ix].x, static_cast<double>(a.x));
    atomicAdd(&P[t * g.nx + ix].y, static_cast<double>(a.y));
  }
}

// S_c(n) = Σ_g Σ_x P_{c,g}(x)·z_{g,x}^n of the readout R: block (n, coil), threads over (group, x),
// added to the signal sums (slot 0).
__global__ void separable_signal(CellGrid g, DeviceEvent R, separable::ReadoutGroups groups,
                                 const double2* __restrict__ P, double2* sums) {
  __shared__ double2 part[k_sep_block / 32];
  const int n = blockIdx.x, coil = blockIdx.y, G = groups.count;
  double sx = 0, sy = 0;
  for (int t = threadIdx.x; t < G * g.nx; t += k_sep_block) {
    const int grp = t / g.nx, ix = t - grp * g.nx;
    const double2 p = P[(coil * G + grp) * g.nx + ix];
    if (p.x == 0 && p.y == 0) continue;
    float re, im;
    separable::power(separable::dwell_cycles(R.dk_x, g.x0 + ix * g.cell, groups.dB_T[grp], R.dt_s), R.dt_s,
                     groups.T2_s[grp], n, re, im);
    sx += p.x * re - p.y * im;
    sy += p.x * im + p.y * re;
  }
  for (int o = 16; o > 0; o >>= 1) {
    sx += __shfl_down_sync(0xffffffffu, sx, o);
    sy += __shfl_down_sync(0xffffffffu, sy, o);
  }
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = make_double2(sx, sy);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < k_sep_block / 32; ++w) {
      sx += part[w].x;
      sy += part[w].y;
    }
    atomicAdd(&sums[coil * g.per_coil + R.sample_offset + n].x, sx);
    atomicAdd(&sums[coil * g.per_coil + R.sample_offset + n].y, sy);
  }
}

}  // namespace

void launch_play_events(unsigned blocks, cudaStream_t stream, const CellGrid& g, const DeviceEvent* ev, int e_begin, int e_end,
                        const CellData& d, const std::uint32_t* list, std::size_t first, std::size_t last) {
  play_events<<<blocks, k_block, 0, stream>>>(g, ev, e_begin, e_end, d, list, first, last);
  cuda_check(cudaGetLastError(), "play_events launch");
}

void launch_separable_pass(bool table, dim3 grid, std::size_t shared_bytes, cudaStream_t stream, const CellGrid& g,
                           const DeviceEvent* ev, int e_begin, int e_end, const CellData& d,
                           const separable::ReadoutGroups& groups, int rows_per_block, int n_grad, const float4* pass,
                           double2* P, bool load_xy, bool store_xy) {
  // Table: four rows in flight per thread at 8 blocks per SM (H100, slab's passes: 0.232 s; one row at 12
  // blocks 0.260 s, two at 10 0.237 s). Per cell: one row, as its tissue is loaded per cell too.
  auto kernel = table ? separable_pass<true, 8, 4> : separable_pass<false, 10, 1>;
  kernel<<<grid, k_sep_block, shared_bytes, stream>>>(g, ev, e_begin, e_end, d, groups, rows_per_block, n_grad, pass, P, load_xy,
                                                            store_xy);
  cuda_check(cudaGetLastError(), "separable_pass launch");
}

void launch_separable_signal(cudaStream_t stream, const CellGrid& g, const DeviceEvent& R,
                             const separable::ReadoutGroups& groups, const double2* P, double2* sums) {
  separable_signal<<<dim3(R.n_samples, g.ncoils), k_sep_block, 0, stream>>>(g, R, groups, P, sums);
  cuda_check(cudaGetLastError(), "separable_signal launch");
}

std::vector<DeviceEvent> device_events(const SequenceProgram& prog) {
  std::vector<DeviceEvent> ev(prog.events.size());
  int readout = 0;
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const SeqEvent& e = prog.events[k];
    DeviceEvent& de = ev[k];
    de.kind = static_cast<int>(e.kind);
    de.cos_flip = static_cast<float>(std::cos(e.flip_rad));
    de.sin_flip = static_cast<float>(std::sin(e.flip_rad));
    de.cos_phase = static_cast<float>(std::cos(e.phase_rad));
    de.sin_phase = static_cast<float>(std::sin(e.phase_rad));
    de.dt_s = e.dt_s;
    de.dk_x = e.dk_x;
    de.dk_y = e.dk_y;
    de.dk_z = e.dk_z;
    de.n_samples = e.n_samples;
    de.truth_sample = e.truth_sample;
    de.sample_offset = e.kind == EventKind::Readout ? readout++ * prog.nx : 0;
    de.gradient = separable::has_gradient(e);
  }
  return ev;
}

}  // namespace mrwb::gpu::sim
