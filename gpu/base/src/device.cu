#include <cstdio>

#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/base/device.hpp"

namespace mrwb::gpu {

bool device_available() { return device_count() > 0; }

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

bool peer_access(int from, int to) {
  int can = 0;
  return cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can == 1;
}

std::string device_description() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0)
    return std::string("no CUDA device: ") + (err != cudaSuccess ? cudaGetErrorString(err) : "none found");
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "CUDA device 0 (properties unavailable)";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s, %.1f GiB, sm_%d%d, %d SMs", prop.name,
                static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024 * 1024), prop.major, prop.minor,
                prop.multiProcessorCount);
  return buf;
}

double device_memory_bandwidth_GB_per_s() {
  if (!device_available()) return 0;
  // Attributes, not cudaDeviceProp fields: CUDA 13 dropped cudaDeviceProp::memoryClockRate.
  int clock_kHz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_kHz, cudaDevAttrMemoryClockRate, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) != cudaSuccess)
    return 0;
  return 2.0 * clock_kHz * 1e3 * (bus_bits / 8.0) * 1e-9;
}

DeviceFacts device_facts() {
  DeviceFacts f;
  if (!device_available()) return f;
  int khz = 0;
  cuda_check(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  cuda_check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock rate");
  f.clock_hz = khz * 1e3;
  return f;
}

void start_context() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) return;
  if (cudaSetDevice(0) == cudaSuccess) cudaFree(nullptr);  // the primary context
}

}  // namespace mrwb::gpu
