#pragma once
// What the CUDA simulator's kernels share (cuda_simulation_engine.cu, closed_form_player.cu): launch
// constants, the event record, the grid and cell data as the kernels see them, per-cell device helpers,
// and the host's stream and pacing.
#include <cuda_runtime.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/internal/gpu_memory.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"

namespace mrwb::gpu::sim {

constexpr int k_block = 256;
constexpr int k_warps = k_block / 32;
constexpr double k_chunk_cell_steps = 134217728.0;  // 2^27: a few ms of device work per pacing chunk
// Shared float2 slots of the closed-form readout: warps × coils × samples between two block flushes.
constexpr int k_readout_slots = 4096;
constexpr int k_cells_per_thread = 4;  // closed-form path

// The event program as the device reads it (closed-form path); trig of RF angles precomputed on the host.
struct DeviceEvent {
  double dt_s, dk_x, dk_y, dk_z;
  int kind;  // EventKind
  float cos_flip, sin_flip, cos_phase, sin_phase;
  int n_samples;
  int sample_offset;  // first k-space sample of this readout (coil 0)
  int truth_sample;
  int gradient;  // a Free interval with a nonzero gradient moment
};
static_assert(sizeof(DeviceEvent) <= k_device_event_bytes, "memory estimate (gpu_memory.cpp) too small");

struct CellGrid {
  int nx, ny, nz;
  std::size_t n;
  double x0, y0, z0, cell;
  int ncoils;
  std::size_t per_coil;  // samples per coil
  std::size_t samples;   // all coils: the stride between signal slots
};

// C_c·(Mx + i·My) of cell i for coil c (sens == nullptr: one uniform coil).
__device__ inline float2 coil_signal(const CellGrid& g, const float2* __restrict__ sens, int c, std::size_t i, float mx, float my) {
  if (!sens) return make_float2(mx, my);
  const float2 C = sens[static_cast<std::size_t>(c) * g.n + i];
  return make_float2(C.x * mx - C.y * my, C.x * my + C.y * mx);
}

__device__ inline float2 warp_sum(float2 v) {
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  return v;
}

struct CellData {
  float *Mx, *My, *Mz;                       // state of the closed-form cells
  const std::uint16_t* __restrict__ entry;   // per cell: its tissue's entry (mrwb/phantom/tissue_table.hpp), or nullptr
  const float4* __restrict__ tissue;         // PD T1 T2 ΔB per entry (or per cell); PD = 0: not played here
  const float2* sens;  // nullptr: one uniform coil
  double2* sums;       // k_signal_slots × samples
  float2* truth;
};
// PD, T1, T2, ΔB of cell i for the closed-form kernels (PD = 0 for cells they leave alone: PD = 0, or
// fluid cells of a moving phantom).
__device__ inline float4 closed_form_tissue(const CellData& d, std::size_t i) { return d.tissue[d.entry ? d.entry[i] : i]; }

// The signal of every sample: the sum of its k_signal_slots partial sums (`sums`, k_signal_slots × samples on
// the device, blocks spread their atomics over the slots), in double, rounded to float once (T = float; a
// rank's part stays in double until the ranks' parts are added).
template <typename T>
void download_signal(const DeviceBuffer<double2>& sums, std::span<std::complex<T>> samples) {
  const std::size_t n_samples = sums.size() / k_signal_slots;
  std::vector<double2> host(sums.size());
  sums.download(host.data());
  for (std::size_t j = 0; j < samples.size(); ++j) {
    double sx = 0, sy = 0;
    for (std::size_t k = 0; k < k_signal_slots; ++k) {
      sx += host[k * n_samples + j].x;
      sy += host[k * n_samples + j].y;
    }
    samples[j] = {static_cast<T>(sx), static_cast<T>(sy)};
  }
}

// The event program as the device reads it (trig of RF angles precomputed on the host).
std::vector<DeviceEvent> device_events(const SequenceProgram& prog);

// RAII for a stream.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { cuda_check(cudaStreamCreate(&s), "cudaStreamCreate"); }
  // Lowest / highest: the device's least / greatest priority; the block scheduler starts a pending block of a
  // higher-priority stream before any of a lower one (running blocks are not preempted).
  enum class Priority { Lowest, Highest };
  explicit Stream(Priority p) {
    int least = 0, greatest = 0;
    cuda_check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    cuda_check(cudaStreamCreateWithPriority(&s, cudaStreamDefault, p == Priority::Lowest ? least : greatest),
               "cudaStreamCreateWithPriority");
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(s); }
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

}  // namespace mrwb::gpu::sim
