#include <cuda_runtime.h>

#include "mrwb/flow/lbm_node_ops.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/flow/lbm_cuda.hpp"

namespace mrwb::gpu {
namespace {

template <int Q>
__global__ void init_kernel(lbm::View v, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) lbm::init_lattice<Q>(v, i);
}

// One kernel per lattice and collision (template), so the BGK kernel carries no MRT registers.
template <int Q, bool Mrt>
__global__ void update_kernel(lbm::View v) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < v.nx) lbm::update_lattice<Q, Mrt>(v, x, blockIdx.y, blockIdx.z);
}

// Seconds of the device work queued by `work` (CUDA events).
template <typename Work>
double event_seconds(Work work, const char* what) {
  cudaEvent_t a, b;
  cuda_check(cudaEventCreate(&a), "event");
  cuda_check(cudaEventCreate(&b), "event");
  cudaEventRecord(a);
  work();
  cudaEventRecord(b);
  cuda_check(cudaEventSynchronize(b), what);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms * 1e-3;
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
    v = lbm_make_view(d, p, node.get(), inlet.get());
    v.f_dst = fa.get();
    mrt = p.collision == LbmCollision::Mrt;
    const unsigned init_blocks = static_cast<unsigned>((N + 255) / 256);
    d.nz > 1 ? init_kernel<19><<<init_blocks, 256>>>(v, N) : init_kernel<9><<<init_blocks, 256>>>(v, N);
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
      mrt ? update_kernel<19, true><<<grid, block>>>(v) : update_kernel<19, false><<<grid, block>>>(v);
    else
      mrt ? update_kernel<9, true><<<grid, block>>>(v) : update_kernel<9, false><<<grid, block>>>(v);
    float* next_src = v.f_dst;
    v.f_dst = const_cast<float*>(v.f_src);  // the buffers are our own (fa, fb)
    v.f_src = next_src;
  }
};

}  // namespace

LbmResult lbm_run_cuda(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  validate_lbm(d, p, "lbm");
  DeviceLbm s(d, p);
  const LbmStep step = [&s](bool write_macro, LbmResult& r) {
    s.step(write_macro);
    if (!write_macro) return;
    cuda_check(cudaGetLastError(), "lbm step");
    s.rho.download(r.rho.data());
    s.ux.download(r.ux.data());
    s.uy.download(r.uy.data());
    s.uz.download(r.uz.data());
  };
  return lbm_time_loop(d, p, d.q(), "cuda", step, progress, cancel);
}

double lbm_time_steps_cuda(const LbmDomain& d, const LbmParams& p, int steps) {
  validate_lbm(d, p, "lbm");
  DeviceLbm s(d, p);
  s.step(false);  // warm-up
  cuda_check(cudaDeviceSynchronize(), "lbm warm-up");
  const double seconds = event_seconds([&] {
    for (int k = 0; k < steps; ++k) s.step(false);
  }, "lbm timing");
  cuda_check(cudaGetLastError(), "lbm step");
  return seconds;
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
  const int reps = 10;
  const double seconds = event_seconds([&] {
    for (int k = 0; k < reps; ++k) cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice);
  }, "copy timing");
  return 2.0 * bytes * reps / seconds;
}

}  // namespace mrwb::gpu
