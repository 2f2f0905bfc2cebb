// CUDA twin of mrwb::CpuSimulationEngine. State stays on the device for the whole run (SoA); per-cell
// operators come from mrwb/bloch_cell_ops.hpp and mrwb/transport_cell_ops.hpp, shared with the CPU.
//  - static phantoms: one thread per cell plays the events of one TR per launch (exact, no transport);
//    large grids are split into cell ranges so that no launch outlasts a pacing chunk;
//  - moving phantoms: every time step is one record of a step table built once on the host (interval,
//    gradient moment, sample index, and the RF or spoiling that precedes it); one kernel per step reads
//    buffer A (neighbours for the donor-cell flux, the signal of the current state block-reduced for all
//    coils) and writes buffer B. The steps are launched as a CUDA graph of K kernels that reads its
//    position from a device counter, so one graph launch plays K steps with no host work in between.
// Pacing: the host stays at most about one chunk (~2^27 cell-steps, a few ms of GPU work) ahead of the
// device; at every chunk it polls the cancel token, so cancel is honoured within ~10 ms; progress is
// reported once per TR, dummy TRs included (tr_progress_marks).
#include <algorithm>
#include <cmath>

#include "cuda_check.hpp"
#include "mrwb/transport_cell_ops.hpp"
#include "mrwb_gpu/cuda_simulation_engine.hpp"

namespace mrwb::gpu {
namespace {

constexpr int k_block = 256;
constexpr double k_chunk_cell_steps = 134217728.0;  // 2^27: a few ms of device work per pacing chunk

// The event program as the device reads it (static path); trig of RF angles precomputed on the host.
struct DeviceEvent {
  int kind;  // EventKind
  float cos_flip, sin_flip, cos_phase, sin_phase;
  double dt_s, dk_x, dk_y;
  int n_samples;
  int sample_offset;  // first k-space sample of this readout (coil 0)
  int truth_sample;
};
static_assert(sizeof(DeviceEvent) <= k_device_event_bytes, "memory estimate (simulation_memory.cpp) too small");

// One time step of the time-stepped path.
struct DeviceStep {
  double dt_s, dk_x, dk_y;  // interval and gradient moment of this step
  float scale;              // dt / flow_dt: the Courant scale of the transport
  int sample;               // coil-0 k-space index of the state before the step (after `op`), or −1
  int truth;                // 1: record cell Mxy of that state
  int op;                   // instantaneous operator before the step: 0 none, 1 RF, 2 spoil
  float ca, sa, cp, sp;     // RF: cos/sin of flip and phase
};
static_assert(sizeof(DeviceStep) <= k_device_step_bytes, "memory estimate (simulation_memory.cpp) too small");

struct CellGrid {
  int nx, ny;
  std::size_t n;
  double x0, y0, cell;
  int ncoils;
  std::size_t per_coil;  // samples per coil
  std::size_t samples;   // all coils: the stride between signal slots
};

__device__ void rotation_of(double cycles, float& c, float& s) {
  const double frac = cycles - rint(cycles);
  double sd, cd;
  sincospi(2.0 * frac, &sd, &cd);
  c = static_cast<float>(cd);
  s = static_cast<float>(sd);
}

// Single-precision variant for the per-step kernel: the angle is reduced to a fraction of a turn in
// double (exact for large gradient moments), the sine and cosine of that fraction taken in float.
__device__ void rotation_of_fast(double cycles, float& c, float& s) {
  const float frac = static_cast<float>(cycles - rint(cycles));
  sincospif(2.0f * frac, &s, &c);
}

// Relaxation factors over dt: 1 − E1 (via expm1, precise for short steps) and E2.
__device__ void relax_of(double dt, float t1, float t2, float& omE1, float& E2) {
  omE1 = t1 > 0.f ? static_cast<float>(-expm1(-dt / t1)) : 0.f;
  E2 = t2 > 0.f ? static_cast<float>(exp(-dt / t2)) : 1.f;
}

// Adds Σ_block C_c·(Mx + i·My) to the signal of `sample` for every coil (thread 0 of each block). Blocks
// spread their atomics over k_signal_slots partial sums, summed on the host: same-address atomics
// from hundreds of blocks would serialise.
__device__ void block_signal(const CellGrid& g, const float2* __restrict__ sens, std::size_t i, bool active,
                             float mx, float my, double2* sums, std::size_t sample, float2* shared) {
  double2* slot = sums + (blockIdx.x % k_signal_slots) * g.samples;
  for (int c = 0; c < g.ncoils; ++c) {
    float vx = 0.f, vy = 0.f;
    if (active) {
      if (sens) {
        const float2 C = sens[static_cast<std::size_t>(c) * g.n + i];
        vx = C.x * mx - C.y * my;
        vy = C.x * my + C.y * mx;
      } else {
        vx = mx;
        vy = my;
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      vx += __shfl_down_sync(0xffffffffu, vx, o);
      vy += __shfl_down_sync(0xffffffffu, vy, o);
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) shared[warp] = make_float2(vx, vy);
    __syncthreads();
    if (threadIdx.x == 0) {
      double sx = 0, sy = 0;
      for (int w = 0; w < k_block / 32; ++w) {
        sx += shared[w].x;
        sy += shared[w].y;
      }
      atomicAdd(&slot[c * g.per_coil + sample].x, sx);
      atomicAdd(&slot[c * g.per_coil + sample].y, sy);
    }
    __syncthreads();
  }
}

struct CellData {
  float *Mx, *My, *Mz;  // state (static path: the only buffer)
  const float* __restrict__ PD;
  const float* __restrict__ T1;
  const float* __restrict__ T2;
  const float* __restrict__ dB;
  const float* __restrict__ ux;
  const float* __restrict__ uy;
  const std::uint8_t* __restrict__ type;
  const std::uint8_t* open_end;  // nullptr: no vessel ends inside the grid
  const float2* sens;            // nullptr: one uniform coil
  double2* sums;                 // k_signal_slots × samples
  float2* truth;
};

// Static path: plays events [e_begin, e_end) for cells [first, last).
__global__ void play_events(CellGrid g, const DeviceEvent* __restrict__ ev, int e_begin, int e_end, CellData d,
                            std::size_t first, std::size_t last) {
  __shared__ float2 shared[k_block / 32];
  const std::size_t i = first + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < last;  // inactive threads still join the block reductions
  bloch::Mag m{0.f, 0.f, 0.f};
  float pd = 0.f, t1 = 0.f, t2 = 0.f, db = 0.f;
  double x = 0, y = 0;
  if (active) {
    m = {d.Mx[i], d.My[i], d.Mz[i]};
    pd = d.PD[i];
    t1 = d.T1[i];
    t2 = d.T2[i];
    db = d.dB[i];
    x = g.x0 + static_cast<double>(i % g.nx) * g.cell;
    y = g.y0 + static_cast<double>(i / g.nx) * g.cell;
  }
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  for (int e = e_begin; e < e_end; ++e) {
    const DeviceEvent E = ev[e];
    if (E.kind == static_cast<int>(EventKind::Rf)) {
      bloch::rf_rotate(m, E.cos_flip, E.sin_flip, E.cos_phase, E.sin_phase);
    } else if (E.kind == static_cast<int>(EventKind::Spoil)) {
      bloch::spoil(m);
    } else {
      float c, s, omE1, E2;
      rotation_of(E.dk_x * x + E.dk_y * y + gamma_cycles * db * E.dt_s, c, s);
      relax_of(E.dt_s, t1, t2, omE1, E2);
      if (E.kind == static_cast<int>(EventKind::Free)) {
        bloch::precess_relax(m, pd, omE1, E2, c, s);
      } else {  // Readout: sample, then step one dwell
        for (int j = 0; j < E.n_samples; ++j) {
          block_signal(g, d.sens, i, active, m.Mx, m.My, d.sums, E.sample_offset + j, shared);
          if (active && j == E.truth_sample) d.truth[i] = make_float2(m.Mx, m.My);
          bloch::precess_relax(m, pd, omE1, E2, c, s);
        }
      }
    }
  }
  if (active) {
    d.Mx[i] = m.Mx;
    d.My[i] = m.My;
    d.Mz[i] = m.Mz;
  }
}

__device__ void apply_op(const DeviceStep& S, bloch::Mag& m) {
  if (S.op == 1) bloch::rf_rotate(m, S.ca, S.sa, S.cp, S.sp);
  if (S.op == 2) bloch::spoil(m);
}

// Time step number *counter + offset of the table: B = A_MRI · [op(A) + ΔM_F], sampling op(A) first.
// op is uniform over cells and transport linear, so op(transport(A) − fresh) + fresh = transport(op(A)):
// the same result as the CPU twin, which applies op to the whole buffer before the step.
__global__ void table_step(CellGrid g, CellData d, const DeviceStep* __restrict__ steps, const int* __restrict__ counter,
                           int offset, int n_steps, const float* __restrict__ Ax, const float* __restrict__ Ay,
                           const float* __restrict__ Az, float* __restrict__ Bx, float* __restrict__ By,
                           float* __restrict__ Bz) {
  __shared__ float2 shared[k_block / 32];
  const int k = *counter + offset;
  if (k >= n_steps) return;  // uniform over the grid: the last graph launch may run past the end
  const DeviceStep S = steps[k];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < g.n;
  bloch::Mag own{0.f, 0.f, 0.f};
  if (active) {
    own = {Ax[i], Ay[i], Az[i]};
    apply_op(S, own);
  }
  if (S.sample >= 0) block_signal(g, d.sens, i, active, own.Mx, own.My, d.sums, S.sample, shared);
  if (!active) return;
  if (S.truth) d.truth[i] = make_float2(own.Mx, own.My);
  const unsigned iu = static_cast<unsigned>(i);  // n < 2^31 checked on the host
  const int ix = static_cast<int>(iu % static_cast<unsigned>(g.nx)), iy = static_cast<int>(iu / static_cast<unsigned>(g.nx));
  float fresh = 0.f;
  const auto t = transport::donor_cell_gather<float>(ix, iy, g.nx, g.ny, Ax, Ay, Az, d.ux, d.uy, d.type, d.PD, S.scale,
                                                     true, d.open_end, &fresh);
  bloch::Mag m{t.x, t.y, t.z - fresh};
  apply_op(S, m);
  m.Mz += fresh;
  const double x = g.x0 + ix * g.cell, y = g.y0 + iy * g.cell;
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  float c, s;
  rotation_of_fast(S.dk_x * x + S.dk_y * y + gamma_cycles * d.dB[i] * S.dt_s, c, s);
  const float t1 = d.T1[i], t2 = d.T2[i], fdt = static_cast<float>(S.dt_s);
  const float omE1 = t1 > 0.f ? -expm1f(-fdt / t1) : 0.f;
  const float E2 = t2 > 0.f ? expf(-fdt / t2) : 1.f;
  bloch::precess_relax(m, d.PD[i], omE1, E2, c, s);
  Bx[i] = m.Mx;
  By[i] = m.My;
  Bz[i] = m.Mz;
}

__global__ void advance_counter(int* counter, int by) { *counter += by; }

__global__ void precess_relax_kernel(std::size_t n, bloch::Mag* m, const float* PD, const float* omE1, const float* E2,
                                     const float* c, const float* s) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bloch::precess_relax(m[i], PD[i], omE1[i], E2[i], c[i], s[i]);
}

// RAII for the stream, the pacing events and the graph.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { cuda_check(cudaStreamCreate(&s), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s); }
};
struct Graph {
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (g) cudaGraphDestroy(g);
  }
};

// Keeps the host at most one chunk of queued work ahead of the device and polls cancellation there.
class Pacer {
 public:
  Pacer(cudaStream_t s, const CancelToken& cancel) : s_(s), cancel_(cancel) {
    for (auto& e : ev_) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~Pacer() {
    for (auto& e : ev_) cudaEventDestroy(e);
  }
  void queued(double cell_steps) {
    pending_ += cell_steps;
    if (pending_ < k_chunk_cell_steps) return;
    pending_ = 0;
    cuda_check(cudaEventRecord(ev_[k_], s_), "cudaEventRecord");
    if (recorded_[k_ ^ 1]) cuda_check(cudaEventSynchronize(ev_[k_ ^ 1]), "simulation kernels");
    recorded_[k_] = true;
    k_ ^= 1;
    cancel_.throw_if_cancelled();
  }

 private:
  cudaStream_t s_;
  const CancelToken& cancel_;
  cudaEvent_t ev_[2] = {nullptr, nullptr};
  bool recorded_[2] = {false, false};
  int k_ = 0;
  double pending_ = 0;
};

class CudaSimulationEngine final : public SimulationEngine {
 public:
  std::string name() const override { return "cuda"; }
  using SimulationEngine::run;

  void run(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
           const ProgressFn& progress, const CancelToken& cancel) override {
    const std::size_t n = ph.size();
    const bool moving = phantom_moves(ph);
    const std::size_t ncoils = static_cast<std::size_t>(coils.ncoils);
    if (n >= (std::size_t{1} << 31)) throw InputError("simulate: more than 2^31 cells; use coarser cells");
    if (ph.nz != 1) throw std::invalid_argument("the CUDA engine plays 2-D phantoms only (nz = 1)");
    // Refuse sizes the device cannot hold, with the numbers, before allocating anything.
    std::size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    check_gpu_memory(cuda_simulation_bytes(ph, prog, coils.ncoils), free_b);

    Stream stream;
    DeviceBuffer<float> Mx(n), My(n), Mz(n), PD(n), T1(n), T2(n), dB(n), ux(n), uy(n);
    DeviceBuffer<std::uint8_t> type(n), open_end(ph.open_end.size() == n ? n : 0);
    PD.upload(ph.PD.data());
    T1.upload(ph.T1_s.data());
    T2.upload(ph.T2_s.data());
    dB.upload(ph.dB_T.data());
    ux.upload(ph.ux.data());
    uy.upload(ph.uy.data());
    type.upload(ph.type.data());
    if (open_end.size()) open_end.upload(ph.open_end.data());
    cuda_check(cudaMemset(Mx.get(), 0, n * sizeof(float)), "memset");
    cuda_check(cudaMemset(My.get(), 0, n * sizeof(float)), "memset");
    Mz.upload(ph.PD.data());  // thermal equilibrium M = PD·z
    DeviceBuffer<float2> sens(coils.uniform() ? 0 : ncoils * n);
    if (!coils.uniform()) sens.upload(reinterpret_cast<const float2*>(coils.sens.data()));
    const std::size_t n_samples = std::max<std::size_t>(1, samples.size());
    DeviceBuffer<double2> sums(n_samples * k_signal_slots);
    cuda_check(cudaMemset(sums.get(), 0, sums.size() * sizeof(double2)), "memset");
    DeviceBuffer<float2> truth(n);
    cuda_check(cudaMemset(truth.get(), 0, n * sizeof(float2)), "memset");
    cuda_check(cudaDeviceSynchronize(), "setup");

    const CellGrid g{ph.nx, ph.ny, n, ph.x0_m, ph.y0_m, ph.cell_size_m, coils.ncoils,
                     static_cast<std::size_t>(prog.readouts) * prog.nx, n_samples};
    CellData d{Mx.get(), My.get(), Mz.get(), PD.get(), T1.get(), T2.get(), dB.get(), ux.get(), uy.get(), type.get(),
               open_end.size() ? open_end.get() : nullptr, coils.uniform() ? nullptr : sens.get(), sums.get(),
               truth.get()};
    Pacer pacer(stream.s, cancel);
    const std::vector<int> marks = tr_progress_marks(prog);
    int reported = 0;
    auto tr_done = [&](int trs) {  // progress once per TR (trs: TRs queued so far)
      if (!progress) return;
      while (reported < trs) progress(static_cast<double>(++reported) / marks.back(), "simulate");
    };

    if (!moving)
      run_static(prog, marks, g, d, stream.s, pacer, tr_done);
    else
      run_time_stepped(ph, prog, marks, g, d, stream.s, pacer, tr_done);
    cuda_check(cudaStreamSynchronize(stream.s), "simulation kernels");
    cancel.throw_if_cancelled();

    std::vector<double2> host_sums(sums.size());
    sums.download(host_sums.data());
    for (std::size_t j = 0; j < samples.size(); ++j) {
      double sx = 0, sy = 0;
      for (std::size_t k = 0; k < k_signal_slots; ++k) {
        sx += host_sums[k * n_samples + j].x;
        sy += host_sums[k * n_samples + j].y;
      }
      samples[j] = {static_cast<float>(sx), static_cast<float>(sy)};
    }
    std::vector<float2> host_truth(n);
    truth.download(host_truth.data());
    for (std::size_t i = 0; i < n && i < cell_truth.size(); ++i) cell_truth[i] = {host_truth[i].x, host_truth[i].y};
    if (!marks.empty()) tr_done(marks.back());
  }

 private:
  template <typename TrDone>
  void run_static(const SequenceProgram& prog, const std::vector<int>& marks, const CellGrid& g, const CellData& d,
                  cudaStream_t stream, Pacer& pacer, TrDone& tr_done) {
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
      de.n_samples = e.n_samples;
      de.truth_sample = e.truth_sample;
      de.sample_offset = e.kind == EventKind::Readout ? readout++ * prog.nx : 0;
    }
    DeviceBuffer<DeviceEvent> d_ev(std::max<std::size_t>(1, ev.size()));
    if (!ev.empty()) d_ev.upload(ev.data());
    // One launch per group of events ending at a readout (at most 64 events during dummy scans), split
    // into cell ranges of at most one pacing chunk each.
    std::size_t begin = 0;
    while (begin < ev.size()) {
      std::size_t end = begin;
      double cost = 0;  // cell-steps per cell of this group
      bool ro = false;
      while (end < ev.size()) {
        ro = ev[end].kind == static_cast<int>(EventKind::Readout);
        cost += 1 + (ro ? ev[end].n_samples : 0);
        ++end;
        if (ro || end - begin >= 64) break;
      }
      const std::size_t range =
          std::max<std::size_t>(k_block, static_cast<std::size_t>(k_chunk_cell_steps / cost) / k_block * k_block);
      for (std::size_t first = 0; first < g.n; first += range) {
        const std::size_t last = std::min(g.n, first + range);
        const unsigned blocks = static_cast<unsigned>((last - first + k_block - 1) / k_block);
        play_events<<<blocks, k_block, 0, stream>>>(g, d_ev.get(), static_cast<int>(begin), static_cast<int>(end), d,
                                                    first, last);
        cuda_check(cudaGetLastError(), "play_events launch");
        pacer.queued(cost * static_cast<double>(last - first));
      }
      tr_done(marks[end - 1]);
      begin = end;
    }
  }

  // The step table: every sub-step of every Free interval and ADC sample, each RF/spoil folded into the
  // step after it (a zero-length step when two come in a row). trs_at: (steps, TRs completed by then).
  static std::vector<DeviceStep> step_table(const CellPhantom& ph, const SequenceProgram& prog, const std::vector<int>& marks,
                                            std::vector<std::pair<long, int>>& trs_at) {
    const double dt_cfl = courant_dt_s(ph);
    std::vector<DeviceStep> table;
    table.reserve(static_cast<std::size_t>(time_step_count(ph, prog)) + 16);
    DeviceStep pending{};  // op waiting for the next step
    auto push = [&](double dt, double dkx, double dky, int sample, bool truth) {
      DeviceStep s = pending;
      pending = DeviceStep{};
      s.dt_s = dt;
      s.dk_x = dkx;
      s.dk_y = dky;
      s.scale = static_cast<float>(dt / ph.flow_dt_s);
      s.sample = sample;
      s.truth = truth ? 1 : 0;
      table.push_back(s);
    };
    auto set_op = [&](int op, const SeqEvent& e) {
      if (pending.op != 0) push(0, 0, 0, -1, false);  // two instantaneous ops in a row
      pending.op = op;
      pending.ca = static_cast<float>(std::cos(e.flip_rad));
      pending.sa = static_cast<float>(std::sin(e.flip_rad));
      pending.cp = static_cast<float>(std::cos(e.phase_rad));
      pending.sp = static_cast<float>(std::sin(e.phase_rad));
    };
    int readout = 0;
    for (std::size_t ei = 0; ei < prog.events.size(); ++ei) {
      const SeqEvent& e = prog.events[ei];
      const int k = courant_substeps(e.dt_s, dt_cfl);
      switch (e.kind) {
        case EventKind::Rf: set_op(1, e); break;
        case EventKind::Spoil: set_op(2, e); break;
        case EventKind::Free:
          for (int j = 0; j < k; ++j) push(e.dt_s / k, e.dk_x / k, e.dk_y / k, -1, false);
          break;
        case EventKind::Readout:
          for (int j = 0; j < e.n_samples; ++j)
            for (int sub = 0; sub < k; ++sub)
              push(e.dt_s / k, e.dk_x / k, e.dk_y / k, sub == 0 ? readout * prog.nx + j : -1, sub == 0 && j == e.truth_sample);
          ++readout;
          break;
      }
      if (marks[ei] > (trs_at.empty() ? 0 : trs_at.back().second)) trs_at.emplace_back(static_cast<long>(table.size()), marks[ei]);
    }
    // A trailing op changes no sample: dropped.
    return table;
  }

  template <typename TrDone>
  void run_time_stepped(const CellPhantom& ph, const SequenceProgram& prog, const std::vector<int>& marks,
                        const CellGrid& g, CellData d, cudaStream_t stream, Pacer& pacer, TrDone& tr_done) {
    const std::size_t n = g.n;
    std::vector<std::pair<long, int>> trs_at;
    const std::vector<DeviceStep> table = step_table(ph, prog, marks, trs_at);
    const int n_steps = static_cast<int>(table.size());
    if (n_steps == 0) return;
    DeviceBuffer<DeviceStep> d_table(table.size());
    d_table.upload(table.data());
    DeviceBuffer<int> counter(1);
    cuda_check(cudaMemset(counter.get(), 0, sizeof(int)), "memset");
    DeviceBuffer<float> Bx(n), By(n), Bz(n);
    cuda_check(cudaDeviceSynchronize(), "setup");
    float* buf[2][3] = {{d.Mx, d.My, d.Mz}, {Bx.get(), By.get(), Bz.get()}};
    const unsigned blocks = static_cast<unsigned>((n + k_block - 1) / k_block);

    // Graph of K steps (K even, so step k always reads buffer k % 2) plus the counter update.
    const int K = std::clamp(static_cast<int>(k_chunk_cell_steps / static_cast<double>(n)) / 2 * 2, 2, 128);
    Graph graph;
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "graph capture");
    for (int j = 0; j < K; ++j) {
      float* const* A = buf[j & 1];
      float* const* B = buf[(j + 1) & 1];
      table_step<<<blocks, k_block, 0, stream>>>(g, d, d_table.get(), counter.get(), j, n_steps, A[0], A[1], A[2], B[0],
                                                 B[1], B[2]);
    }
    advance_counter<<<1, 1, 0, stream>>>(counter.get(), K);
    cuda_check(cudaStreamEndCapture(stream, &graph.g), "graph capture");
    cuda_check(cudaGetLastError(), "table_step launch");
    cuda_check(cudaGraphInstantiate(&graph.exec, graph.g, 0), "graph instantiate");

    std::size_t next_mark = 0;
    for (long first = 0; first < n_steps; first += K) {
      cuda_check(cudaGraphLaunch(graph.exec, stream), "graph launch");
      const long end = std::min<long>(n_steps, first + K);
      pacer.queued(static_cast<double>(end - first) * static_cast<double>(n));
      while (next_mark < trs_at.size() && trs_at[next_mark].first <= end) tr_done(trs_at[next_mark++].second);
    }
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
