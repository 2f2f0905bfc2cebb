// CUDA twin of mrwb::LagrangianCpuEngine (cuda_lagrangian_engine.hpp). The schedule is built on the host
// by the CPU's own build_plan (lagrangian_plan.hpp); the per-spin operations are lagrangian_spin_ops.hpp.
//  - Spins are independent except for the signal sum per ADC sample, so one thread keeps k_spins_per_thread spins in
//    registers over a chunk of entries (up to ~2^29 spin-steps, ~5 ms): the only traffic per sub-step is
//    the velocity of the cell a spin moves into (L1/L2-resident float4) and its tissue's factors.
//  - Signal: per record, a warp sum per coil into shared memory (one slot per warp); at the chunk's end one
//    pass over the block's records adds them in double to one of k_signal_slots partial sums (summed on
//    the host), as the Eulerian engine does.
//  - Births need no generator state: face f has delivered floor(rate_f·t) spins by time t. For a chunk
//    the host counts each face's births (a prefix over faces) and appends that many slots after the
//    surviving spins; a newborn slot finds its face, serial and birth sub-step by binary search and comes
//    alive there. After the chunk, the dead are dropped by a stable compaction (cub::DeviceSelect), so
//    the spins and their order are deterministic; only the float summation order of the signal varies.
//  - Pacing: the host waits for each chunk (it needs the survivors' count), polls cancel there (within
//    ~10 ms) and reports progress per TR as chunks complete.
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/simulation/internal/gpu_memory.hpp"
#include "mrwb/simulation/internal/lagrangian_plan.hpp"
#include "mrwb/simulation/internal/lagrangian_spin_ops.hpp"
#include "mrwb/simulation/lagrangian_engine.hpp"
#include "mrwb/simulation/tr_progress.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/simulation/cuda_lagrangian_engine.hpp"
#include "simulation_device.cuh"

namespace mrwb::gpu {
namespace {

using namespace lagrangian;

constexpr int k_threads = 256;
constexpr int k_lane_warps = k_threads / 32;
// 2: two spins' moves interleaved in one thread; since the phase went to fixed point and the sine to the SFU,
// 2 is 5 % faster than 1 on the H200 (chunks 0.448 s against 0.473 s for the 940 x 190 tube).
constexpr int k_spins_per_thread = 2;
constexpr int k_record_slots = 256;    // records × coils per chunk: 16 KB of per-warp float2 sums (the rest is L1)
constexpr double k_chunk_spin_steps = 536870912.0;  // 2^29: ~5 ms of device work per chunk (2^30 measured 5 % slower on the H100)

struct TrackArgs {
  const Entry* __restrict__ entries;
  const CellFlow* __restrict__ flow;  // moving phantoms
  const float* __restrict__ dB;       // off-resonance [T] per cell, or nullptr
  const TissueFactors* __restrict__ factors;
  int tissues;
  const Face* __restrict__ faces;
  int nfaces;
  const int* __restrict__ face_first;  // [nfaces + 1]: each face's first newborn slot after the survivors
  const float2* __restrict__ sens;     // [coil][cell], nullptr: one uniform coil
  int ncoils;
  std::size_t cells, per_coil, samples;  // samples: all coils, the stride between signal slots
  const int* __restrict__ record_sample;
  double2* sums;  // k_signal_slots × samples
  float2* truth;
  Spin* spins;
  int n_old, n_slots;  // survivors, survivors + newborns
  int nx, ny, nz;
  std::uint64_t seed;
  float fluid_weight;
  unsigned long long* spin_steps;
};

// The first 48 bytes of an entry: the fields a Step reads (Entry's layout), loaded as three 16-byte
// vectors through the read-only cache. (Loading the next entry's ahead of its use took 8 more registers
// and measured 6 % slower on the H200: fewer resident warps.)
struct EntryHead {
  uint4 a, b, c;
};
static_assert(offsetof(Entry, record) + sizeof(int) == sizeof(EntryHead) && alignof(Entry) >= 16);
__device__ inline EntryHead load_head(const Entry* e) {
  const uint4* v = reinterpret_cast<const uint4*>(e);
  return {__ldg(v), __ldg(v + 1), __ldg(v + 2)};
}
__device__ inline Entry as_entry(const EntryHead& h) {
  Entry E;
  memcpy(&E, &h, sizeof h);  // the Step fields only; the rest is read from the table where needed
  return E;
}

__device__ inline float2 warp_sum(float2 v) {
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  return v;
}

// Entries [e0, e1) over the spins of slots [0, n_slots); the chunk's records start at ordinal rec0.
// Blocks per SM the register budget leaves room for: 4 at S = 1 (64 registers), 3 at S = 2 (85).
constexpr int k_min_blocks(int S) { return S == 1 ? 4 : S == 2 ? 3 : 1; }
template <int S, bool ThreeD, bool OffRes, bool Moving>
__global__ void __launch_bounds__(k_threads, k_min_blocks(S)) track(TrackArgs a, int e0, int e1, int rec0) {
  extern __shared__ float2 part[];  // [record][coil][warp]
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Spin p[S];
  CellFlow u[S];
  int birth[S], half[S], face[S];
  std::uint64_t serial[S];
#pragma unroll
  for (int q = 0; q < S; ++q) {
    const int slot = blockIdx.x * (k_threads * S) + q * k_threads + threadIdx.x;
    birth[q] = -1;
    half[q] = 0;
    face[q] = 0;
    serial[q] = 0;
    p[q] = Spin{};
    p[q].weight = 0.f;
    u[q] = CellFlow{};
    if (slot < a.n_old) {
      p[q] = a.spins[slot];
      if (Moving && p[q].weight > 0.f && p[q].mobile) u[q] = a.flow[cell_index(p[q].ix, p[q].iy, p[q].iz, a.nx, a.ny)];
    } else if (Moving && slot < a.n_slots) {
      // A newborn: its face (the last whose first slot is <= j), serial and birth sub-step.
      const int j = slot - a.n_old;
      int lo = 0, hi = a.nfaces - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (a.face_first[mid] <= j) lo = mid; else hi = mid - 1;
      }
      const Face f = a.faces[lo];
      const std::int64_t s = delivered(f, a.entries[e0].t_start) + (j - a.face_first[lo]);
      int l = e0, h = e1 - 1;  // the first entry by whose end face f has delivered s + 1 spins
      while (l < h) {
        const int mid = (l + h) >> 1;
        if (delivered(f, a.entries[mid].t_end) >= s + 1) h = mid; else l = mid + 1;
      }
      birth[q] = l;
      half[q] = delivered(f, a.entries[l].t_mid) >= s + 1 ? 0 : 1;
      face[q] = lo;
      serial[q] = static_cast<std::uint64_t>(s);
    }
  }
  auto bear = [&](int q, int e, const Entry& E) {
    const Face f = a.faces[face[q]];
    const float PD = a.factors[static_cast<std::size_t>(E.factors) * a.tissues + f.tissue].PD;
    p[q] = born_spin(f, face[q], serial[q], a.entries[e].h, ThreeD, a.seed, PD, a.fluid_weight);
    u[q] = a.flow[cell_index(p[q].ix, p[q].iy, p[q].iz, a.nx, a.ny)];
  };
  unsigned long long steps = 0;
  int r = 0;  // records of this chunk so far (uniform over the block)
  for (int e = e0; e < e1; ++e) {
    const Entry E = as_entry(load_head(a.entries + e));
    const int kind = E.kind;
    if (kind == k_step) {
      const float h = E.h_move;
      const TissueFactors* row = a.factors + static_cast<std::size_t>(E.factors) * a.tissues;
#pragma unroll
      for (int q = 0; q < S; ++q) {
        if (Moving) {
          if (p[q].weight > 0.f && p[q].mobile && !move<ThreeD>(p[q], u[q], h, a.flow, a.nx, a.ny, a.nz)) p[q].weight = 0.f;
          if (birth[q] == e && half[q] == 0) bear(q, e, E);
        }
        if (p[q].weight > 0.f) {
          const float dB = OffRes ? a.dB[cell_index(p[q].ix, p[q].iy, p[q].iz, a.nx, a.ny)] : 0.f;
          precess<ThreeD, OffRes>(p[q], E, dB, row[p[q].tissue]);
          ++steps;
        }
        if (Moving) {
          if (p[q].weight > 0.f && p[q].mobile && !move<ThreeD>(p[q], u[q], h, a.flow, a.nx, a.ny, a.nz)) p[q].weight = 0.f;
          if (birth[q] == e && half[q] == 1) bear(q, e, E);
        }
      }
    } else if (kind == k_rf) {
#pragma unroll
      for (int q = 0; q < S; ++q) rf(p[q], a.entries[e]);
    } else if (kind == k_spoil) {
#pragma unroll
      for (int q = 0; q < S; ++q) bloch::spoil(p[q].m);
    } else {  // k_record
      std::uint32_t cell[S];
#pragma unroll
      for (int q = 0; q < S; ++q) cell[q] = cell_index(p[q].ix, p[q].iy, p[q].iz, a.nx, a.ny);
      for (int c = 0; c < a.ncoils; ++c) {
        float2 v = make_float2(0.f, 0.f);
#pragma unroll
        for (int q = 0; q < S; ++q)
          if (p[q].weight > 0.f) {
            const float mx = p[q].m.Mx * p[q].weight, my = p[q].m.My * p[q].weight;
            if (a.sens) {
              const float2 C = a.sens[static_cast<std::size_t>(c) * a.cells + cell[q]];
              v.x += C.x * mx - C.y * my;
              v.y += C.x * my + C.y * mx;
            } else {
              v.x += mx;
              v.y += my;
            }
          }
        v = warp_sum(v);
        if (lane == 0) part[(r * a.ncoils + c) * k_lane_warps + warp] = v;
      }
      if (a.entries[e].truth)
#pragma unroll
        for (int q = 0; q < S; ++q)
          if (p[q].weight > 0.f) {
            atomicAdd(&a.truth[cell[q]].x, p[q].m.Mx * p[q].weight);
            atomicAdd(&a.truth[cell[q]].y, p[q].m.My * p[q].weight);
          }
      ++r;
    }
  }
#pragma unroll
  for (int q = 0; q < S; ++q) {
    const int slot = blockIdx.x * (k_threads * S) + q * k_threads + threadIdx.x;
    if (slot < a.n_slots) a.spins[slot] = p[q];
  }
  for (int o = 16; o > 0; o >>= 1) steps += __shfl_down_sync(0xffffffffu, steps, o);
  if (lane == 0 && steps) atomicAdd(a.spin_steps, steps);
  __syncthreads();
  double2* slot = a.sums + (blockIdx.x % k_signal_slots) * a.samples;
  for (int k = threadIdx.x; k < r * a.ncoils; k += k_threads) {
    const int rec = k / a.ncoils, c = k % a.ncoils;
    double sx = 0, sy = 0;
    for (int w = 0; w < k_lane_warps; ++w) {
      sx += part[k * k_lane_warps + w].x;
      sy += part[k * k_lane_warps + w].y;
    }
    const std::size_t sample = c * a.per_coil + a.record_sample[rec0 + rec];
    atomicAdd(&slot[sample].x, sx);
    atomicAdd(&slot[sample].y, sy);
  }
}

// The initial spins, one thread per cell (cell_initial_spins, as the CPU engine's initial_spins): on the
// device, so tens of megabytes of spins are neither built on the host nor copied over.
struct SeedArgs {
  const std::uint32_t* first;
  const int* tissue;
  const float* PD;
  const std::uint8_t* type;
  Spin* spins;
  std::uint32_t cells;
  int nx, ny, s, per_cell;
  bool moving, three_d;
  std::uint64_t seed;
  float weight;
};
__global__ void seed_spins(SeedArgs a) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.cells || a.tissue[i] < 0) return;
  const int ix = static_cast<int>(i % a.nx), iy = static_cast<int>(i / a.nx % a.ny), iz = static_cast<int>(i / a.nx / a.ny);
  cell_initial_spins(i, ix, iy, iz, a.moving && a.type[i] == static_cast<std::uint8_t>(CellType::Fluid), a.s, a.per_cell,
                     a.three_d, a.seed, a.PD[i], a.tissue[i], a.weight, a.spins + a.first[i]);
}

struct Alive {
  __host__ __device__ bool operator()(const Spin& p) const { return p.weight > 0.f; }
};

using TrackKernel = void (*)(TrackArgs, int, int, int);
int spins_per_thread() {  // MRWB_LAG_SPINS=1|2|4 overrides (A/B measurements)
  const char* env = std::getenv("MRWB_LAG_SPINS");
  const int s = env ? std::atoi(env) : k_spins_per_thread;
  return s >= 4 ? 4 : s >= 2 ? 2 : 1;
}
template <bool ThreeD, bool OffRes, bool Moving>
TrackKernel pick3() {
  const int s = spins_per_thread();
  return s == 4 ? track<4, ThreeD, OffRes, Moving> : s == 2 ? track<2, ThreeD, OffRes, Moving> : track<1, ThreeD, OffRes, Moving>;
}
TrackKernel pick(bool three_d, bool off_res, bool moving) {
  if (three_d) {
    if (off_res) return moving ? pick3<true, true, true>() : pick3<true, true, false>();
    return moving ? pick3<true, false, true>() : pick3<true, false, false>();
  }
  if (off_res) return moving ? pick3<false, true, true>() : pick3<false, true, false>();
  return moving ? pick3<false, false, true>() : pick3<false, false, false>();
}

template <typename T>
void upload_vec(DeviceBuffer<T>& d, const std::vector<T>& v) {
  if (!v.empty()) d.upload(v.data());
}

// Pinned host memory (the per-chunk face offsets and the survivors' count).
template <typename T>
struct Pinned {
  T* p = nullptr;
  explicit Pinned(std::size_t n) { cuda_check(cudaMallocHost(&p, std::max<std::size_t>(1, n) * sizeof(T)), "cudaMallocHost"); }
  ~Pinned() { cudaFreeHost(p); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
};

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return b;
}

class CudaLagrangianEngine final : public SimulationEngine, public SpinTracker {
 public:
  CudaLagrangianEngine(int spins_per_axis, unsigned seed) : seed_(seed) { set_spins_per_axis(spins_per_axis); }
  std::string name() const override { return "cuda-lagrangian"; }
  SpinTrackingStats last_run_stats() const override { return stats_; }
  using SimulationEngine::run;

  void run(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils, std::span<std::complex<float>> samples,
           std::span<std::complex<float>> cell_truth, const ProgressFn& progress, const CancelToken& cancel) override {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t n = ph.size();
    const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
    const int ncoils = coils.ncoils;
    if (samples.size() != per_coil * ncoils || cell_truth.size() != n)
      throw std::invalid_argument("CudaLagrangianEngine::run: sample or truth buffer of the wrong size");
    if (ncoils > k_record_slots)
      throw InputError("simulate: coils.count " + std::to_string(ncoils) + " exceeds the CUDA Lagrangian engine's " +
                       std::to_string(k_record_slots) + "; use fewer coils or --backend cpu");
    const Plan P = build_plan(ph, prog, spins_per_axis(), seed_);
    const auto t_plan = std::chrono::steady_clock::now();
    const std::size_t initial = P.spin_count();
    stats_ = SpinTrackingStats{0, P.sub_steps, initial, 0};
    cancel.throw_if_cancelled();
    if (initial > static_cast<std::size_t>(INT_MAX / 2))
      throw InputError("simulate: " + std::to_string(initial) +
                       " spins exceed the CUDA Lagrangian engine's 2^30; use fewer spins per cell or coarser cells");

    // Refuse what the device cannot hold, with the numbers, before allocating anything. The spin buffers
    // (two, for the compaction) start at the initial spins plus a quarter and grow when births need it.
    const std::size_t n_samples = std::max<std::size_t>(1, samples.size());
    std::size_t capacity = initial + initial / 4 + (P.moving ? 65536 : 0);
    const double fixed = static_cast<double>(P.flow.size()) * sizeof(CellFlow) + P.dB_T.size() * 4.0 +
                         (coils.uniform() ? 0.0 : 8.0 * ncoils * n) + 8.0 * n + 16.0 * k_signal_slots * n_samples +
                         static_cast<double>(P.entries.size()) * sizeof(Entry) + P.factors.size() * sizeof(TissueFactors) +
                         P.faces.size() * (sizeof(Face) + 4.0) + P.record_sample.size() * 4.0 +
                         13.0 * static_cast<double>(n);  // the seeding's per-cell tables, freed after it
    auto check = [&](std::size_t spins_cap) {
      std::size_t free_b = 0, total_b = 0;
      cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
      const double need = fixed + 2.2 * sizeof(Spin) * static_cast<double>(spins_cap);
      if (need > static_cast<double>(free_b))
        throw InputError("simulate: " + std::to_string(spins_cap) + " spins and " + std::to_string(n) + " cells need " +
                         gib(need) + " of GPU memory, " + gib(static_cast<double>(free_b)) +
                         " free; use fewer spins per cell, coarser cells or --backend cpu");
    };
    check(capacity);

    DeviceBuffer<Entry> entries(P.entries.size());
    DeviceBuffer<CellFlow> flow(P.flow.size());
    DeviceBuffer<float> dB(P.dB_T.size());
    DeviceBuffer<TissueFactors> factors(P.factors.size());
    DeviceBuffer<Face> faces(P.faces.size());
    DeviceBuffer<int> face_first(P.faces.size() + 1);
    DeviceBuffer<int> record_sample(P.record_sample.size());
    DeviceBuffer<float2> sens(coils.uniform() ? 0 : static_cast<std::size_t>(ncoils) * n);
    DeviceBuffer<double2> sums(n_samples * k_signal_slots);
    DeviceBuffer<float2> truth(n);
    DeviceBuffer<unsigned long long> spin_steps(1);
    DeviceBuffer<int> count(1);
    upload_vec(entries, P.entries);
    upload_vec(flow, P.flow);
    upload_vec(dB, P.dB_T);
    upload_vec(factors, P.factors);
    upload_vec(faces, P.faces);
    upload_vec(record_sample, P.record_sample);
    if (!coils.uniform()) sens.upload(reinterpret_cast<const float2*>(coils.sens.data()));
    cuda_check(cudaMemset(sums.get(), 0, sums.size() * sizeof(double2)), "memset");
    if (n) cuda_check(cudaMemset(truth.get(), 0, n * sizeof(float2)), "memset");
    cuda_check(cudaMemset(spin_steps.get(), 0, sizeof(unsigned long long)), "memset");
    auto spins_a = std::make_unique<DeviceBuffer<Spin>>(capacity);
    auto spins_b = std::make_unique<DeviceBuffer<Spin>>(capacity);
    if (initial) {
      DeviceBuffer<std::uint32_t> first(P.spin_first.size());
      DeviceBuffer<int> tissue(n);
      DeviceBuffer<float> PD(n);
      DeviceBuffer<std::uint8_t> type(n);
      upload_vec(first, P.spin_first);
      upload_vec(tissue, P.cell_tissue);
      upload_vec(PD, ph.PD);
      upload_vec(type, ph.type);
      const SeedArgs seed{first.get(), tissue.get(), PD.get(), type.get(), spins_a->get(), static_cast<std::uint32_t>(n),
                          ph.nx, ph.ny, P.per_axis, P.per_cell, P.moving, P.three_d, P.seed, 1.f / static_cast<float>(P.per_cell)};
      seed_spins<<<static_cast<unsigned>((n + 255) / 256), 256>>>(seed);
      cuda_check(cudaGetLastError(), "seed launch");
      cuda_check(cudaDeviceSynchronize(), "seed");  // before the tables above are freed
    }
    std::size_t cub_bytes = 0;
    auto cub_need = [&](std::size_t items) {
      std::size_t b = 0;
      cuda_check(cub::DeviceSelect::If(nullptr, b, static_cast<Spin*>(nullptr), static_cast<Spin*>(nullptr), count.get(),
                                         static_cast<int>(items), Alive{}),
                 "cub temp size");
      return b;
    };
    std::unique_ptr<DeviceBuffer<unsigned char>> temp;
    auto ensure_temp = [&](std::size_t items) {
      const std::size_t b = cub_need(items);
      if (b > cub_bytes) {
        temp.reset();
        temp = std::make_unique<DeviceBuffer<unsigned char>>(b);
        cub_bytes = b;
      }
    };
    if (P.moving) ensure_temp(capacity);
    Pinned<int> h_first(P.faces.size() + 1), h_count(1);

    cudaStream_t stream = nullptr;  // the legacy stream: every copy above is ordered before the kernels
    const TrackKernel kernel = pick(P.three_d, !P.dB_T.empty(), P.moving);
    const int S = spins_per_thread();
    const int records_per_chunk = k_record_slots / std::max(1, ncoils);
    const std::size_t smem = static_cast<std::size_t>(records_per_chunk) * ncoils * k_lane_warps * sizeof(float2);
    TrackArgs args{entries.get(), flow.get(), dB.size() ? dB.get() : nullptr, factors.get(), P.tissues, faces.get(),
                   static_cast<int>(P.faces.size()), face_first.get(), coils.uniform() ? nullptr : sens.get(), ncoils, n,
                   per_coil, n_samples, record_sample.get(), sums.get(), truth.get(), nullptr, 0, 0, ph.nx, ph.ny, ph.nz,
                   P.seed, 1.f / static_cast<float>(P.per_cell), spin_steps.get()};

    const std::vector<int> marks = tr_progress_marks(prog);
    cuda_check(cudaDeviceSynchronize(), "set-up");
    const auto t_setup = std::chrono::steady_clock::now();
    int reported = 0;
    std::size_t alive = initial;
    const int N = static_cast<int>(P.entries.size());
    int chunks = 0;
    for (int e0 = 0; e0 < N;) {
      // The chunk: up to ~2^29 spin-steps and records_per_chunk records, at least one entry.
      int e1 = e0, records = 0;
      double steps = 0;
      const double per_step = static_cast<double>(std::max<std::size_t>(alive, 1));
      for (; e1 < N; ++e1) {
        const Entry& E = P.entries[e1];
        if (E.kind == k_record && records == records_per_chunk) break;
        if (E.kind == k_step && steps > 0 && (steps + 1) * per_step > k_chunk_spin_steps) break;
        records += E.kind == k_record;
        steps += E.kind == k_step;
      }
      if (e1 == e0) e1 = e0 + 1;
      // Births of the chunk, face by face, after the survivors.
      std::size_t born = 0;
      if (P.moving && !P.faces.empty()) {
        const double ta = P.entries[e0].t_start, tb = P.entries[e1 - 1].t_end;
        for (std::size_t f = 0; f < P.faces.size(); ++f) {
          h_first.p[f] = static_cast<int>(born);
          born += static_cast<std::size_t>(births(P.faces[f], ta, tb));
          if (alive + born > static_cast<std::size_t>(INT_MAX / 2))
            throw InputError("simulate: more than 2^30 spins alive in the CUDA Lagrangian engine; use fewer spins per cell");
        }
        h_first.p[P.faces.size()] = static_cast<int>(born);
        cuda_check(cudaMemcpy(face_first.get(), h_first.p, (P.faces.size() + 1) * sizeof(int), cudaMemcpyHostToDevice),
                   "upload");
      }
      const std::size_t slots = alive + born;
      if (slots > capacity) {  // grow both buffers, keeping the survivors
        const std::size_t grown = std::max(slots + slots / 2, capacity + capacity / 2);
        spins_b.reset();
        check(grown);
        auto a2 = std::make_unique<DeviceBuffer<Spin>>(grown);
        if (alive) cuda_check(cudaMemcpy(a2->get(), spins_a->get(), alive * sizeof(Spin), cudaMemcpyDeviceToDevice), "copy");
        spins_a = std::move(a2);
        spins_b = std::make_unique<DeviceBuffer<Spin>>(grown);
        capacity = grown;
        ensure_temp(capacity);
      }
      stats_.spins_born += born;
      if (slots > 0) {
        args.spins = spins_a->get();
        args.n_old = static_cast<int>(alive);
        args.n_slots = static_cast<int>(slots);
        const std::size_t per_block = static_cast<std::size_t>(k_threads) * S;
        const unsigned blocks = static_cast<unsigned>((slots + per_block - 1) / per_block);
        kernel<<<blocks, k_threads, smem, stream>>>(args, e0, e1, records ? P.entries[first_record(P, e0, e1)].record : 0);
        cuda_check(cudaGetLastError(), "track launch");
        if (P.moving) {
          std::size_t b = cub_bytes;
          cuda_check(cub::DeviceSelect::If(temp->get(), b, spins_a->get(), spins_b->get(), count.get(), static_cast<int>(slots),
                                           Alive{}, stream),
                     "compaction");
          cuda_check(cudaMemcpyAsync(h_count.p, count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream), "count");
          std::swap(spins_a, spins_b);
        }
        cuda_check(cudaStreamSynchronize(stream), "track");
        if (P.moving) alive = static_cast<std::size_t>(*h_count.p);
      }
      ++chunks;
      cancel.throw_if_cancelled();
      const int done = e1 < N ? P.entries[e1].event - 1 : static_cast<int>(marks.size()) - 1;
      if (progress && done >= 0)
        while (reported < marks[done]) progress(static_cast<double>(++reported) / marks.back(), "simulate");
      e0 = e1;
    }

    const auto t_loop = std::chrono::steady_clock::now();
    sim::download_signal(sums, samples);
    if (n) cuda_check(cudaMemcpy(cell_truth.data(), truth.get(), n * sizeof(float2), cudaMemcpyDeviceToHost), "truth download");
    unsigned long long ss = 0;
    spin_steps.download(&ss);
    stats_.spin_steps = static_cast<double>(ss);
    cancel.throw_if_cancelled();
    if (progress && !marks.empty())
      while (reported < marks.back()) progress(static_cast<double>(++reported) / marks.back(), "simulate");
    if (const char* env = std::getenv("MRWB_SIM_TIMING"); env && *env == '1') {
      using sec = std::chrono::duration<double>;
      std::fprintf(stderr,
                   "cuda-lagrangian: %zu initial spins, %zu born, %.3g spin-steps, %d chunks: plan %.4f s, set-up %.4f s, "
                   "chunks %.4f s (%.3g spin-steps/s), read-back %.4f s\n",
                   stats_.initial_spins, stats_.spins_born, stats_.spin_steps, chunks, sec(t_plan - t0).count(),
                   sec(t_setup - t_plan).count(), sec(t_loop - t_setup).count(),
                   stats_.spin_steps / sec(t_loop - t_setup).count(), sec(std::chrono::steady_clock::now() - t_loop).count());
    }
  }

 private:
  static int first_record(const Plan& P, int e0, int e1) {
    for (int e = e0; e < e1; ++e)
      if (P.entries[e].kind == k_record) return e;
    return e0;
  }

  unsigned seed_;
  SpinTrackingStats stats_;
};

}  // namespace

std::unique_ptr<SimulationEngine> make_cuda_lagrangian_engine(int spins_per_axis, unsigned seed) {
  return std::make_unique<CudaLagrangianEngine>(spins_per_axis, seed);
}

}  // namespace mrwb::gpu
