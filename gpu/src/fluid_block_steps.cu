// Blocked time stepping of the fluid cells (mrwb/fluid_blocks.hpp; CPU twin run_fluid_blocks_cpu in
// core/simulation/src/fluid_blocks_cpu.cpp). One block per part: its region (interior + K-hop halo) is loaded into
// shared memory, K steps are played there — op (RF/spoil) in place, signal and truth of the interior,
// then transport (region_gather) and Bloch (fluid_bloch) into the other shared buffer, updating only the
// entries that are still needed (hop ≤ K − s at step s) — and the interior is written back. An option
// (MRWB_FLUID_PATH=blocked): measured on the H100 it lost to the per-step kernels both on dense slices
// (more instructions per cell-step) and on the liver slab (≈ 2.2 s for the fluid part against ≈ 1.3 s
// for the earlier per-step compact-state kernel, ≈ 0.8 s for today's stencil kernel; docs/benchmarks.md). Kept,
// tested, for a persistent variant that would keep each part's static data in shared memory.
#include "fluid_block_steps.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "mrwb/simulation/fluid_block_ops.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb::gpu {
namespace {

constexpr int k_threads = 512;
constexpr int k_warps_fb = k_threads / 32;
constexpr int k_batch = 16;  // coils reduced per block barrier

constexpr int k_max_steps = 16;  // K cap: the launch's steps are staged in shared memory

struct Tables {
  const std::uint32_t *region_begin, *hop_end, *cell, *comp;
  const ushort4* pos;  // ix, iy, iz of each entry
  const std::int16_t* face;
  const float4* tissue;
  const float *ux, *uy, *uz;
  const float* __restrict__ A;  // compact state read: x[nf] y[nf] z[nf]
  float* __restrict__ B;        // compact state written
  std::size_t nf;               // fluid cells
  int K, R;                     // steps per launch, shared-memory stride (largest region)
};

__device__ __forceinline__ float2 warp_sum_fb(float2 v) {
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  return v;
}

// Shared layout (stride R): M[2 buffers][x, y, z], u[Faces / 2], tissue[PD, R1, R2, ΔB], cell index,
// coordinates[ix, iy, iz] (uint16), faces[entry][Faces] (int16).
template <int Faces>
__global__ void __launch_bounds__(k_threads, 2)
    fluid_block_steps(FluidGrid g, Tables t, const FluidStep* __restrict__ steps, int k0, int n_steps) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ float2 part[k_batch * k_warps_fb];
  __shared__ FluidStep st[k_max_steps];
  constexpr int U = Faces / 2;
  const int R = t.R, K = t.K;
  float* M = reinterpret_cast<float*>(smem);
  float* u = M + 6 * R;
  float* tis = u + U * R;
  std::uint32_t* cid = reinterpret_cast<std::uint32_t*>(tis + 4 * R);
  std::uint16_t* xyz = reinterpret_cast<std::uint16_t*>(cid + R);
  std::int16_t* face = reinterpret_cast<std::int16_t*>(xyz + 3 * R);

  const std::uint32_t begin = t.region_begin[blockIdx.x];
  const int count = static_cast<int>(t.region_begin[blockIdx.x + 1] - begin);
  const std::uint32_t* hop = t.hop_end + static_cast<std::size_t>(blockIdx.x) * (K + 1);
  const int interior = static_cast<int>(hop[0]);
  const int steps_here = min(K, n_steps - k0);
  if (threadIdx.x < steps_here) st[threadIdx.x] = steps[k0 + threadIdx.x];
  for (int e = threadIdx.x; e < count; e += k_threads) {
    const std::uint32_t c = t.cell[begin + e], q = t.comp[begin + e];
    cid[e] = c;
    M[e] = t.A[q];
    M[R + e] = t.A[t.nf + q];
    M[2 * R + e] = t.A[2 * t.nf + q];
    u[e] = t.ux[begin + e];
    u[R + e] = t.uy[begin + e];
    if (Faces == 6) u[2 * R + e] = t.uz[begin + e];
    const float4 ts = t.tissue[begin + e];
    tis[e] = ts.x;
    tis[R + e] = ts.y;
    tis[2 * R + e] = ts.z;
    tis[3 * R + e] = ts.w;
    const ushort4 p = t.pos[begin + e];
    xyz[e] = p.x;
    xyz[R + e] = p.y;
    xyz[2 * R + e] = p.z;
#pragma unroll
    for (int f = 0; f < Faces; ++f) face[e * Faces + f] = t.face[static_cast<std::size_t>(begin + e) * Faces + f];
  }
  __syncthreads();

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int b = 0;
  for (int s = 1; s <= steps_here; ++s) {
    const FluidStep& S = st[s - 1];
    float *cx = M + 3 * b * R, *cy = cx + R, *cz = cy + R;
    if (S.op != 0) {  // instantaneous operator on every entry still valid (read by this step)
      const int valid = static_cast<int>(hop[K - s + 1]);
      for (int e = threadIdx.x; e < valid; e += k_threads) {
        bloch::Mag m{cx[e], cy[e], cz[e]};
        fluid::apply_op(S, m);
        cx[e] = m.Mx;
        cy[e] = m.My;
        cz[e] = m.Mz;
      }
      __syncthreads();
    }
    if (S.sample >= 0) {  // Σ interior C_c·Mxy for every coil, one partial-sum slot per block
      double2* slot = g.sums + (blockIdx.x % k_signal_slots) * g.samples;
      for (int c0 = 0; c0 < g.ncoils; c0 += k_batch) {
        const int nc = min(k_batch, g.ncoils - c0);
        for (int c = 0; c < nc; ++c) {
          float2 v = make_float2(0.f, 0.f);
          for (int e = threadIdx.x; e < interior; e += k_threads) {
            if (g.sens) {
              const float2 C = g.sens[static_cast<std::size_t>(c0 + c) * g.n + cid[e]];
              v.x += C.x * cx[e] - C.y * cy[e];
              v.y += C.x * cy[e] + C.y * cx[e];
            } else {
              v.x += cx[e];
              v.y += cy[e];
            }
          }
          v = warp_sum_fb(v);
          if (lane == 0) part[c * k_warps_fb + warp] = v;
        }
        __syncthreads();
        if (warp < nc) {  // warp w sums coil w's k_warps_fb partial sums (k_warps_fb <= 32)
          double sx = 0, sy = 0;
          if (lane < k_warps_fb) {
            sx = part[warp * k_warps_fb + lane].x;
            sy = part[warp * k_warps_fb + lane].y;
          }
          for (int o = 16; o > 0; o >>= 1) {
            sx += __shfl_down_sync(0xffffffffu, sx, o);
            sy += __shfl_down_sync(0xffffffffu, sy, o);
          }
          if (lane == 0) {
            atomicAdd(&slot[(c0 + warp) * g.per_coil + S.sample].x, sx);
            atomicAdd(&slot[(c0 + warp) * g.per_coil + S.sample].y, sy);
          }
        }
        __syncthreads();
      }
    }
    if (S.truth)
      for (int e = threadIdx.x; e < interior; e += k_threads) g.truth[cid[e]] = make_float2(cx[e], cy[e]);
    float *nx_ = M + 3 * (b ^ 1) * R, *ny_ = nx_ + R, *nz_ = ny_ + R;
    const int update = static_cast<int>(hop[K - s]);
    // Two entries per iteration, loads of both first: a step is latency-bound (smem and MUFU chains).
    auto gather = [&](int e) {
      return fluid::region_gather<Faces>(e, face + e * Faces, cx, cy, cz, u, u + R, Faces == 6 ? u + 2 * R : nullptr,
                                         tis[e], S.scale);
    };
    auto advance = [&](int e, const transport::Mag3<float>& tm) {
      bloch::Mag m{tm.x, tm.y, tm.z};
      fluid::fluid_bloch(m, tis[e], tis[R + e], tis[2 * R + e], tis[3 * R + e], g.x0 + xyz[e] * g.cell,
                         g.y0 + xyz[R + e] * g.cell, g.z0 + xyz[2 * R + e] * g.cell, S);
      return m;
    };
    for (int e0 = threadIdx.x; e0 < update; e0 += 2 * k_threads) {
      const int e1 = e0 + k_threads;
      const bool two = e1 < update;
      const transport::Mag3<float> t0 = gather(e0), t1 = gather(two ? e1 : e0);
      const bloch::Mag m0 = advance(e0, t0), m1 = advance(two ? e1 : e0, t1);
      nx_[e0] = m0.Mx;
      ny_[e0] = m0.My;
      nz_[e0] = m0.Mz;
      if (two) {
        nx_[e1] = m1.Mx;
        ny_[e1] = m1.My;
        nz_[e1] = m1.Mz;
      }
    }
    __syncthreads();
    b ^= 1;
  }
  const float *fx = M + 3 * b * R, *fy = fx + R, *fz = fy + R;
  for (int e = threadIdx.x; e < interior; e += k_threads) {
    const std::uint32_t q = t.comp[begin + e];
    t.B[q] = fx[e];
    t.B[t.nf + q] = fy[e];
    t.B[2 * t.nf + q] = fz[e];
  }
}

}  // namespace

FluidStatics gather_fluid_statics(const CellPhantom& ph, std::span<const std::uint32_t> cells) {
  if (ph.nx > 65535 || ph.ny > 65535 || ph.nz > 65535)
    throw std::invalid_argument("fluid kernels: a grid side above 65535 cells");
  const std::size_t m = cells.size(), slice = ph.slice_size();
  FluidStatics st;
  st.pos.resize(m);
  st.tissue.resize(m);
  st.ux.resize(m);
  st.uy.resize(m);
  st.uz.assign(m, 0.f);
  for (std::size_t k = 0; k < m; ++k) {
    const std::uint32_t c = cells[k];
    const std::size_t in_slice = c % slice;
    st.pos[k] = make_ushort4(static_cast<unsigned short>(in_slice % ph.nx), static_cast<unsigned short>(in_slice / ph.nx),
                             static_cast<unsigned short>(c / slice), 0);
    st.tissue[k] = make_float4(ph.PD[c], fluid::relaxation_rate(ph.T1_s[c]), fluid::relaxation_rate(ph.T2_s[c]), ph.dB_T[c]);
    st.ux[k] = ph.ux[c];
    st.uy[k] = ph.uy[c];
    if (!ph.uz.empty()) st.uz[k] = ph.uz[c];
  }
  return st;
}

std::size_t FluidBlockTables::shared_bytes(std::size_t entries, int faces) {
  // M 24, u 4·faces/2, tissue[4] 16, cell 4, coordinates 6, faces 2·faces; rounded up to 16 B.
  const std::size_t per = 24 + 2 * faces + 16 + 4 + 6 + 2 * faces;
  return (entries * per + 15) / 16 * 16;
}

FluidBlockTables::FluidBlockTables(const CellPhantom& ph, const FluidBlocks& blocks, std::span<const std::uint32_t> fluid)
    : K_(blocks.steps),
      faces_(blocks.faces),
      parts_(static_cast<unsigned>(blocks.parts())),
      max_region_(static_cast<int>(blocks.max_region)),
      region_begin_(blocks.region_begin.size()),
      hop_end_(blocks.hop_end.size()),
      cell_(blocks.cell.size()),
      comp_(blocks.cell.size()),
      pos_(blocks.cell.size()),
      face_(blocks.face.size()),
      tissue_(blocks.cell.size()),
      ux_(blocks.cell.size()),
      uy_(blocks.cell.size()),
      uz_(blocks.faces == 6 ? blocks.cell.size() : 0),
      state_{DeviceBuffer<float>(3 * fluid.size()), DeviceBuffer<float>(3 * fluid.size())} {
  if (K_ > k_max_steps) throw std::invalid_argument("fluid blocks: K above " + std::to_string(k_max_steps));
  region_begin_.upload(blocks.region_begin.data());
  hop_end_.upload(blocks.hop_end.data());
  cell_.upload(blocks.cell.data());
  face_.upload(blocks.face.data());
  const std::size_t entries = blocks.cell.size(), nf = fluid.size();
  std::vector<std::uint32_t> comp(entries);
  for (std::size_t e = 0; e < entries; ++e)
    comp[e] = static_cast<std::uint32_t>(std::lower_bound(fluid.begin(), fluid.end(), blocks.cell[e]) - fluid.begin());
  comp_.upload(comp.data());
  const FluidStatics st = gather_fluid_statics(ph, blocks.cell);
  pos_.upload(st.pos.data());
  tissue_.upload(st.tissue.data());
  ux_.upload(st.ux.data());
  uy_.upload(st.uy.data());
  if (faces_ == 6) uz_.upload(st.uz.data());
  // Thermal equilibrium M = (0, 0, PD) of the fluid cells.
  std::vector<float> m0(3 * nf, 0.f);
  for (std::size_t k = 0; k < nf; ++k) m0[2 * nf + k] = ph.PD[fluid[k]];
  state_[0].upload(m0.data());
  const std::size_t smem = shared_bytes(static_cast<std::size_t>(max_region_), faces_);
  auto kernel = faces_ == 6 ? fluid_block_steps<6> : fluid_block_steps<4>;
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
             "fluid_block_steps shared memory");
}

std::size_t FluidBlockTables::device_bytes() const {
  return (region_begin_.size() + hop_end_.size() + cell_.size() + comp_.size() + 2 * pos_.size()) * 4 + face_.size() * 2 +
         tissue_.size() * 16 + (ux_.size() + uy_.size() + uz_.size() + state_[0].size() + state_[1].size()) * 4;
}

void FluidBlockTables::launch(const FluidGrid& g, const FluidStep* steps, int k0, int n_steps, cudaStream_t stream) {
  if (parts_ == 0) return;
  const Tables t{region_begin_.get(), hop_end_.get(), cell_.get(), comp_.get(), pos_.get(), face_.get(), tissue_.get(),
                 ux_.get(), uy_.get(), uz_.size() ? uz_.get() : nullptr, state_[cur_].get(), state_[cur_ ^ 1].get(),
                 state_[0].size() / 3, K_, max_region_};
  const std::size_t smem = shared_bytes(static_cast<std::size_t>(max_region_), faces_);
  if (faces_ == 6)
    fluid_block_steps<6><<<parts_, k_threads, smem, stream>>>(g, t, steps, k0, n_steps);
  else
    fluid_block_steps<4><<<parts_, k_threads, smem, stream>>>(g, t, steps, k0, n_steps);
  cuda_check(cudaGetLastError(), "fluid_block_steps launch");
  cur_ ^= 1;
}

}  // namespace mrwb::gpu
