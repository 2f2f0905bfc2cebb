// CUDA twin of mrwb::CpuSimulationEngine. State stays on the device for the whole run (SoA); per-cell
// operators come from mrwb/simulation/bloch_cell_ops.hpp and mrwb/simulation/transport_cell_ops.hpp, shared with the CPU.
// This file: the run, the fluid cells' per-step kernel and the truth read-back; the closed-form part is
// closed_form_player.cu, what both share simulation_device.cuh.
// Cells are indexed (iz·ny + iy)·nx + ix (2-D: nz = 1); positions x, y, z come from the index.
//  - cells that are never time-stepped (every cell of a static phantom; the non-fluid cells of a moving
//    one) are played event by event in closed form: one thread per cell keeps its state in registers
//    for a group of events (up to one readout), exact with no transport. Cells with PD = 0 stay at
//    M = 0 and are skipped. Large lists are split into ranges so that no launch outlasts a pacing chunk;
//  - fluid cells of a moving phantom are time-stepped from a step table built once on the host
//    (fluid_step_table: interval, gradient moment, sample index, and the RF or spoiling that precedes
//    it), one kernel per step (stencil_step) over the fluid cells' state, tissue, positions and
//    transport stencils (mrwb/simulation/internal/transport_stencil.hpp) in compact arrays, reading buffer A (the signal
//    block-reduced for all coils) and writing B, K steps per CUDA graph launch with no host work in
//    between; no step reads what it writes. (Temporal blocking, K steps per launch out of shared
//    memory, was measured slower on the H100 for the tube and the slab, docs/benchmarks.md, and removed.)
//  The closed-form cells' tissue is a table of distinct (PD, T1, T2, ΔB) with a 16-bit entry per cell
//  (mrwb/phantom/tissue_table.hpp; per-cell values beyond 65,536 tissues). Host passes over the grid run in
//  parallel; with fluid cells to step, a host thread builds their tables while the rest is set up, then the
//  closed-form tissue while the steps start (ClosedFormPart); the truth image is copied back on its own
//  stream once its last write is queued.
//  With fluid cells to step, the closed-form part plays on a stream of its own at the lowest priority, beside
//  the steps' stream.
//  Why the split is exact: transport couples fluid cells only (faces touching a stationary or
//  background cell carry no flux, transport_cell_ops.hpp), so a non-fluid cell obeys the Bloch operator
//  alone, and playing a Free interval or a dwell in one piece equals its Courant sub-steps (rotations
//  add, relaxation factors multiply) up to float rounding. The two parts add into the same signal sums.
// Pacing: the host stays at most about one chunk (~2^27 cell-steps, a few ms of GPU work) ahead of the
// device; at every chunk it polls the cancel token, so cancel is honoured within ~10 ms; progress is
// reported once per TR, dummy TRs included (tr_progress_marks), when both parts have queued that TR.
#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <latch>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "closed_form_player.cuh"
#include "halo_flags.cuh"
#include "ipc_halo.hpp"
#include "nccl_halo.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/phantom/tissue_table.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"
#include "mrwb/simulation/internal/gpu_memory.hpp"
#include "mrwb/simulation/internal/moving_step_ops.hpp"
#include "mrwb/simulation/internal/moving_step_table.hpp"
#include "mrwb/simulation/internal/transport_stencil.hpp"
#include "mrwb/simulation/tr_progress.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"
#include "mrwb_gpu/simulation/step_blocks.hpp"
#include "simulation_device.cuh"

namespace mrwb::gpu {
namespace {

using namespace sim;

static_assert(sizeof(FluidStep) + sizeof(FrameStep) <= k_device_step_bytes, "memory estimate (gpu_memory.cpp) too small");

// The per-step stencil kernel takes C fluid cells per thread and issues their loads together (a step is
// latency-bound), with a register budget that leaves k_step_min_blocks(C) blocks per SM: 3 blocks of
// C = 2 hold 202,752 cells in one wave on an H100 (the tube: 178,600), of C = 4 405,504 (the liver slab:
// 349,596); C = 1 keeps the compiler's choice.
constexpr int k_step_min_blocks(int C) { return C >= 2 ? 3 : 1; }
constexpr int k_coil_batch = 32;  // coils reduced per block barrier of a sampled step

// Adds Σ_block C_c·(Mx + i·My) of each thread's C cells to the signal of `sample` for every
// coil: warp sums go to shared memory, one block barrier per batch of k_coil_batch coils, then one
// thread per coil adds the block's sum to one of k_signal_slots partial sums (summed on the host:
// same-address atomics from hundreds of blocks would serialise). The shared buffer alternates with
// every barrier round (`round`): a round writes the half that the round before the previous one read,
// and every reader of that round has passed the barrier in between, so one barrier per round suffices.
template <int C>
__device__ __forceinline__ void block_signal(const CellGrid& g, const float2* __restrict__ sens, const unsigned* i,
                                             const bool* active, const bloch::Mag* own, double2* sums, int sample,
                                             float2 (*part)[k_warps * k_coil_batch], int& round) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double2* slot = sums + (blockIdx.x % k_signal_slots) * g.samples;
  for (int c0 = 0; c0 < g.ncoils; c0 += k_coil_batch) {
    const int nc = min(k_coil_batch, g.ncoils - c0);
    float2* p = part[round & 1];
    for (int c = 0; c < nc; ++c) {
      float2 v = make_float2(0.f, 0.f);
#pragma unroll
      for (int q = 0; q < C; ++q)
        if (active[q]) {
          const float2 s = coil_signal(g, sens, c0 + c, i[q], own[q].Mx, own[q].My);
          v.x += s.x;
          v.y += s.y;
        }
      v = warp_sum(v);
      if (lane == 0) p[c * k_warps + warp] = v;
    }
    __syncthreads();
    ++round;
    if (threadIdx.x < nc) {
      double sx = 0, sy = 0;
      for (int w = 0; w < k_warps; ++w) {
        sx += p[threadIdx.x * k_warps + w].x;
        sy += p[threadIdx.x * k_warps + w].y;
      }
      atomicAdd(&slot[(c0 + threadIdx.x) * g.per_coil + sample].x, sx);
      atomicAdd(&slot[(c0 + threadIdx.x) * g.per_coil + sample].y, sy);
    }
  }
}

// What the step kernel reads per fluid cell besides the state, gathered from the phantom: position
// (ix, iy, iz), tissue (PD, R1 = 1/T1, R2 = 1/T2, ΔB) and velocity. Throws std::invalid_argument when a grid
// side exceeds 65535 cells (positions are uint16).
struct FluidStatics {
  UninitialisedVector<ushort4> pos;
  UninitialisedVector<float4> tissue;
  UninitialisedVector<float> ux, uy, uz;  // uz zeros when the phantom has none
};
// In ranges of cells on host threads (a GPU rank's 2.7 M fluid cells: each array first written by the threads
// that fill it).
FluidStatics gather_fluid_statics(const CellPhantom& ph, std::span<const std::uint32_t> cells) {
  if (ph.nx > 65535 || ph.ny > 65535 || ph.nz > 65535)
    throw std::invalid_argument("fluid kernels: a grid side above 65535 cells");
  const std::size_t m = cells.size(), slice = ph.slice_size();
  FluidStatics st;
  st.pos.resize(m);
  st.tissue.resize(m);
  st.ux.resize(m);
  st.uy.resize(m);
  st.uz.resize(m);
  for_each_range(m, range_parts(m), [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint32_t c = cells[k];
      const std::size_t in_slice = c % slice;
      st.pos[k] = make_ushort4(static_cast<unsigned short>(in_slice % ph.nx), static_cast<unsigned short>(in_slice / ph.nx),
                               static_cast<unsigned short>(c / slice), 0);
      st.tissue[k] = make_float4(ph.PD[c], fluid::relaxation_rate(ph.T1_s[c]), fluid::relaxation_rate(ph.T2_s[c]), ph.dB_T[c]);
      st.ux[k] = ph.ux[c];
      st.uy[k] = ph.uy[c];
      st.uz[k] = ph.uz.empty() ? 0.f : ph.uz[c];
    }
  });
  return st;
}

// Fluid cells of a moving phantom, one kernel per time step (number *counter + offset of the table):
// their state, tissue (PD, R1 = 1/T1, R2 = 1/T2, ΔB), positions and transport stencils
// (mrwb/simulation/internal/transport_stencil.hpp) live in compact arrays indexed by rank (position in the ascending fluid list,
// so rank order is grid order): no load is scattered over the grid, and a step makes no face-by-face
// decision — it reads its upwind neighbours' M and nothing else of theirs. C cells per thread (a block
// takes at most k_block·C consecutive ranks (f.blocks, step_blocks.hpp), strided by k_block, their loads issued together). Everything static
// is loaded before the wait on the previous step (programmatic dependent launch). B = A_MRI · [op(A) +
// ΔM_F], sampling op(A) first; op is uniform over cells and transport linear, so op(transport(A) −
// fresh) + fresh = transport(op(A)): the same result as the CPU twin (run_fluid_stencil_cpu), which
// applies op to the whole state before the step.
struct StencilFluid {
  const std::uint32_t* __restrict__ cell;  // rank -> grid index (coil maps, truth)
  const ushort4* __restrict__ pos;         // ix, iy, iz, and the tissue's entry in `tissue` (table mode)
  const float4* __restrict__ tissue;       // PD, R1, R2, ΔB: per distinct tissue (table) or per rank
  bool tissue_table;                       // tissue indexed by pos.w (few distinct tissues), else by rank
  const float2* __restrict__ out_fresh;    // stencil: Σ outflow c_f, fresh inflow · PD
  const FluidInflow* __restrict__ inflow;  // [slot][rank]
  const FrameStep* __restrict__ frames;    // per step: the gradient frame (Frame kernels only)
  const LimitedFace* __restrict__ limited; // [slot][rank] the limited correction's faces (Limited kernels only)
  int limited_slots;
  const float4* __restrict__ u;            // [rank] velocity (x, y, z, 0), cells per flow step (Frame kernels only)
  int nf;                                  // < 2^31 (checked on the host): 32-bit index math
  int slots;                               // inflow slots per cell
  int own_lo, own_hi;                      // ranks of this rank's slab ([0, nf) undecomposed); the rest is halo
  // The ranks this launch steps, [act_lo, act_hi): a deep halo's planes that no cell reads before the next
  // exchange are not stepped (the whole [0, nf) undecomposed).
  int act_lo, act_hi;
  // Launched block b steps ranks [blocks[b].x, blocks[b].y) within [act_lo, act_hi): at most k_block·C of them,
  // in the order step_layout chose for the launch (step_blocks.hpp).
  const int2* __restrict__ blocks;
};
// The ranks launched block b of a launch steps: [lo, hi), empty when the block holds no active rank.
struct BlockRanks {
  int lo, hi;
};
__host__ __device__ inline BlockRanks block_ranks(const StencilFluid& f, int2 b) {
  return {b.x > f.act_lo ? b.x : f.act_lo, b.y < f.act_hi ? b.y : f.act_hi};
}
// Whether a block's ranks meet the send range to side s (0 lower, 1 upper) of an exchange played in the step
// (ipc_halo.hpp), and whether they meet either.
__host__ __device__ inline bool stores_to(const StepExchange& x, BlockRanks b, int s) {
  return x.push && x.to[s] && b.lo < b.hi && b.lo < x.send_end[s] && x.send_begin[s] < b.hi;
}
__host__ __device__ inline bool stores_halo(const StepExchange& x, BlockRanks b) { return stores_to(x, b, 0) || stores_to(x, b, 1); }
// Whether a block of a step that reads a fresh halo reads the halo from side s: its ranks below x.wait_lo (lower)
// or from x.wait_hi on (upper).
__host__ __device__ inline bool waits_for(const StepExchange& x, BlockRanks b, int s) {
  return x.receive && x.done_from[s] && b.lo < b.hi && (s == 0 ? b.lo < x.wait_lo : b.hi > x.wait_hi);
}

// The order a step's blocks start in for its exchange (step_layout): the same conditions as waits_for (a Receive
// step's lower readers last) and stores_to (a Push step's upper senders first).
inline StepOrder step_order(const StepExchange& x) {
  StepOrder order;
  order.role = x.receive ? StepRole::Receive : x.push ? StepRole::Push : StepRole::Plain;
  if (x.receive && x.done_from[0]) order.last_below = x.wait_lo;
  if (x.push && x.to[1]) {
    order.first_from = x.send_begin[1];
    order.first_to = x.send_end[1];
  }
  return order;
}

// A step that reads a fresh halo: a block whose ranks read halo cells waits until the neighbours' step before has
// stored its traffic here (their done flags reach step number v).
__device__ __forceinline__ void wait_for_halo(const StepExchange& x, BlockRanks b, int v) {
  const bool lower = waits_for(x, b, 0), upper = waits_for(x, b, 1);
  if (!lower && !upper) return;  // uniform over the block
  if (threadIdx.x == 0) {
    if (lower) wait_flag(x.done_from[0], v);
    if (upper) wait_flag(x.done_from[1], v);
  }
  __syncthreads();
}

template <int C, bool Frame, bool Limited = false>
__global__ void __launch_bounds__(k_block, k_step_min_blocks(C))
    stencil_step(CellGrid g, CellData d, StencilFluid f, const FluidStep* __restrict__ steps,
                 const int* __restrict__ counter, int offset, int n_steps, const float* __restrict__ A,
                 float* __restrict__ B, StepExchange x) {
  constexpr int P = fluid::k_preloaded_inflows;
  __shared__ float2 part[2][k_warps * k_coil_batch];
  const int2 block = f.blocks[blockIdx.x];
  int round = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const int k = *counter + offset;
  if (k >= n_steps) return;  // uniform over the grid: the last graph launch may run past the end
  const FluidStep S = steps[k];
  const bool need_cell = d.sens != nullptr || S.truth;  // the grid index serves coil maps and truth only
  bool active[C], mine[C];  // mine: signal and truth (not a halo cell)
  unsigned i[C];  // grid index (< 2^31, checked on the host)
  int r[C];
  ushort4 p[C];
  float2 of[C];
  FluidInflow first[C][P];
  // The frame's face turns of the step, in shared memory: read per inflow slot without holding registers
  // across the wait (the C = 4 kernel would spill).
  __shared__ float face_turn[12];
  if constexpr (Frame) {
    if (threadIdx.x < 12) face_turn[threadIdx.x] = f.frames[k].face_turn[threadIdx.x];
    __syncthreads();
  }
  const int base = block.x, span = block.y - block.x;
#pragma unroll
  for (int q = 0; q < C; ++q) {
    const int local = q * k_block + static_cast<int>(threadIdx.x);
    const int t = base + local;
    active[q] = local < span && t >= f.act_lo && t < f.act_hi;
    mine[q] = active[q] && t >= f.own_lo && t < f.own_hi;
    r[q] = active[q] ? t : 0;
    i[q] = active[q] && need_cell ? f.cell[r[q]] : 0;
    p[q] = f.pos[r[q]];
    of[q] = f.out_fresh[r[q]];
#pragma unroll
    for (int s = 0; s < P; ++s) first[q][s] = s < f.slots ? f.inflow[s * f.nf + r[q]] : FluidInflow{};
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  // An exchange in the step (through CUDA IPC, ipc_halo.hpp). Past the wait on the step before, this rank is done with
  // the buffer this step writes: the neighbours may store into its halo (ready, step number k + 1).
  const BlockRanks mine_ranks = block_ranks(f, block);
  wait_for_halo(x, mine_ranks, k);
  if (x.push && blockIdx.x == 0 && threadIdx.x == 0)
    for (int s = 0; s < 2; ++s)
      if (x.ready_to[s]) set_flag(x.ready_to[s], k + 1);
  const float *Ax = A, *Ay = A + f.nf, *Az = A + 2 * f.nf;
  bloch::Mag own[C];
  transport::Mag3<float> tr[C];
  float fresh[C];
  float4 ts[C];  // loaded with the state, not before the wait: registers held across it limit C
#pragma unroll
  for (int q = 0; q < C; ++q) {
    ts[q] = f.tissue[f.tissue_table ? p[q].w : r[q]];
    own[q] = {0.f, 0.f, 0.f};
    fresh[q] = 0.f;
    if (active[q]) {
      const transport::Mag3<float> raw{Ax[r[q]], Ay[r[q]], Az[r[q]]};
      const FluidInflow* more = f.slots > P ? f.inflow + P * f.nf + r[q] : nullptr;  // read only for slots > P
      own[q] = {raw.x, raw.y, raw.z};
      fluid::apply_op(S, own[q]);
      if constexpr (Frame) {
        tr[q] = fluid::stencil_transport(raw, of[q].x, of[q].y, first[q], more, f.nf, f.slots, Ax, Ay, Az, S.scale,
                                         &fresh[q], face_turn);
        if constexpr (Limited) {
          const transport::Mag3<float> A = fluid::limited_stencil_correction(raw, f.limited + r[q], f.nf, f.limited_slots,
                                                                             Ax, Ay, Az, S.scale, face_turn);
          tr[q] = {tr[q].x + A.x, tr[q].y + A.y, tr[q].z + A.z};
        }
        const float4 u = f.u[r[q]];
        float c, sn;
        fluid::frame_motion_turn(f.frames[k], u.x, u.y, u.z, S.scale, &c, &sn);
        const float x = tr[q].x * c - tr[q].y * sn;
        tr[q].y = tr[q].x * sn + tr[q].y * c;
        tr[q].x = x;
      } else {
        tr[q] = fluid::stencil_transport(raw, of[q].x, of[q].y, first[q], more, f.nf, f.slots, Ax, Ay, Az, S.scale,
                                         &fresh[q]);
      }
    }
  }
  // After the neighbour loads: they are in flight while the block reduces the signal.
  if (S.sample >= 0) block_signal<C>(g, d.sens, i, mine, own, d.sums, S.sample, part, round);
  // A block that stores halo traffic waits, its cells computed, until the neighbours it stores to have started
  // this step.
  const bool storing = stores_halo(x, mine_ranks);
  if (storing) {
    if (threadIdx.x == 0)
      for (int s = 0; s < 2; ++s)
        if (stores_to(x, mine_ranks, s)) wait_flag(x.ready_from[s], k + 1);
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < C; ++q) {
    if (!active[q]) continue;
    if (S.truth && mine[q]) d.truth[i[q]] = make_float2(own[q].Mx, own[q].My);
    // op(transport(A) − fresh) + fresh = transport(op(A)): op commutes with the transport of this step (in the
    // gradient frame an RF pulse has a zero-length step of its own, fluid_step_table's rf_steps_alone).
    bloch::Mag m{tr[q].x, tr[q].y, tr[q].z - fresh[q]};
    fluid::apply_op(S, m);
    m.Mz += fresh[q];
    fluid::fluid_bloch(m, ts[q].x, ts[q].y, ts[q].z, ts[q].w, g.x0 + p[q].x * g.cell, g.y0 + p[q].y * g.cell,
                       g.z0 + p[q].z * g.cell, S);
    B[r[q]] = m.Mx;
    B[f.nf + r[q]] = m.My;
    B[2 * f.nf + r[q]] = m.Mz;
    if (storing)
      for (int s = 0; s < 2; ++s)
        if (x.to[s] && r[q] >= x.send_begin[s] && r[q] < x.send_end[s]) {
          float* to = x.to[s] + (r[q] - x.send_begin[s]);
          to[0] = m.Mx;
          to[x.to_stride[s]] = m.My;
          to[2 * x.to_stride[s]] = m.Mz;
        }
  }
  // The last block storing to a side tells that neighbour its halo is written (done, step number k + 1).
  if (storing) {
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0)
      for (int s = 0; s < 2; ++s)
        if (stores_to(x, mine_ranks, s) && atomicAdd(x.blocks_done + s, 1u) == static_cast<unsigned>(x.push_blocks[s]) - 1) {
          x.blocks_done[s] = 0;
          __threadfence_system();
          set_flag(x.done_to[s], k + 1);
        }
  }
}

__global__ void advance_counter(int* counter, int by) { *counter += by; }

// Thermal equilibrium M = PD·ẑ of the closed-form cells (the fluid cells' state is compact, elsewhere).
__global__ void equilibrium_state(std::size_t n, CellData d) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  d.Mx[i] = 0.f;
  d.My[i] = 0.f;
  d.Mz[i] = closed_form_tissue(d, i).x;
}

__global__ void precess_relax_kernel(std::size_t n, bloch::Mag* m, const float* PD, const float* omE1, const float* E2,
                                     const float* c, const float* s) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bloch::precess_relax(m[i], PD[i], omE1[i], E2[i], c[i], s[i]);
}

struct Graph {
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (g) cudaGraphDestroy(g);
  }
};

// The cells each path plays: `stepped` the fluid cells of a moving phantom, `closed_form` the others
// with PD != 0 (a cell with PD = 0 stays at M = 0). The closed-form list is built only when those cells
// are under 3/4 of the grid: otherwise the kernels run over the whole grid and skip the other cells
// (cheaper than building and uploading a list of nearly every cell). `stepped` is left empty when
// every cell is fluid.
struct CellLists {
  std::vector<std::uint32_t> stepped, closed_form;
  std::size_t n_stepped = 0, n_closed_form = 0;
  bool closed_form_listed = false;
};
CellLists split_cells(const CellPhantom& ph, bool moving) {
  CellLists l;
  const std::size_t n = ph.size();
  // Raw pointers and a count per part in a register: through the phantom's vectors the compiler
  // reloaded them per cell around the push_backs (twice the time of this pass).
  const std::uint8_t fluid_type = moving ? static_cast<std::uint8_t>(CellType::Fluid) : 0xff;  // 0xff: no cell
  const std::uint8_t* type = ph.type.data();
  const float* PD = ph.PD.data();
  // Parallel passes over the grid (70 M cells in the liver slab), each part's cells in order.
  const int parts = range_parts(n);
  std::vector<std::vector<std::uint32_t>> stepped(parts), closed_form(parts);
  std::vector<std::size_t> counted(parts, 0);
  for_each_range(n, parts, [&, type, PD, fluid_type](int p, std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t>& out = stepped[p];
    std::size_t c = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (type[i] == fluid_type)
        out.push_back(static_cast<std::uint32_t>(i));
      else
        c += PD[i] != 0.f;
    }
    counted[p] = c;
  });
  for (int p = 0; p < parts; ++p) {
    l.stepped.insert(l.stepped.end(), stepped[p].begin(), stepped[p].end());
    l.n_closed_form += counted[p];
  }
  l.n_stepped = l.stepped.size();
  if (l.n_stepped == n) l.stepped.clear();
  l.closed_form_listed = l.n_closed_form < n / 4 * 3;
  if (l.closed_form_listed) {
    for_each_range(n, parts, [&, type, PD, fluid_type](int p, std::size_t begin, std::size_t end) {
      std::vector<std::uint32_t>& out = closed_form[p];
      for (std::size_t i = begin; i < end; ++i)
        if (type[i] != fluid_type && PD[i] != 0.f) out.push_back(static_cast<std::uint32_t>(i));
    });
    l.closed_form.reserve(l.n_closed_form);
    for (int p = 0; p < parts; ++p) l.closed_form.insert(l.closed_form.end(), closed_form[p].begin(), closed_form[p].end());
  }
  return l;
}

// The closed-form part of a run: its cells' tissue on the device (closed_form_tissue: a table of the distinct
// values and a 16-bit entry per cell where it can be, else one value per cell), their thermal equilibrium and
// the player. With fluid cells to step (`later`) the steps need none of it: a host thread builds the tissue and
// copies it on the part's stream once the fluid tables are built, while the steps start, and the part starts at
// the first play_until that finds it there (on a strong-scaling outer rank of the liver slab, 240 M cells, that
// host work is 0.2 s, 7 % of the run). Otherwise it is built and started at construction. For `later` the
// table's buffers are allocated here first (a device allocation beside running kernels serialises the streams),
// the per-cell values (more than 65,536 tissues, rare) by the host thread.
class ClosedFormPart {
 public:
  struct Setup {
    const CellPhantom& ph;
    bool moving;
    const SequenceProgram& prog;
    const std::vector<int>& marks;
    CellGrid g;
    CellData d;  // entry and tissue filled in here
    const std::uint32_t* list;
    std::size_t count;
    cudaStream_t stream;
    Pacer& pacer;
    bool beside_steps;
  };
  // later: built once `later` is counted down (the fluid tables first: the steps wait for those), else now.
  ClosedFormPart(Setup s, std::latch* later) : s_(std::move(s)) {
    int device = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    if (later) {
      entry_ = std::make_unique<DeviceBuffer<std::uint16_t>>(s_.g.n);
      values_ = std::make_unique<DeviceBuffer<float4>>(k_max_tissue_entries);
    }
    // Beside the steps, one core stays with the thread that queues them.
    const int parts = later ? std::max(1, static_cast<int>(host_threads()) - 1) : 0;
    auto build = [this, device, parts, later] {
      if (later) later->wait();
      cuda_check(cudaSetDevice(device), "cudaSetDevice");
      const auto t0 = std::chrono::steady_clock::now();
      Tissue t;
      t.table = closed_form_tissue(s_.ph, s_.moving, k_max_tissue_entries, parts);
      const std::size_t entries = t.table.entry.size(), values = t.table.values.size();
      if (!entry_ || entry_->size() < entries) entry_ = std::make_unique<DeviceBuffer<std::uint16_t>>(entries);
      if (entries == 0) entry_.reset();  // per-cell values: no entries
      if (!values_ || values_->size() < values) values_ = std::make_unique<DeviceBuffer<float4>>(values);
      static_assert(sizeof(TissueValue) == sizeof(float4));
      if (entries)
        cuda_check(cudaMemcpyAsync(entry_->get(), t.table.entry.data(), entries * sizeof(std::uint16_t),
                                   cudaMemcpyHostToDevice, s_.stream),
                   "upload");
      if (values)
        cuda_check(cudaMemcpyAsync(values_->get(), t.table.values.data(), values * sizeof(float4), cudaMemcpyHostToDevice,
                                   s_.stream),
                   "upload");
      t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return t;
    };
    if (later) {
      built_ = std::async(std::launch::async, build);
    } else {
      tissue_ = build();
      start();
    }
  }
  // Queues the passes that complete at most `tr` TRs (INT_MAX: all); the TRs completed by what is queued (0 while
  // the tissue is on its way).
  int play_until(int tr) {
    if (!player_ && built_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return 0;
    if (!player_) start();
    return player_->play_until(tr);
  }
  // Waits for the tissue and starts the part (once the steps are queued: the rest is played from here).
  void wait_started() {
    if (!player_) start();
  }
  // The steps beside which the passes play take at most `rounds` rounds of resident blocks (ClosedFormPlayer).
  void beside_steps_of(std::size_t rounds) {
    rounds_ = rounds;
    if (player_) player_->beside_steps_of(rounds);
  }
  std::size_t tissue_values() const { return tissue_.table.values.size(); }
  double tissue_seconds() const { return tissue_.seconds; }

 private:
  struct Tissue {
    TissueTable table;  // its arrays stay alive while their copies may be in flight
    double seconds = 0;
  };
  void start() {
    if (built_.valid()) tissue_ = built_.get();
    CellData d = s_.d;
    d.entry = entry_ ? entry_->get() : nullptr;
    d.tissue = values_ ? values_->get() : nullptr;
    // Thermal equilibrium before the first pass, on the part's stream (the steps never touch the grid's M).
    if (s_.g.n > 0)
      equilibrium_state<<<static_cast<unsigned>((s_.g.n + k_block - 1) / k_block), k_block, 0, s_.stream>>>(s_.g.n, d);
    cuda_check(cudaGetLastError(), "equilibrium_state launch");
    player_.emplace(s_.prog, s_.marks, s_.g, d, s_.list, s_.count, s_.stream, s_.pacer, s_.beside_steps);
    player_->enable_separable(tissue_.table, s_.prog);
    if (rounds_) player_->beside_steps_of(rounds_);
  }
  Setup s_;
  std::unique_ptr<DeviceBuffer<std::uint16_t>> entry_;  // per cell (table), else null
  std::unique_ptr<DeviceBuffer<float4>> values_;        // per entry, or per cell
  Tissue tissue_;
  std::optional<ClosedFormPlayer> player_;
  std::size_t rounds_ = 0;
  std::future<Tissue> built_;  // last: destroyed first, waiting for the host thread that uses the members above
};

// Copies the truth image (8 bytes per cell: 560 MB for the liver slab) to the host on its own stream and
// host thread as soon as every write to it is queued, while the rest of the run plays: the writes happen
// at the readouts with a truth sample, so once both parts have queued the TR after the last of them
// (queued(trs)), the copy waits on events recorded there on both parts' streams. In pieces, stopping early
// on cancel.
class TruthReadback {
 public:
  TruthReadback(const SequenceProgram& prog, const std::vector<int>& marks, std::span<std::complex<float>> host,
                const float2* device, const CancelToken& cancel)
      : host_(host), device_(device), cancel_(cancel) {
    for (std::size_t e = 0; e < prog.events.size(); ++e)
      if (prog.events[e].kind == EventKind::Readout && prog.events[e].truth_sample >= 0) needed_trs_ = marks[e] + 1;
    for (cudaEvent_t& e : written_) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~TruthReadback() {
    if (copy_.valid()) copy_.wait();
    for (cudaEvent_t e : written_) cudaEventDestroy(e);
  }
  // Both parts have queued `trs` TRs, on `steps` and `closed_form` (the same stream or two).
  void queued(int trs, cudaStream_t steps, cudaStream_t closed_form) {
    if (copy_.valid() || needed_trs_ < 0 || trs < needed_trs_ || host_.empty()) return;
    record(steps, closed_form);
    copy_ = std::async(std::launch::async, [this] { copy_after(); });
  }
  // After the run: the copy started early, or the whole copy now.
  void finish(cudaStream_t steps, cudaStream_t closed_form) {
    if (!copy_.valid()) {
      record(steps, closed_form);
      copy_after();
    } else {
      copy_.get();
    }
  }

 private:
  void record(cudaStream_t steps, cudaStream_t closed_form) {
    cuda_check(cudaEventRecord(written_[0], steps), "cudaEventRecord");
    cuda_check(cudaEventRecord(written_[1], closed_form), "cudaEventRecord");
  }
  void copy_after() {
    Stream s;
    for (cudaEvent_t e : written_) cuda_check(cudaStreamWaitEvent(s.s, e, 0), "cudaStreamWaitEvent");
    constexpr std::size_t k_piece = std::size_t{8} << 20;  // cells per piece (64 MB)
    // std::complex<float> is two floats (array-compatible by the standard), as float2: copy straight in.
    for (std::size_t first = 0; first < host_.size() && !cancel_.cancelled(); first += k_piece) {
      const std::size_t count = std::min(k_piece, host_.size() - first);
      cuda_check(cudaMemcpyAsync(host_.data() + first, device_ + first, count * sizeof(float2), cudaMemcpyDeviceToHost, s.s),
                 "truth download");
      cuda_check(cudaStreamSynchronize(s.s), "truth download");
    }
  }

  std::span<std::complex<float>> host_;
  const float2* device_;
  const CancelToken& cancel_;
  int needed_trs_ = -1;  // TRs after which nothing writes the truth (−1: no truth sample)
  cudaEvent_t written_[2] = {nullptr, nullptr};
  std::future<void> copy_;
};

// A rank's part of a slab-decomposed run (run_slab): its own cells within the held grid, and the
// exchange that refreshes the halo planes' fluid cells after every step.
constexpr int k_max_halo_planes = 8;
constexpr int k_default_halo_planes = 4;

struct SlabRun {
  std::size_t own_first = 0, own_end = 0;  // cells of the held grid this rank owns
  std::size_t halo_cells = 0;              // cells of the halo planes on each side
  std::size_t plane_cells = 0;
  int exchange_every = 1;                  // steps between halo exchanges: the halo's planes / reach
  int reach = 1;                           // planes a step reads beyond a cell (transport_halo_planes)
  bool lower = false, upper = false;       // neighbours below and above
  // The exchange: through CUDA IPC where the ranks share a host and their GPUs reach each other (IpcHalo, by
  // peer stores in the step kernels), else through NCCL (made at the first decomposed run, kept by the engine);
  // MRWB_HALO_TRANSPORT=nccl forces NCCL.
  NcclHalo* halo = nullptr;
  RankComm* comm = nullptr;
  bool ipc = false;
  // MRWB_HALO_EXCHANGE=0 leaves the exchange out: timing only (what the exchange costs, and each rank's own
  // step time with no rank waiting for another); the halo goes stale and the result is wrong.
  bool exchange = true;
};

class CudaSimulationEngine final : public SimulationEngine {
 public:
  std::string name() const override { return "cuda"; }
  using SimulationEngine::run;

  void run(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
           const ProgressFn& progress, const CancelToken& cancel) override {
    if (play_decomposed(ph, prog, coils, samples, cell_truth, progress, cancel)) return;
    if (decomposed()) {
      run_slab(ph, prog, coils, samples, cell_truth, progress, cancel);
      return;
    }
    run_grid(ph, prog, coils, samples, {}, cell_truth, progress, cancel, nullptr);
  }

  // A deep halo: transport moves magnetization at most one plane per step (Courant <= 1), so with H halo
  // planes the own planes stay exact for H steps and the exchange runs every H steps: its latency is paid
  // once per H steps, and the halo planes still read are stepped, (H − 1) / 2 planes a side per step on
  // average. H: a power of two up to k_default_halo_planes (MRWB_HALO_PLANES: up to k_max_halo_planes, for
  // A/B measurements), at most the thinnest slab.
  int rank_halo_planes(int planes, int ranks) const override {
    int most = k_default_halo_planes;
    if (const char* env = std::getenv("MRWB_HALO_PLANES")) most = std::clamp(std::atoi(env), 1, k_max_halo_planes);
    int H = 1;
    while (H * 2 <= most && H * 2 <= planes / std::max(1, ranks)) H *= 2;
    return std::max(H, transport_halo_planes(flow_transport_));  // the limited transport reads two planes a step
  }

  void run_held_slab(const CellPhantom& held, const SlabSplit& split, const SequenceProgram& prog, const CoilMaps& coils,
                     std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                     const ProgressFn& progress, const CancelToken& cancel) override {
    if (!decomposed()) throw std::invalid_argument("run_held_slab: no rank communicator of several ranks");
    if (!coils.uniform() && coils.sens.size() != static_cast<std::size_t>(coils.ncoils) * held.size())
      throw std::invalid_argument("coil maps do not match the held planes");
    const int rank = comm_->rank();
    int devices = 0;
    cuda_check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    cuda_check(cudaSetDevice(comm_->local_rank() % std::max(1, devices)), "cudaSetDevice");
    const std::size_t held_first = static_cast<std::size_t>(split.held_begin(rank)) * split.plane_cells;
    const std::size_t own_first = static_cast<std::size_t>(split.begin(rank)) * split.plane_cells;
    const std::size_t own_end = static_cast<std::size_t>(split.end(rank)) * split.plane_cells;
    SlabRun s;
    s.own_first = own_first - held_first;
    s.own_end = own_end - held_first;
    s.halo_cells = static_cast<std::size_t>(split.halo) * split.plane_cells;
    s.plane_cells = split.plane_cells;
    s.reach = transport_halo_planes(flow_transport_);
    if (split.halo % s.reach != 0) throw std::invalid_argument("run_held_slab: halo planes not a multiple of the transport's reach");
    s.exchange_every = split.halo / s.reach;
    s.lower = rank > 0;
    s.upper = rank + 1 < split.ranks;
    s.comm = comm_;
    s.ipc = true;
    if (const char* env = std::getenv("MRWB_HALO_TRANSPORT")) s.ipc = std::string(env) != "nccl";
    if (const char* env = std::getenv("MRWB_HALO_EXCHANGE"); env && *env == '0') s.exchange = false;
    // The NCCL communicator (collective: every rank plays the same exchange setting) only for an exchange, so that
    // a rank timed alone with the exchange left out (the scale suite's MRWB_SCALE_SIM_SOLO) waits for no other.
    if (!halo_ && s.exchange) halo_ = std::make_unique<NcclHalo>(*comm_);
    s.halo = halo_.get();
    std::vector<std::complex<double>> sums(samples.size());
    std::vector<std::complex<float>> held_truth(cell_truth.empty() ? 0 : held.size());
    run_grid(held, prog, coils, samples, sums, held_truth, progress, cancel, &s);
    reduce_samples(sums, samples);
    if (cell_truth.empty()) return;
    std::copy(held_truth.begin() + static_cast<std::ptrdiff_t>(s.own_first),
              held_truth.begin() + static_cast<std::ptrdiff_t>(s.own_end),
              cell_truth.begin() + static_cast<std::ptrdiff_t>(own_first));
    comm_->gather_to_root(cell_truth, own_first, own_end);
  }

 private:
  // One rank of a slab decomposition: this rank's held planes as their own grid (slab_phantom), played by
  // run_held_slab on the GPU local_rank % devices, the halo exchanged every H steps (IpcHalo or NcclHalo), the
  // signal summed over the ranks in rank order and the truth gathered to rank 0, as the CPU engine does
  // (cpu_engine_moving.cpp).
  void run_slab(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                const ProgressFn& progress, const CancelToken& cancel) {
    if (!coils.uniform() && coils.sens.size() != static_cast<std::size_t>(coils.ncoils) * ph.size())
      throw std::invalid_argument("coil maps do not match the phantom");
    const SlabSplit split = rank_split(ph);
    const int rank = comm_->rank();
    const CellPhantom slab = slab_phantom(ph, split, rank);
    const std::size_t held_first = static_cast<std::size_t>(split.held_begin(rank)) * split.plane_cells;
    run_held_slab(slab, split, prog, crop_coils(coils, ph.size(), held_first, slab.size()), samples, cell_truth, progress,
                  cancel);
  }

  // The run over the grid `ph`; as one rank (`slab`), the signal stays in double in rank_sums.
  void run_grid(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                std::span<std::complex<float>> samples, std::span<std::complex<double>> rank_sums,
                std::span<std::complex<float>> cell_truth, const ProgressFn& progress, const CancelToken& cancel,
                const SlabRun* slab) {
    const auto t_start = std::chrono::steady_clock::now();
    const std::size_t n = ph.size();
    const bool moving = phantom_moves(ph);
    const std::size_t ncoils = static_cast<std::size_t>(coils.ncoils);
    if (n >= (std::size_t{1} << 31)) throw InputError("simulate: more than 2^31 cells; use coarser cells");
    if (!ph.uz.empty() && ph.uz.size() != n) throw std::invalid_argument("uz does not match the phantom");
    if (ncoils * k_warps > static_cast<std::size_t>(k_readout_slots))
      throw InputError("simulate: coils.count " + std::to_string(ncoils) + " exceeds the CUDA engine's " +
                       std::to_string(k_readout_slots / k_warps) + "; use fewer coils or --backend cpu");
    const CellLists lists = split_cells(ph, moving);
    const auto t_lists = std::chrono::steady_clock::now();
    // Refuse sizes the device cannot hold, with the numbers, before allocating anything.
    std::size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    check_gpu_memory(cuda_simulation_bytes(ph, prog, coils.ncoils, moving, lists.n_stepped), free_b);
    const auto t_checked = std::chrono::steady_clock::now();
    const bool stencil_path = moving && lists.n_stepped > 0;
    std::latch tables_built(1);        // the fluid tables' host work is done (the closed-form tissue's waits for it)
    std::future<StencilHost> stencil;  // built on a host thread (StencilHost)
    if (stencil_path)
      stencil = std::async(std::launch::async, [&ph, &prog, &cancel, &tables_built, fluid = fluid_list(lists, n),
                                                frame = in_gradient_frame(flow_transport_),
                                                limited = second_order(flow_transport_)]() mutable {
        struct Done {
          std::latch& l;
          ~Done() { l.count_down(); }
        } done{tables_built};
        return stencil_host(ph, prog, std::move(fluid), frame, limited, cancel);
      });
    // With fluid cells to step, the closed-form part plays on a stream of its own at the lowest priority beside
    // the steps' (the highest), so that its blocks fill the SMs the steps leave idle (a step's last wave, the gaps
    // between steps) instead of waiting between their graphs; both parts add into the signal by atomics and write
    // distinct cells. A static phantom has only the closed-form part: one stream. MRWB_CLOSED_FORM_STREAM=0 plays
    // both on one stream (A/B measurements).
    Stream stream(Stream::Priority::Highest);
    std::unique_ptr<Stream> closed_own;
    if (const char* env = std::getenv("MRWB_CLOSED_FORM_STREAM"); stencil_path && (!env || *env != '0'))
      closed_own = std::make_unique<Stream>(Stream::Priority::Lowest);
    const cudaStream_t closed_stream = closed_own ? closed_own->s : stream.s;
    Pacer pacer(stream.s, cancel);
    std::unique_ptr<Pacer> closed_own_pacer = closed_own ? std::make_unique<Pacer>(closed_stream, cancel) : nullptr;
    Pacer& closed_pacer = closed_own_pacer ? *closed_own_pacer : pacer;
    const std::vector<int> marks = tr_progress_marks(prog);
    DeviceBuffer<float> Mx(n), My(n), Mz(n);
    const std::size_t n_samples = std::max<std::size_t>(1, samples.size());
    DeviceBuffer<double2> sums(n_samples * k_signal_slots);
    DeviceBuffer<float2> truth(n);
    DeviceBuffer<float2> sens(coils.uniform() ? 0 : ncoils * n);
    DeviceBuffer<std::uint32_t> closed_form(lists.closed_form.size());
    const CellGrid g{ph.nx,        ph.ny,        ph.nz, n, ph.x0_m, ph.y0_m, ph.z0_m, ph.cell_size_m, coils.ncoils,
                     static_cast<std::size_t>(prog.readouts) * prog.nx, n_samples};
    CellData d{Mx.get(), My.get(), Mz.get(), nullptr, nullptr, coils.uniform() ? nullptr : sens.get(), sums.get(), truth.get()};
    // The closed-form cells' tissue (velocities reach the device only as the fluid cells' stencils): with fluid
    // cells to step, built on a host thread while the rest is set up and the steps start (ClosedFormPart).
    const auto t_buffers = std::chrono::steady_clock::now();
    // MRWB_CLOSED_FORM_TISSUE_LATER=0 builds it in the set-up (A/B measurements).
    const char* later_env = std::getenv("MRWB_CLOSED_FORM_TISSUE_LATER");
    const bool later = stencil_path && !(later_env && *later_env == '0');
    ClosedFormPart closed({ph, moving, prog, marks, g, d, lists.closed_form_listed ? closed_form.get() : nullptr,
                           lists.n_closed_form, closed_stream, closed_pacer, closed_own != nullptr},
                          later ? &tables_built : nullptr);
    const auto t_tissue = std::chrono::steady_clock::now();
    if (closed_form.size()) closed_form.upload(lists.closed_form.data());
    if (!coils.uniform()) sens.upload(reinterpret_cast<const float2*>(coils.sens.data()));
    cuda_check(cudaMemset(sums.get(), 0, sums.size() * sizeof(double2)), "memset");
    cuda_check(cudaMemset(truth.get(), 0, n * sizeof(float2)), "memset");
    cuda_check(cudaDeviceSynchronize(), "setup");
    const auto t_setup = std::chrono::steady_clock::now();
    TruthReadback truth_readback(prog, marks, cell_truth.first(std::min(n, cell_truth.size())), truth.get(), cancel);
    int reported = 0;
    auto tr_done = [&](int trs) {  // progress once per TR (trs: TRs queued so far by both parts)
      truth_readback.queued(trs, stream.s, closed_stream);
      if (!progress) return;
      while (reported < trs) progress(static_cast<double>(++reported) / marks.back(), "simulate");
    };

    const int total = marks.empty() ? 0 : marks.back();
    // The CUDA IPC set-up is collective. A rank with no time-stepped cells exchanges nothing (its
    // neighbours' traffic with it is empty both ways) but joins the set-up here and leaves it (an agreement of
    // every rank) after its own work; the others do both in run_time_stepped_stencil.
    std::unique_ptr<IpcHalo> idle_halo;
    if (slab && slab->exchange && slab->ipc && !slab->comm->all_agree(!stencil_path) && !stencil_path)
      idle_halo = IpcHalo::open(*slab->comm, {nullptr, nullptr}, 0, FluidHaloRanges{}, stream.s);
    if (stencil_path) {
      // The steps start once the host thread has the fluid cells' tables (the closed-form tissue follows them).
      const auto t_wait = std::chrono::steady_clock::now();
      StencilHost h = stencil.get();
      if (std::getenv("MRWB_SIM_TIMING"))
        std::fprintf(stderr,
                     "cuda engine: fluid tables ready %.4f s after set-up (waited %.4f s), %zu cells, %zu steps; host "
                     "%.4f s (step table %.4f, stencil %.4f, statics %.4f, frames and tissue table %.4f, state %.4f) "
                     "on %u threads\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t_wait).count(), h.fluid.size(),
                     h.steps.size(), h.part_s[0] + h.part_s[1] + h.part_s[2] + h.part_s[3] + h.part_s[4], h.part_s[0],
                     h.part_s[1], h.part_s[2], h.part_s[3], h.part_s[4], host_threads());
      run_time_stepped_stencil(std::move(h), g, d, closed, stream.s, pacer, tr_done, slab);
    }
    // What is left of the closed-form part (all of it for a static phantom), progress as it is queued.
    closed.wait_started();
    for (int tr = reported + 1; tr <= total; ++tr) tr_done(std::min(tr, closed.play_until(tr)));
    closed.play_until(INT_MAX);
    cuda_check(cudaStreamSynchronize(stream.s), "simulation kernels");
    cuda_check(cudaStreamSynchronize(closed_stream), "simulation kernels");
    idle_halo.reset();
    cancel.throw_if_cancelled();
    const auto t_kernels = std::chrono::steady_clock::now();

    if (slab)
      download_signal(sums, rank_sums);
    else
      download_signal(sums, samples);
    truth_readback.finish(stream.s, closed_stream);
    cancel.throw_if_cancelled();  // a cancel during the copy leaves the truth partial: not a result
    if (!marks.empty()) tr_done(marks.back());
    // MRWB_SIM_TIMING=1: where a run's time goes (bench investigations), on stderr.
    if (const char* env = std::getenv("MRWB_SIM_TIMING"); env && *env == '1') {
      using sec = std::chrono::duration<double>;
      const auto t_end = std::chrono::steady_clock::now();
      std::fprintf(stderr,
                   "cuda engine: %zu cells (%zu stepped, %zu closed form, %zu tissue values): set-up %.4f s (cell lists %.4f, "
                   "memory check %.4f, device buffers %.4f, tissue %.4f s %s), kernels %.4f s, read-back %.4f s\n",
                   n, lists.n_stepped, lists.n_closed_form, closed.tissue_values(), sec(t_setup - t_start).count(),
                   sec(t_lists - t_start).count(), sec(t_checked - t_lists).count(),
                   sec(t_buffers - t_checked).count() + sec(t_setup - t_tissue).count(), closed.tissue_seconds(),
                   later ? "on a host thread beside the steps" : "in the set-up",
                   sec(t_kernels - t_setup).count(), sec(t_end - t_kernels).count());
    }
  }

  std::unique_ptr<NcclHalo> halo_;  // made at the first decomposed run
  // The step table of a moving run (fluid_step_table) on the device, with the TR marks and the step
  // counter the per-step graphs read.
  struct StepTable {
    std::vector<std::pair<long, int>> trs_at;
    std::vector<FluidStep> host;
    DeviceBuffer<FluidStep> steps;
    DeviceBuffer<int> counter;
    int n_steps;
    StepTable(std::vector<FluidStep> table, std::vector<std::pair<long, int>> marks)
        : trs_at(std::move(marks)),
          host(std::move(table)),
          steps(std::max<std::size_t>(1, host.size())),
          counter(1),
          n_steps(static_cast<int>(host.size())) {
      if (!host.empty()) steps.upload(host.data());
      cuda_check(cudaMemset(counter.get(), 0, sizeof(int)), "memset");
    }
  };

  // What the stencil path builds on the host before anything of it reaches the device: the step table,
  // the fluid cells' stencils, positions and tissue, their initial state. A host thread builds it while
  // the rest is set up (a weak-scaling rank's 2.7 M fluid cells take 0.1 s of host work on 16 threads); the
  // closed-form tissue follows (ClosedFormPart). Cancel is polled between the parts.
  struct StencilHost {
    std::vector<std::uint32_t> fluid;
    std::vector<std::pair<long, int>> trs_at;
    std::vector<FluidStep> steps;
    std::vector<FrameStep> frames;  // empty: the donor cell in the lab frame
    UninitialisedVector<float4> u;  // [rank] velocity (gradient frame only)
    FluidStencil sten;
    FluidStatics st;
    bool table = false;  // tissue indexed by pos.w
    UninitialisedVector<float> m0;
    UninitialisedVector<float2> out_fresh;
    std::array<double, 5> part_s{};  // host seconds: step table, stencil, statics, frame table and tissue table, state
  };
  // The passes over the fluid cells run in ranges on host threads (parallel_ranges.hpp; MRWB_HOST_THREADS caps
  // them): a weak-scaling middle rank holds 2.7 M fluid cells and few closed-form cells to play meanwhile.
  static StencilHost stencil_host(const CellPhantom& ph, const SequenceProgram& prog, std::vector<std::uint32_t> fluid,
                                  bool frame, bool limited, const CancelToken& cancel) {
    using clock = std::chrono::steady_clock;
    StencilHost h;
    auto t = clock::now();
    auto lap = [&](int part) {
      const auto now = clock::now();
      h.part_s[static_cast<std::size_t>(part)] = std::chrono::duration<double>(now - t).count();
      t = now;
    };
    h.fluid = std::move(fluid);
    const std::size_t nf = h.fluid.size();
    const int parts = range_parts(nf);
    h.steps = fluid_step_table(ph, prog, h.trs_at, frame);
    lap(0);
    cancel.throw_if_cancelled();
    h.sten = build_fluid_stencil(ph, h.fluid, limited, parts);
    if (h.sten.inflow.size() > static_cast<std::size_t>(INT_MAX))  // the kernel's 32-bit slot indices
      throw InputError("simulate: too many fluid cells for the CUDA engine; use coarser cells");
    lap(1);
    cancel.throw_if_cancelled();
    h.st = gather_fluid_statics(ph, h.fluid);
    lap(2);
    if (frame) {
      h.frames = fluid_frame_table(h.steps, ph.cell_size_m);
      h.u.resize(nf);
      for_each_range(nf, parts, [&](int, std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) h.u[r] = make_float4(h.st.ux[r], h.st.uy[r], h.st.uz[r], 0.f);
      });
    }
    h.table = tissue_table(h.st);
    lap(3);
    h.m0.resize(3 * nf);
    h.out_fresh.resize(nf);
    for_each_range(nf, parts, [&](int, std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) {
        h.m0[k] = h.m0[nf + k] = 0.f;
        h.m0[2 * nf + k] = ph.PD[h.fluid[k]];  // thermal equilibrium
        h.out_fresh[k] = make_float2(h.sten.out[k], h.sten.fresh[k]);
      }
    });
    lap(4);
    return h;
  }

  // The fluid cells in ascending order (split_cells leaves the list empty when every cell is fluid).
  static std::vector<std::uint32_t> fluid_list(const CellLists& lists, std::size_t n) {
    if (!lists.stepped.empty()) return lists.stepped;
    std::vector<std::uint32_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = static_cast<std::uint32_t>(i);
    return all;
  }

  // Plays a table of n_steps one kernel per step: a CUDA graph of K launches (K even, so step j of the
  // graph reads buffer j % 2; launch(j, cfg) enqueues step j with PDL attributes in cfg) and the counter
  // update, launched until the table is done, the closed-form part and progress queued between launches.
  // exchange_every = E > 0: a halo exchange follows every E-th step; K is then a multiple of E, so the
  // exchanges fall on the same steps in every graph launch. exchange_nodes: launch queues it as nodes of its own
  // after the step, and the step after them does not overlap them (else the steps play it themselves).
  template <typename Launch, typename TrDone>
  void play_step_graph(int n_steps, std::size_t count, const std::vector<std::pair<long, int>>& trs_at, int* counter,
                       Launch&& launch, ClosedFormPart& closed, cudaStream_t stream, Pacer& pacer, TrDone& tr_done,
                       int exchange_every = 0, bool exchange_nodes = false) {
    // Ranks (exchange_every > 0) must all play the same steps and exchanges, so K may not depend on a rank's
    // own cell count: they take the largest K.
    const int unit = std::max(2, exchange_every);  // a power of two
    const int K = exchange_every > 0 ? std::max(128, unit)
                                     : std::clamp(static_cast<int>(k_chunk_cell_steps / static_cast<double>(count)) / unit * unit,
                                                  unit, std::max(128, unit));
    Graph graph;
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "graph capture");
    for (int j = 0; j < K; ++j) {
      // Every step after the first of the graph overlaps its launch with the step before (see stencil_step).
      cudaLaunchAttribute pdl{};
      pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      pdl.val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t cfg{};
      cfg.blockDim = dim3(k_block);
      cfg.stream = stream;
      cfg.attrs = &pdl;
      cfg.numAttrs = j > 0 && !(exchange_nodes && exchange_every > 0 && j % exchange_every == 0) ? 1 : 0;
      launch(j, cfg);
    }
    advance_counter<<<1, 1, 0, stream>>>(counter, K);
    cuda_check(cudaStreamEndCapture(stream, &graph.g), "graph capture");
    cuda_check(cudaGetLastError(), "step launch");
    cuda_check(cudaGraphInstantiate(&graph.exec, graph.g, 0), "graph instantiate");
    std::size_t next_mark = 0;
    int trs = 0;
    for (long first = 0; first < n_steps; first += K) {
      cuda_check(cudaGraphLaunch(graph.exec, stream), "graph launch");
      const long end = std::min<long>(n_steps, first + K);
      pacer.queued(static_cast<double>(end - first) * static_cast<double>(count));
      while (next_mark < trs_at.size() && trs_at[next_mark].first <= end) trs = trs_at[next_mark++].second;
      tr_done(std::min(trs, closed.play_until(trs)));
    }
  }

  // Cells per thread of stencil_step: the fewest (1, 2, 4) whose resident blocks hold every cell in one
  // wave (a step is latency-bound: a second wave doubles it), else 4. The tube's 178,600 cells: C = 2;
  // the liver slab's 349,596: C = 4. MRWB_STEP_CELLS=1|2|4 overrides (A/B measurements).
  static int cells_per_thread(std::size_t count) {
    if (const char* env = std::getenv("MRWB_STEP_CELLS")) {
      const int c = std::atoi(env);
      return c >= 4 ? 4 : c >= 2 ? 2 : 1;
    }
    auto one_wave = [&](auto kernel, int C) { return count <= resident_blocks(kernel) * k_block * C; };
    if (one_wave(stencil_step<1, false>, 1)) return 1;
    return one_wave(stencil_step<2, false>, 2) ? 2 : 4;
  }

  // Blocks of k_block threads of `kernel` the device holds at once (blocks per SM × SMs; at least one).
  template <typename Kernel>
  static std::size_t resident_blocks(Kernel kernel) {
    int device = 0, sms = 0, per_sm = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, k_block, 0), "occupancy");
    return static_cast<std::size_t>(std::max(1, per_sm)) * static_cast<std::size_t>(std::max(1, sms));
  }

  // The step blocks' A/B settings (step_blocks.hpp): MRWB_STEP_BALANCE=0 full blocks, =1 full blocks beyond one
  // round and no light round (as before rounds were weighed); MRWB_STEP_SPAN=n blocks of n ranks; MRWB_STEP_TAIL=0
  // no light last round, =2 one wherever the last round is partial (tests), =3 only where the steps' blocks run in
  // rank order (as before step_layout launched the light round last whatever the exchange's order).
  static StepBlockOptions step_block_options() {
    StepBlockOptions o;
    if (const char* env = std::getenv("MRWB_STEP_BALANCE")) o.balance = std::atoi(env);
    if (const char* env = std::getenv("MRWB_STEP_SPAN")) o.span = std::max(0, std::atoi(env));
    if (const char* env = std::getenv("MRWB_STEP_TAIL")) o.light_round = std::atoi(env);
    return o;
  }

  // Replaces the per-cell tissue (PD, R1, R2, ΔB) of `st` by a table of its distinct values, each cell's
  // entry in pos.w, when there are at most 65,536 of them (a vessel tree holds a few; a smooth ΔB map
  // over the vessels may not): 8 bytes per cell and step instead of 24, which keeps the state, stencils
  // and statics of a slab's fluid cells within the L2 cache. False (st unchanged): per-cell tissue.
  static bool tissue_table(FluidStatics& st) {
    TissueTable t;
    auto value = [&](std::size_t k) { return TissueValue{st.tissue[k].x, st.tissue[k].y, st.tissue[k].z, st.tissue[k].w}; };
    if (!distinct_values(st.tissue.size(), value, t)) return false;
    for_each_range(t.entry.size(), range_parts(t.entry.size()), [&](int, std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) st.pos[k].w = t.entry[k];
    });
    st.tissue.resize(t.values.size());
    for (std::size_t e = 0; e < t.values.size(); ++e)
      st.tissue[e] = make_float4(t.values[e][0], t.values[e][1], t.values[e][2], t.values[e][3]);
    return true;
  }

  // Time-steps the fluid cells `fluid` (ascending) one kernel per step over their compact state and
  // transport stencils (stencil_step), the closed-form part queued alongside.
  template <typename TrDone>
  void run_time_stepped_stencil(StencilHost h, const CellGrid& g, CellData d, ClosedFormPart& closed,
                                cudaStream_t stream, Pacer& pacer, TrDone& tr_done, const SlabRun* slab) {
    const std::size_t nf = h.fluid.size();
    const StepTable t(std::move(h.steps), std::move(h.trs_at));
    if (t.n_steps == 0 || nf == 0) {
      // Nothing to step or exchange, but the CUDA IPC set-up is collective (run_grid's idle_halo).
      if (slab && slab->exchange && slab->ipc)
        IpcHalo::open(*slab->comm, {nullptr, nullptr}, 0, FluidHaloRanges{}, stream);
      return;
    }
    const FluidStencil& sten = h.sten;
    const FluidStatics& st = h.st;
    DeviceBuffer<std::uint32_t> d_cell(nf);
    DeviceBuffer<ushort4> d_pos(nf);
    DeviceBuffer<float4> d_tissue(st.tissue.size());
    DeviceBuffer<float2> d_out_fresh(nf);
    DeviceBuffer<FluidInflow> d_inflow(std::max<std::size_t>(1, sten.inflow.size()));
    DeviceBuffer<float> state0(3 * nf), state1(3 * nf);
    const bool frame = !h.frames.empty();
    DeviceBuffer<FrameStep> d_frames(frame ? h.frames.size() : 0);
    DeviceBuffer<float4> d_u(frame ? h.u.size() : 0);
    if (frame) {
      d_frames.upload(h.frames.data());
      d_u.upload(h.u.data());
    }
    d_cell.upload(h.fluid.data());
    d_pos.upload(st.pos.data());
    d_tissue.upload(st.tissue.data());
    d_out_fresh.upload(h.out_fresh.data());
    if (!sten.inflow.empty()) d_inflow.upload(sten.inflow.data());
    const bool limited = sten.limited_slots > 0;
    DeviceBuffer<LimitedFace> d_limited(limited ? sten.limited.size() : 0);
    if (limited) d_limited.upload(sten.limited.data());
    state0.upload(h.m0.data());
    const int C = cells_per_thread(nf);
    auto kernel = limited ? (C == 4 ? stencil_step<4, true, true> : C == 2 ? stencil_step<2, true, true> : stencil_step<1, true, true>)
                  : frame ? (C == 4 ? stencil_step<4, true> : C == 2 ? stencil_step<2, true> : stencil_step<1, true>)
                          : (C == 4 ? stencil_step<4, false> : C == 2 ? stencil_step<2, false> : stencil_step<1, false>);
    // MRWB_STEP_SLOTS=n: a round of n blocks instead of the device's (tests of the light last round on small grids).
    const char* slots_env = std::getenv("MRWB_STEP_SLOTS");
    const std::size_t slots = slots_env && std::atoi(slots_env) > 0 ? static_cast<std::size_t>(std::atoi(slots_env))
                                                                     : resident_blocks(kernel);
    const StepBlockOptions block_options = step_block_options();
    // A rank's own fluid cells and halo traffic: ranks follow grid order (nccl_halo.hpp).
    auto rank_of = [&](std::size_t cell) {
      return static_cast<int>(std::lower_bound(h.fluid.begin(), h.fluid.end(), static_cast<std::uint32_t>(cell)) - h.fluid.begin());
    };
    FluidHaloRanges halo;
    int own_lo = 0, own_hi = static_cast<int>(nf);
    if (slab) {
      own_lo = rank_of(slab->own_first);
      own_hi = rank_of(slab->own_end);
      halo.recv_lower_end = own_lo;
      halo.send_lower_begin = halo.send_lower_end = own_lo;
      if (slab->lower) halo.send_lower_end = rank_of(slab->own_first + slab->halo_cells);
      halo.send_upper_begin = halo.send_upper_end = own_hi;
      if (slab->upper) halo.send_upper_begin = rank_of(slab->own_end - slab->halo_cells);
      halo.recv_upper_begin = own_hi;
      if (const char* env = std::getenv("MRWB_SIM_TIMING"); env && *env == '1')
        std::fprintf(stderr, "cuda engine: rank of %zu fluid cells, own [%d,%d), halo traffic every %d steps: to lower %d, "
                     "from lower %d, to upper %d, from upper %d cells%s\n", nf, own_lo, own_hi, slab->exchange_every,
                     halo.send_lower_end - halo.send_lower_begin, halo.recv_lower_end, halo.send_upper_end - halo.send_upper_begin,
                     static_cast<int>(nf) - halo.recv_upper_begin, slab->exchange ? "" : " (exchange left out: timing only)");
    }
    const StencilFluid f{d_cell.get(),   d_pos.get(), d_tissue.get(),       h.table,        d_out_fresh.get(),
                         d_inflow.get(), frame ? d_frames.get() : nullptr, limited ? d_limited.get() : nullptr,
                         sten.limited_slots, frame ? d_u.get() : nullptr,
                         static_cast<int>(nf), sten.in_slots, own_lo, own_hi, 0, static_cast<int>(nf), nullptr};
    // Deep halo: d steps after an exchange, a cell of halo depth > H − R·(1 + d) is read by no cell before the
    // next exchange (a step reads R planes beyond a cell: the reach, 1 for the donor cell, 2 for the limited
    // transport), so the step skips it; with H = R it steps no halo cell. lo_at[D], hi_at[D]: the ranks stepped
    // with D halo planes on either side.
    const int R = slab ? slab->reach : 1, E = slab ? slab->exchange_every : 1;
    const int H = R * E;
    std::vector<int> lo_at(H, 0), hi_at(H, static_cast<int>(nf));
    if (slab) {
      for (int D = 0; D < H; ++D) {
        const std::size_t depth = static_cast<std::size_t>(D) * slab->plane_cells;
        lo_at[D] = rank_of(slab->own_first >= depth ? slab->own_first - depth : 0);
        hi_at[D] = rank_of(slab->own_end + depth);
      }
    }
    float* buf[2] = {state0.get(), state1.get()};
    std::optional<DeviceBuffer<int2>> d_blocks;  // the steps' blocks (below)
    // Declared after the state buffers and the blocks: its destructor waits for the neighbours' copies into them
    // and for the steps.
    std::unique_ptr<IpcHalo> ipc;
    if (slab && slab->exchange) {
      if (slab->ipc) ipc = IpcHalo::open(*slab->comm, {buf[0], buf[1]}, static_cast<int>(nf), halo, stream);
      if (const char* env = std::getenv("MRWB_SIM_TIMING"); env && *env == '1')
        std::fprintf(stderr, "cuda engine: halo exchange %s\n", ipc ? "through CUDA IPC by peer stores in the step kernels" : "through NCCL");
    }
    // Through CUDA IPC the steps play the exchange themselves: in the step after one, the blocks with ranks
    // within R planes of a halo (or in it) wait for it.
    int wait_lo = 0, wait_hi = static_cast<int>(nf);
    if (ipc) {
      const std::size_t reach = static_cast<std::size_t>(R) * slab->plane_cells;
      wait_lo = rank_of(slab->own_first + reach);
      wait_hi = rank_of(slab->own_end >= reach ? slab->own_end - reach : 0);
    }
    // Step j's ranks, its exchange and so its blocks depend on j mod E only (a graph's K steps are a multiple of E).
    auto active_at = [&](int D) { return std::pair{lo_at[H - R * (1 + D)], hi_at[H - R * (1 + D)]}; };
    auto exchange_at = [&](int D, int parity) {
      StepExchange x;
      if (ipc) {
        // The halo planes of what the next step reads, every E steps. (Past the table's end the step kernels return
        // at once, their exchange with them: harmless, every rank does the same.)
        x = ipc->step(parity, D == E - 1, D == 0);
        x.wait_lo = wait_lo;
        x.wait_hi = wait_hi;
      }
      return x;
    };
    // The blocks of each step of the cycle, in launch order (step_layout), in one device table. MRWB_STEP_ORDER=0:
    // ranks in order whatever the exchange (A/B measurements); MRWB_STEP_ROLE=receive|push: on a run without
    // exchange, the order of a step that reads (stores) a halo as if the lowest (highest) eighth of the ranks waited
    // (stored) (tests and A/B measurements on one GPU).
    const char* order_env = std::getenv("MRWB_STEP_ORDER");
    const bool order_blocks = !(order_env && std::atoi(order_env) == 0);
    const char* role_env = std::getenv("MRWB_STEP_ROLE");
    const std::string forced_role = role_env && !ipc ? role_env : "";
    std::vector<int2> blocks_host;  // step D's blocks: [layout_at[D], layout_at[D + 1])
    std::vector<std::size_t> layout_at(static_cast<std::size_t>(E) + 1, 0);
    for (int D = 0; D < E; ++D) {
      const auto [act_lo, act_hi] = active_at(D);
      const int eighth = (act_hi - act_lo) / 8;
      StepOrder order;
      if (ipc && order_blocks) {
        order = step_order(exchange_at(D, 0));
      } else if (forced_role == "receive") {
        order.role = StepRole::Receive;
        order.last_below = act_lo + eighth;
      } else if (forced_role == "push") {
        order.role = StepRole::Push;
        order.first_from = act_hi - eighth;
        order.first_to = act_hi;
      }
      const StepLayout layout = step_layout(act_lo / 32 * 32, act_lo, act_hi, C, slots, k_block, order, block_options);
      for (const RankRange& b : layout.blocks) blocks_host.push_back(make_int2(b.lo, b.hi));
      layout_at[D + 1] = blocks_host.size();
      // MRWB_SIM_TIMING=1: each step's blocks against the rounds (a step's time jumps with a round, docs/benchmarks.md).
      if (const char* env = std::getenv("MRWB_SIM_TIMING"); env && *env == '1') {
        std::fprintf(stderr, "cuda engine: step %d of %d (%s): %d fluid cells, %zu blocks in rounds of %zu (%d in a light last round)\n",
                     D, E, order.role == StepRole::Receive ? "reads a halo" : order.role == StepRole::Push ? "stores a halo" : "plain",
                     act_hi - act_lo, layout.blocks.size(), slots, layout.light);
      }
    }
    std::size_t most = 0;  // blocks of the cycle's largest launch
    for (int D = 0; D < E; ++D) most = std::max(most, layout_at[D + 1] - layout_at[D]);
    closed.beside_steps_of((most + slots - 1) / slots);
    d_blocks.emplace(blocks_host.size());
    d_blocks->upload(blocks_host.data());
    const FluidStep* steps = t.steps.get();
    play_step_graph(
        t.n_steps, nf, t.trs_at, t.counter.get(),
        [&](int j, cudaLaunchConfig_t& cfg) {
          const int D = j % E;
          StencilFluid fj = f;
          std::tie(fj.act_lo, fj.act_hi) = active_at(D);
          fj.blocks = d_blocks->get() + layout_at[D];
          const int blocks = static_cast<int>(layout_at[D + 1] - layout_at[D]);
          StepExchange x = exchange_at(D, (j + 1) & 1);
          cfg.gridDim = dim3(static_cast<unsigned>(blocks));
          for (int b = 0; b < blocks && x.push; ++b)
            for (int s = 0; s < 2; ++s) x.push_blocks[s] += stores_to(x, block_ranks(fj, blocks_host[layout_at[D] + b]), s);
          cuda_check(cudaLaunchKernelEx(&cfg, kernel, g, d, fj, steps, static_cast<const int*>(t.counter.get()), j, t.n_steps,
                                        static_cast<const float*>(buf[j & 1]), buf[(j + 1) & 1], x),
                     "stencil_step launch");
          const bool exchanged = slab && slab->exchange && D == E - 1;
          if (exchanged && !ipc) slab->halo->enqueue(buf[(j + 1) & 1], static_cast<int>(nf), halo, cfg.stream);
        },
        closed, stream, pacer, tr_done, slab ? slab->exchange_every : 0, !ipc);
  }
};

}  // namespace

std::unique_ptr<SimulationEngine> make_cuda_simulation_engine() { return std::make_unique<CudaSimulationEngine>(); }

void precess_relax_on_device(std::vector<bloch::Mag>& m, const std::vector<float>& PD, const std::vector<float>& one_minus_E1,
                             const std::vector<float>& E2, const std::vector<float>& cos_theta,
                             const std::vector<float>& sin_theta) {
  const std::size_t n = m.size();
  DeviceBuffer<bloch::Mag> d_m(n);
  DeviceBuffer<float> d_pd(n), d_e1(n), d_e2(n), d_c(n), d_s(n);
  d_m.upload(m.data());
  d_pd.upload(PD.data());
  d_e1.upload(one_minus_E1.data());
  d_e2.upload(E2.data());
  d_c.upload(cos_theta.data());
  d_s.upload(sin_theta.data());
  precess_relax_kernel<<<static_cast<unsigned>((n + k_block - 1) / k_block), k_block>>>(
      n, d_m.get(), d_pd.get(), d_e1.get(), d_e2.get(), d_c.get(), d_s.get());
  cuda_check(cudaGetLastError(), "precess_relax launch");
  cuda_check(cudaDeviceSynchronize(), "precess_relax");
  d_m.download(m.data());
}

}  // namespace mrwb::gpu
