// CUDA twin of mrwb::CpuSimulationEngine. State stays on the device for the whole run (SoA); per-cell
// operators come from mrwb/bloch_cell_ops.hpp and mrwb/transport_cell_ops.hpp, shared with the CPU.
//  - static phantoms: one thread per cell plays a group of events per launch (exact, no transport);
//  - moving phantoms: one launch per time step reads buffer A (neighbours for the donor-cell flux, and
//    the signal of the current state, block-reduced for every coil) and writes buffer B; then A <-> B.
// The host only launches and, every ~50 ms, waits to poll cancellation and report progress.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "cuda_check.hpp"
#include "mrwb/transport_cell_ops.hpp"
#include "mrwb_gpu/cuda_simulation_engine.hpp"

namespace mrwb::gpu {
namespace {

constexpr int k_block = 256;

// The event program as the device reads it; trig of RF angles precomputed on the host.
struct DeviceEvent {
  int kind;  // EventKind
  float cos_flip, sin_flip, cos_phase, sin_phase;
  double dt_s, dk_x, dk_y;
  int n_samples;
  int sample_offset;  // first k-space sample of this readout (coil 0)
  int truth_sample;
};

struct CellGrid {
  int nx, ny;
  std::size_t n;
  double x0, y0, cell;
  int ncoils;
  std::size_t per_coil;  // samples per coil
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

// Adds Σ_block C_c·(Mx + i·My) to sums[c·per_coil + sample] for every coil (thread 0 of each block).
__device__ void block_signal(const CellGrid& g, const float2* __restrict__ sens, std::size_t i, bool active,
                             float mx, float my, double2* sums, std::size_t sample, float2* shared) {
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
      atomicAdd(&sums[c * g.per_coil + sample].x, sx);
      atomicAdd(&sums[c * g.per_coil + sample].y, sy);
    }
    __syncthreads();
  }
}

struct CellData {
  float *Mx, *My, *Mz;                // state (static path: the only buffer)
  const float *PD, *T1, *T2, *dB;
  const float *ux, *uy;
  const std::uint8_t* type;
  const float2* sens;                 // nullptr: one uniform coil
  double2* sums;
  float2* truth;
};

// Static path: plays events [e_begin, e_end) for every cell.
__global__ void play_events(CellGrid g, const DeviceEvent* __restrict__ ev, int e_begin, int e_end, CellData d) {
  __shared__ float2 shared[k_block / 32];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < g.n;  // inactive threads still join the block reductions
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

// Time-stepped path, instantaneous events on the current buffer.
__global__ void rf_or_spoil(std::size_t n, float* Mx, float* My, float* Mz, int kind, float ca, float sa, float cp,
                            float sp) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bloch::Mag m{Mx[i], My[i], Mz[i]};
  if (kind == static_cast<int>(EventKind::Rf))
    bloch::rf_rotate(m, ca, sa, cp, sp);
  else
    bloch::spoil(m);
  Mx[i] = m.Mx;
  My[i] = m.My;
  Mz[i] = m.Mz;
}

// One time step: sample (optional) and truth from A, then B = A_MRI · [A + ΔM_F].
__global__ void time_step(CellGrid g, CellData d, const float* __restrict__ Ax, const float* __restrict__ Ay,
                          const float* __restrict__ Az, float* __restrict__ Bx, float* __restrict__ By,
                          float* __restrict__ Bz, double dt, double dkx, double dky, float scale, bool moving,
                          long sample, bool truth) {
  __shared__ float2 shared[k_block / 32];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < g.n;
  if (sample >= 0) block_signal(g, d.sens, i, active, active ? Ax[i] : 0.f, active ? Ay[i] : 0.f, d.sums, sample, shared);
  if (!active) return;
  if (truth) d.truth[i] = make_float2(Ax[i], Ay[i]);
  const int ix = static_cast<int>(i % g.nx), iy = static_cast<int>(i / g.nx);
  bloch::Mag m{Ax[i], Ay[i], Az[i]};
  if (moving) {
    const auto t = transport::donor_cell_gather<float>(ix, iy, g.nx, g.ny, Ax, Ay, Az, d.ux, d.uy, d.type, d.PD, scale, true);
    m = {t.x, t.y, t.z};
  }
  const double x = g.x0 + ix * g.cell, y = g.y0 + iy * g.cell;
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  float c, s;
  rotation_of_fast(dkx * x + dky * y + gamma_cycles * d.dB[i] * dt, c, s);
  const float t1 = d.T1[i], t2 = d.T2[i], fdt = static_cast<float>(dt);
  const float omE1 = t1 > 0.f ? -expm1f(-fdt / t1) : 0.f;
  const float E2 = t2 > 0.f ? expf(-fdt / t2) : 1.f;
  bloch::precess_relax(m, d.PD[i], omE1, E2, c, s);
  Bx[i] = m.Mx;
  By[i] = m.My;
  Bz[i] = m.Mz;
}

__global__ void precess_relax_kernel(std::size_t n, bloch::Mag* m, const float* PD, const float* omE1, const float* E2,
                                     const float* c, const float* s) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bloch::precess_relax(m[i], PD[i], omE1[i], E2[i], c[i], s[i]);
}


class CudaSimulationEngine final : public SimulationEngine {
 public:
  std::string name() const override { return "cuda"; }
  using SimulationEngine::run;

  void run(const Phantom2D& ph, const SequenceProgram& prog, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
           const ProgressFn& progress, const CancelToken& cancel) override {
    const std::size_t n = ph.size();
    const bool moving = phantom_moves(ph);
    const std::size_t ncoils = static_cast<std::size_t>(coils.ncoils);
    // Refuse sizes the device cannot hold, with the numbers.
    std::size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const std::size_t need = n * ((moving ? 6 : 3) * sizeof(float) + 6 * sizeof(float) + 1 + sizeof(float2)) +
                             (coils.uniform() ? 0 : ncoils * n * sizeof(float2)) + samples.size() * sizeof(double2) +
                             prog.events.size() * sizeof(DeviceEvent);
    if (need > free_b)
      throw std::runtime_error("cuda: the simulation needs " + std::to_string(need >> 20) + " MiB of GPU memory, " +
                               std::to_string(free_b >> 20) + " MiB are free; use coarser cells or --backend cpu");

    DeviceBuffer<float> Mx(n), My(n), Mz(n), PD(n), T1(n), T2(n), dB(n), ux(n), uy(n);
    DeviceBuffer<std::uint8_t> type(n);
    PD.upload(ph.PD.data());
    T1.upload(ph.T1_s.data());
    T2.upload(ph.T2_s.data());
    dB.upload(ph.dB_T.data());
    ux.upload(ph.ux.data());
    uy.upload(ph.uy.data());
    type.upload(ph.type.data());
    cuda_check(cudaMemset(Mx.get(), 0, n * sizeof(float)), "memset");
    cuda_check(cudaMemset(My.get(), 0, n * sizeof(float)), "memset");
    Mz.upload(ph.PD.data());  // thermal equilibrium M = PD·z
    DeviceBuffer<float2> sens(coils.uniform() ? 0 : ncoils * n);
    if (!coils.uniform()) sens.upload(reinterpret_cast<const float2*>(coils.sens.data()));
    DeviceBuffer<double2> sums(std::max<std::size_t>(1, samples.size()));
    cuda_check(cudaMemset(sums.get(), 0, sums.size() * sizeof(double2)), "memset");
    DeviceBuffer<float2> truth(n);
    cuda_check(cudaMemset(truth.get(), 0, n * sizeof(float2)), "memset");

    const CellGrid g{ph.nx, ph.ny, n, ph.x0_m, ph.y0_m, ph.cell_size_m, coils.ncoils,
                     static_cast<std::size_t>(prog.readouts) * prog.nx};
    CellData d{Mx.get(), My.get(), Mz.get(), PD.get(), T1.get(), T2.get(), dB.get(), ux.get(), uy.get(),
               type.get(), coils.uniform() ? nullptr : sens.get(), sums.get(), truth.get()};
    const unsigned blocks = static_cast<unsigned>((n + k_block - 1) / k_block);
    auto last_poll = std::chrono::steady_clock::now();
    auto poll = [&](double fraction) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_poll < std::chrono::milliseconds(50)) return;
      cuda_check(cudaDeviceSynchronize(), "simulation kernels");
      last_poll = now;
      cancel.throw_if_cancelled();
      if (progress) progress(fraction, "simulate");
    };

    if (!moving)
      run_static(prog, g, d, blocks, poll);
    else
      run_time_stepped(ph, prog, g, d, blocks, poll);
    cuda_check(cudaDeviceSynchronize(), "simulation kernels");
    cancel.throw_if_cancelled();

    std::vector<double2> host_sums(sums.size());
    sums.download(host_sums.data());
    for (std::size_t j = 0; j < samples.size(); ++j)
      samples[j] = {static_cast<float>(host_sums[j].x), static_cast<float>(host_sums[j].y)};
    std::vector<float2> host_truth(n);
    truth.download(host_truth.data());
    for (std::size_t i = 0; i < n && i < cell_truth.size(); ++i) cell_truth[i] = {host_truth[i].x, host_truth[i].y};
    if (progress) progress(1.0, "simulate");
  }

 private:
  template <typename Poll>
  void run_static(const SequenceProgram& prog, const CellGrid& g, const CellData& d, unsigned blocks, Poll& poll) {
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
    DeviceBuffer<DeviceEvent> d_ev(ev.size());
    d_ev.upload(ev.data());
    // One launch per group of events ending at a readout (at most 64 events during dummy scans).
    std::size_t begin = 0;
    while (begin < ev.size()) {
      std::size_t end = begin;
      while (end < ev.size()) {
        const bool ro = ev[end].kind == static_cast<int>(EventKind::Readout);
        ++end;
        if (ro || end - begin >= 64) break;
      }
      play_events<<<blocks, k_block>>>(g, d_ev.get(), static_cast<int>(begin), static_cast<int>(end), d);
      cuda_check(cudaGetLastError(), "play_events launch");
      begin = end;
      poll(static_cast<double>(begin) / ev.size());
    }
  }

  template <typename Poll>
  void run_time_stepped(const Phantom2D& ph, const SequenceProgram& prog, const CellGrid& g, CellData d,
                        unsigned blocks, Poll& poll) {
    const std::size_t n = g.n;
    DeviceBuffer<float> Bx(n), By(n), Bz(n);
    float *A[3] = {d.Mx, d.My, d.Mz}, *B[3] = {Bx.get(), By.get(), Bz.get()};
    // Same sub-steps as the CPU engine: (|ux| + |uy|)·dt/flow_dt <= 1.
    const double umax = max_courant_speed(ph);
    const double dt_cfl = umax > 0 ? ph.flow_dt_s / umax : 0.0;
    auto substeps = [&](double dt) { return dt_cfl > 0 ? std::max(1, static_cast<int>(std::ceil(dt / dt_cfl - 1e-9))) : 1; };
    auto step = [&](double dt, double dkx, double dky, long sample, bool truth) {
      time_step<<<blocks, k_block>>>(g, d, A[0], A[1], A[2], B[0], B[1], B[2], dt, dkx, dky,
                                     static_cast<float>(dt / ph.flow_dt_s), true, sample, truth);
      cuda_check(cudaGetLastError(), "time_step launch");
      std::swap(A, B);
    };
    int readout = 0;
    for (std::size_t k = 0; k < prog.events.size(); ++k) {
      const SeqEvent& e = prog.events[k];
      switch (e.kind) {
        case EventKind::Rf:
        case EventKind::Spoil:
          rf_or_spoil<<<blocks, k_block>>>(n, A[0], A[1], A[2], static_cast<int>(e.kind),
                                           static_cast<float>(std::cos(e.flip_rad)), static_cast<float>(std::sin(e.flip_rad)),
                                           static_cast<float>(std::cos(e.phase_rad)), static_cast<float>(std::sin(e.phase_rad)));
          cuda_check(cudaGetLastError(), "rf launch");
          break;
        case EventKind::Free: {
          const int s = substeps(e.dt_s);
          for (int j = 0; j < s; ++j) step(e.dt_s / s, e.dk_x / s, e.dk_y / s, -1, false);
          break;
        }
        case EventKind::Readout: {
          const int s = substeps(e.dt_s);
          for (int j = 0; j < e.n_samples; ++j)
            for (int sub = 0; sub < s; ++sub)
              step(e.dt_s / s, e.dk_x / s, e.dk_y / s, sub == 0 ? static_cast<long>(readout) * prog.nx + j : -1,
                   sub == 0 && j == e.truth_sample);
          ++readout;
          break;
        }
      }
      poll(static_cast<double>(k + 1) / prog.events.size());
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
