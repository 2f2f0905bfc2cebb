#include <algorithm>
#include <chrono>
#include <cmath>

#include "cuda_check.hpp"
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
  int sample_offset;  // first k-space sample of this readout in the output
  int truth_sample;
};

struct CellGrid {
  int nx;
  std::size_t n;
  double x0, y0, cell;
};

__device__ void rotation_of(double cycles, float& c, float& s) {
  const double frac = cycles - rint(cycles);
  double sd, cd;
  sincospi(2.0 * frac, &sd, &cd);
  c = static_cast<float>(cd);
  s = static_cast<float>(sd);
}

// Sum of (Mx, My) over the block, added to sums[sample] (double) by thread 0.
__device__ void block_sum_to(double2* sums, int sample, float mx, float my, float2* shared) {
  for (int o = 16; o > 0; o >>= 1) {
    mx += __shfl_down_sync(0xffffffffu, mx, o);
    my += __shfl_down_sync(0xffffffffu, my, o);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) shared[warp] = make_float2(mx, my);
  __syncthreads();
  if (threadIdx.x == 0) {
    double sx = 0, sy = 0;
    for (int w = 0; w < k_block / 32; ++w) {
      sx += shared[w].x;
      sy += shared[w].y;
    }
    atomicAdd(&sums[sample].x, sx);
    atomicAdd(&sums[sample].y, sy);
  }
  __syncthreads();
}

// Plays events [e_begin, e_end) for every cell; magnetization lives in global memory between launches.
__global__ void play_events(CellGrid g, const DeviceEvent* __restrict__ ev, int e_begin, int e_end,
                            float* __restrict__ Mx, float* __restrict__ My, float* __restrict__ Mz,
                            const float* __restrict__ PD, const float* __restrict__ T1, const float* __restrict__ T2,
                            const float* __restrict__ dB, double2* __restrict__ sums, float2* __restrict__ truth) {
  __shared__ float2 shared[k_block / 32];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < g.n;  // inactive threads still join the block reductions
  bloch::Mag m{0.f, 0.f, 0.f};
  float pd = 0.f, t1 = 0.f, t2 = 0.f, db = 0.f;
  double x = 0, y = 0;
  if (active) {
    m = {Mx[i], My[i], Mz[i]};
    pd = PD[i];
    t1 = T1[i];
    t2 = T2[i];
    db = dB[i];
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
      float c, s;
      rotation_of(E.dk_x * x + E.dk_y * y + gamma_cycles * db * E.dt_s, c, s);
      const float omE1 = t1 > 0.f ? -expm1f(static_cast<float>(-E.dt_s) / t1) : 0.f;  // 1 − E1
      const float E2 = t2 > 0.f ? expf(static_cast<float>(-E.dt_s) / t2) : 1.f;
      if (E.kind == static_cast<int>(EventKind::Free)) {
        bloch::precess_relax(m, pd, omE1, E2, c, s);
      } else {  // Readout: sample, then step one dwell
        for (int j = 0; j < E.n_samples; ++j) {
          block_sum_to(sums, E.sample_offset + j, active ? m.Mx : 0.f, active ? m.My : 0.f, shared);
          if (active && j == E.truth_sample) truth[i] = make_float2(m.Mx, m.My);
          bloch::precess_relax(m, pd, omE1, E2, c, s);
        }
      }
    }
  }
  if (active) {
    Mx[i] = m.Mx;
    My[i] = m.My;
    Mz[i] = m.Mz;
  }
}

__global__ void precess_relax_kernel(std::size_t n, bloch::Mag* m, const float* PD, const float* omE1, const float* E2,
                                     const float* c, const float* s) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bloch::precess_relax(m[i], PD[i], omE1[i], E2[i], c[i], s[i]);
}

class CudaSimulationEngine final : public SimulationEngine {
 public:
  std::string name() const override { return "cuda"; }

  void run(const Phantom2D& ph, const SequenceProgram& prog, std::span<std::complex<float>> samples,
           std::span<std::complex<float>> cell_truth, const ProgressFn& progress, const CancelToken& cancel) override {
    const std::size_t n = ph.size();
    // Refuse sizes the device cannot hold, with the numbers.
    std::size_t free_b = 0, total_b = 0;
    cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const std::size_t need = n * (7 * sizeof(float) + sizeof(float2)) + samples.size() * sizeof(double2) +
                             prog.events.size() * sizeof(DeviceEvent);
    if (need > free_b)
      throw std::runtime_error("cuda: the simulation needs " + std::to_string(need >> 20) + " MiB of GPU memory, " +
                               std::to_string(free_b >> 20) + " MiB are free");

    std::vector<DeviceEvent> ev(prog.events.size());
    int readout = 0;
    for (std::size_t k = 0; k < ev.size(); ++k) {
      const SeqEvent& e = prog.events[k];
      DeviceEvent& d = ev[k];
      d.kind = static_cast<int>(e.kind);
      d.cos_flip = static_cast<float>(std::cos(e.flip_rad));
      d.sin_flip = static_cast<float>(std::sin(e.flip_rad));
      d.cos_phase = static_cast<float>(std::cos(e.phase_rad));
      d.sin_phase = static_cast<float>(std::sin(e.phase_rad));
      d.dt_s = e.dt_s;
      d.dk_x = e.dk_x;
      d.dk_y = e.dk_y;
      d.n_samples = e.n_samples;
      d.truth_sample = e.truth_sample;
      d.sample_offset = e.kind == EventKind::Readout ? readout++ * prog.nx : 0;
    }

    DeviceBuffer<DeviceEvent> d_ev(ev.size());
    d_ev.upload(ev.data());
    DeviceBuffer<float> Mx(n), My(n), Mz(n), PD(n), T1(n), T2(n), dB(n);
    PD.upload(ph.PD.data());
    T1.upload(ph.T1_s.data());
    T2.upload(ph.T2_s.data());
    dB.upload(ph.dB_T.data());
    cuda_check(cudaMemset(Mx.get(), 0, n * sizeof(float)), "memset");
    cuda_check(cudaMemset(My.get(), 0, n * sizeof(float)), "memset");
    Mz.upload(ph.PD.data());  // thermal equilibrium M = PD·z
    DeviceBuffer<double2> sums(std::max<std::size_t>(1, samples.size()));
    cuda_check(cudaMemset(sums.get(), 0, sums.size() * sizeof(double2)), "memset");
    DeviceBuffer<float2> truth(n);
    cuda_check(cudaMemset(truth.get(), 0, n * sizeof(float2)), "memset");

    const CellGrid g{ph.nx, n, ph.x0_m, ph.y0_m, ph.cell_size_m};
    const unsigned blocks = static_cast<unsigned>((n + k_block - 1) / k_block);
    // One launch per group of events ending at a readout; the host only checks for cancellation and
    // reports progress every ~50 ms, waiting on the stream then (no per-step round trip).
    auto last_poll = std::chrono::steady_clock::now();
    std::size_t begin = 0;
    while (begin < ev.size()) {
      std::size_t end = begin;
      int readouts_in_group = 0;
      while (end < ev.size() && readouts_in_group < 1) {
        if (ev[end].kind == static_cast<int>(EventKind::Readout)) ++readouts_in_group;
        ++end;
        if (end - begin >= 64) break;  // bound the work per launch during dummy scans
      }
      play_events<<<blocks, k_block>>>(g, d_ev.get(), static_cast<int>(begin), static_cast<int>(end), Mx.get(),
                                       My.get(), Mz.get(), PD.get(), T1.get(), T2.get(), dB.get(), sums.get(),
                                       reinterpret_cast<float2*>(truth.get()));
      cuda_check(cudaGetLastError(), "play_events launch");
      begin = end;
      const auto now = std::chrono::steady_clock::now();
      if (now - last_poll > std::chrono::milliseconds(50)) {
        cuda_check(cudaDeviceSynchronize(), "play_events");
        last_poll = now;
        cancel.throw_if_cancelled();
        if (progress) progress(static_cast<double>(begin) / ev.size(), "simulate");
      }
    }
    cuda_check(cudaDeviceSynchronize(), "play_events");
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
