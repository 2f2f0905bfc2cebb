#include <cstdio>

#include "cuda_check.hpp"
#include "mrwb/recon/noncart_volume.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb_gpu/cuda_simulation_engine.hpp"
#include "mrwb_gpu/grappa_cuda.hpp"
#include "mrwb_gpu/noncart_cuda.hpp"
#include "mrwb_gpu/register_backends.hpp"

namespace mrwb::gpu {

bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
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

void register_backends() {
  register_reconstructor("grappa", "cuda", ReconBackend{[] { return device_available(); }, [] { return make_grappa_cuda_reconstructor(); }});
  register_reconstructor("gridding", "cuda", ReconBackend{[] { return device_available(); }, [] { return make_gridding_reconstructor_cuda(); }});
  register_reconstructor("cg", "cuda", ReconBackend{[] { return device_available(); }, [] { return make_cg_reconstructor_cuda(); }});
  noncart::register_volume_backend("cuda", noncart::VolumeBackend{[] { return device_available(); }, reconstruct_volume_cuda});
  register_simulation_backend(
      "cuda", SimulationBackend{[] { return BackendInfo{"cuda", device_description(), device_available()}; },
                                [] { return make_cuda_simulation_engine(); }});
}

}  // namespace mrwb::gpu
