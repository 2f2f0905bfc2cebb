// `mrwb bench --suite flow`: D3Q19 lattice updates per second and bytes moved per update against the
// card's memory bandwidth (the roofline of a memory-bound LBM; bar: >= 60 % of the peak).
#include <array>
#include <chrono>
#include <cstdio>

#include "bench_suites.hpp"
#include "mrwb/flow/lbm.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/flow/lbm_cuda.hpp"
#endif

namespace mrwb::cli {
namespace {

// A square duct along x with plug inflow and a pressure outlet (every interior node is fluid).
LbmDomain duct(int nx, int ny, int nz) {
  LbmDomain d;
  d.nx = nx, d.ny = ny, d.nz = nz;
  d.node.assign(d.size(), 0);
  d.inlet_u.assign(3 * d.size(), 0.f);
  for (int z = 1; z < nz - 1; ++z)
    for (int y = 1; y < ny - 1; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t i = (static_cast<std::size_t>(z) * ny + y) * nx + x;
        d.node[i] = x == 0 ? 2 : x == nx - 1 ? 3 : 1;
        if (x == 0) d.inlet_u[3 * i] = 0.05f;
      }
  return d;
}

}  // namespace

int bench_flow(const BenchOptions& options, nlohmann::json& report) {
  // Bytes per node update (pull, SoA, fp32): 19 distributions read + 19 written, and the node flag.
  const double bytes_per_update = 2 * 19 * 4 + 1;
  report["bytes_per_update"] = bytes_per_update;
  report["cases"] = nlohmann::json::array();
  std::printf("%-28s %-6s %8s %14s %12s %10s\n", "case", "engine", "steps", "MLUPS", "GB/s", "% of peak");
  const bool want_cpu = options.backend != Backend::Cuda;
  bool want_cuda = options.backend != Backend::Cpu;
#ifdef MRWB_HAVE_CUDA
  if (options.backend == Backend::Auto && !gpu::device_available()) want_cuda = false;
#else
  want_cuda = false;
#endif
  LbmParams p;
  p.tau = 0.8;
  if (want_cpu) {
    const LbmDomain d = options.quick ? duct(32, 16, 16) : duct(96, 48, 48);
    p.max_steps = options.quick ? 20 : 60;
    p.check_every = p.max_steps;
    p.tolerance = 1e-30;
    const auto t0 = std::chrono::steady_clock::now();
    const LbmResult r = lbm_d3q19_cpu(d, p);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double lups = static_cast<double>(d.size()) * r.steps / s;
    std::printf("%-28s %-6s %8d %14.1f %12.2f %10s\n", (std::to_string(d.nx) + "x" + std::to_string(d.ny) + "x" + std::to_string(d.nz)).c_str(),
                "cpu", r.steps, lups / 1e6, lups * bytes_per_update / 1e9, "-");
    report["cases"].push_back({{"engine", "cpu"}, {"nodes", d.size()}, {"steps", r.steps}, {"seconds", s}, {"lattice_updates_per_s", lups}});
  }
#ifdef MRWB_HAVE_CUDA
  if (want_cuda) {
    const double peak = gpu::peak_memory_bandwidth_Bps(), copy = gpu::measured_copy_bandwidth_Bps();
    report["device"] = gpu::device_description();
    report["peak_bandwidth_Bps"] = peak;
    report["copy_bandwidth_Bps"] = copy;
    std::printf("device: %s; peak %.1f GB/s, measured copy %.1f GB/s\n", gpu::device_description().c_str(), peak / 1e9, copy / 1e9);
    const std::vector<std::array<int, 3>> sizes = options.quick ? std::vector<std::array<int, 3>>{{64, 32, 32}}
                                                                : std::vector<std::array<int, 3>>{{128, 128, 128}, {256, 256, 256}};
    for (const auto& n : sizes) {
      const LbmDomain d = duct(n[0], n[1], n[2]);
      const int steps = options.quick ? 20 : 200;
      const double s = gpu::lbm_time_steps_cuda(d, p, steps);
      const double lups = static_cast<double>(d.size()) * steps / s;
      const double bw = lups * bytes_per_update;
      const double frac = peak > 0 ? bw / peak : bw / copy;
      std::printf("%-28s %-6s %8d %14.1f %12.2f %9.1f%%\n", (std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2])).c_str(),
                  "cuda", steps, lups / 1e6, bw / 1e9, 100 * frac);
      report["cases"].push_back({{"engine", "cuda"}, {"nodes", d.size()}, {"steps", steps}, {"seconds", s},
                                 {"lattice_updates_per_s", lups}, {"bandwidth_Bps", bw}, {"fraction_of_peak", frac},
                                 {"fraction_of_copy", bw / copy}});
    }
  }
#endif
  return 0;
}

}  // namespace mrwb::cli
