#include <cuda_runtime.h>

#include <vector>

#include "cuda_check.hpp"
#include "mrwb/lbm_node_ops.hpp"
#include "mrwb_gpu/lbm_cuda.hpp"

namespace mrwb::gpu {
namespace {

__global__ void init_kernel(lbm::View v, std::size_t n, int q19) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  if (q19)
    lbm::d3q19_init(v, i);
  else
    lbm::d2q9_init(v, i);
}

// One kernel per collision (template), so the BGK kernel carries no MRT registers.
template <bool Mrt>
__global__ void d2q9_kernel(lbm::View v) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x < v.nx) lbm::d2q9_update<Mrt>(v, x, y);
}

template <bool Mrt>
__global__ void d3q19_kernel(lbm::View v) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y, z = blockIdx.z;
  if (x < v.nx) lbm::d3q19_update<Mrt>(v, x, y, z);
}

struct DeviceLbm {
  const LbmDomain& d;
  std::size_t N;
  DeviceBuffer<std::uint8_t> node;
  DeviceBuffer<float> inlet, fa, fb, rho, ux, uy, uz;
  lbm::View v{};
  bool mrt = false;
  dim3 grid, block;

  DeviceLbm(const LbmDomain& dom, const LbmParams& p)
      : d(dom), N(dom.size()), node(N), inlet(3 * N), fa(N * dom.q()), fb(N * dom.q()), rho(N), ux(N), uy(N), uz(N) {
    node.upload(d.node.data());
    inlet.upload(d.inlet_u.data());
    v = lbm::View{d.nx, d.ny, d.nz, d.periodic[0], d.periodic[1], d.periodic[2], node.get(), inlet.get(), fb.get(),
                  fa.get(), static_cast<float>(1.0 / p.tau), static_cast<float>(p.rho_outlet), nullptr, nullptr,
                  nullptr, nullptr};
    lbm_configure_view(v, d, p);
    mrt = p.collision == LbmCollision::Mrt;
    init_kernel<<<static_cast<unsigned>((N + 255) / 256), 256>>>(v, N, d.nz > 1);
    cuda_check(cudaGetLastError(), "lbm init");
    cuda_check(cudaMemset(rho.get(), 0, N * sizeof(float)), "memset");
    cuda_check(cudaMemset(ux.get(), 0, N * sizeof(float)), "memset");
    cuda_check(cudaMemset(uy.get(), 0, N * sizeof(float)), "memset");
    cuda_check(cudaMemset(uz.get(), 0, N * sizeof(float)), "memset");
    block = dim3(128);
    grid = dim3((d.nx + 127) / 128, d.ny, d.nz);
    v.f_src = fa.get();  // after init, fa holds the state
    v.f_dst = fb.get();
  }

  void step(bool write_macro) {
    v.rho = write_macro ? rho.get() : nullptr;
    v.ux = write_macro ? ux.get() : nullptr;
    v.uy = write_macro ? uy.get() : nullptr;
    v.uz = write_macro ? uz.get() : nullptr;
    if (d.nz > 1)
      mrt ? d3q19_kernel<true><<<grid, block>>>(v) : d3q19_kernel<false><<<grid, block>>>(v);
    else
      mrt ? d2q9_kernel<true><<<grid, block>>>(v) : d2q9_kernel<false><<<grid, block>>>(v);
    float* next_src = v.f_dst;
    v.f_dst = const_cast<float*>(v.f_src);  // the buffers are our own (fa, fb)
    v.f_src = next_src;
  }
};

}  // namespace

LbmResult lbm_run_cuda(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  validate_lbm(d, p, "lbm");
  DeviceLbm s(d, p);
  const char* stage = d.nz > 1 ? "lbm d3q19" : "lbm d2q9";
  LbmResult r;
  r.backend = "cuda";
  r.rho.assign(s.N, 0.f);
  r.ux.assign(s.N, 0.f);
  r.uy.assign(s.N, 0.f);
  r.uz.assign(s.N, 0.f);
  std::vector<float> prev[3] = {r.ux, r.uy, r.uz};
  r.residual = 1;
  // Same schedule as the CPU loop (core/src/lbm_loop.hpp), so both stop at the same step.
  while (r.steps < p.max_steps || r.steps % p.check_every != 0) {
    const bool check = (r.steps + 1) % p.check_every == 0;
    s.step(check);
    ++r.steps;
    if (check) {
      cuda_check(cudaGetLastError(), "lbm step");
      s.rho.download(r.rho.data());
      s.ux.download(r.ux.data());
      s.uy.download(r.uy.data());
      s.uz.download(r.uz.data());
      const std::vector<float> cur[3] = {r.ux, r.uy, r.uz};
      r.residual = lbm_relative_change(d, prev, cur);
      lbm_check_diverged(r.residual, r.steps, p.tau);
      for (int k = 0; k < 3; ++k) prev[k] = cur[k];
      cancel.throw_if_cancelled();
      if (progress) progress(static_cast<double>(r.steps) / p.max_steps, stage);
      if (r.residual < p.tolerance) {
        r.converged = true;
        break;
      }
    }
  }
  if (progress) progress(1.0, stage);
  return r;
}

double lbm_time_steps_cuda(const LbmDomain& d, const LbmParams& p, int steps) {
  validate_lbm(d, p, "lbm");
  DeviceLbm s(d, p);
  s.step(false);  // warm-up
  cuda_check(cudaDeviceSynchronize(), "lbm warm-up");
  cudaEvent_t a, b;
  cuda_check(cudaEventCreate(&a), "event");
  cuda_check(cudaEventCreate(&b), "event");
  cudaEventRecord(a);
  for (int k = 0; k < steps; ++k) s.step(false);
  cudaEventRecord(b);
  cuda_check(cudaEventSynchronize(b), "lbm timing");
  cuda_check(cudaGetLastError(), "lbm step");
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms * 1e-3;
}

}  // namespace mrwb::gpu

namespace mrwb::gpu {

double peak_memory_bandwidth_Bps() {
  int clock_kHz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_kHz, cudaDevAttrMemoryClockRate, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return 2.0 * clock_kHz * 1e3 * bus_bits / 8.0;  // double data rate
}

double measured_copy_bandwidth_Bps() {
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer<char> a(bytes), b(bytes);
  cuda_check(cudaMemset(a.get(), 1, bytes), "memset");
  cuda_check(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "copy");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const int reps = 10;
  cudaEventRecord(e0);
  for (int k = 0; k < reps; ++k) cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice);
  cudaEventRecord(e1);
  cuda_check(cudaEventSynchronize(e1), "copy timing");
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return 2.0 * bytes * reps / (ms * 1e-3);
}

}  // namespace mrwb::gpu
