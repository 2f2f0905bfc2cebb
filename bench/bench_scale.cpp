// `mrwb bench --suite scale`: work split over several GPUs of one host. Exact F^H d and Q split by voxels
// (Stone et al. 2008 ran F^H d on four GPUs): 256^3 voxels x 284,592 samples (their 128^3 trajectory scaled
// by 2) on 1, 2, 4 ... GPUs, each with every sample; strong-scaling speed-up and efficiency against one GPU,
// and the exact CG whose F^H d and Q are split (its solver on one GPU; Q's half grid gathered through the host).
// Then the simulator's slab decomposition over GPU ranks, strong and weak scaling (bench_scale_sim.cpp).
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench_scale_sim.hpp"
#include "bench_suites.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/phantom/analytic_phantom.hpp"
#include "mrwb/recon/cg_operators.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/sequence/trajectory.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/base/device_parts.hpp"
#include "mrwb_gpu/recon/noncart_cuda.hpp"
#endif

namespace mrwb::cli {

#ifdef MRWB_HAVE_CUDA
namespace {

using noncart::cdouble;

int scale_fhd(nlohmann::json& report) {
  const int gpus = gpu::resolve_gpu_parts(0, "--gpus");
  const noncart::Grid g{3, 256};
  noncart::Samples s;
  s.dims = 3;
  s.k = noncart::stone2008_points(128);  // 284,592 points; the 128^3 case's trajectory scaled to 256^3
  s.d = noncart::AnalyticPhantom::shepp_logan(3).kspace(s.k);
  for (auto& v : s.k) v *= 2.0f;
  const std::size_t M = s.count();
  gpu::FhdConfig c;  // the sfu kernel, the H100 sweep's best configuration
  std::printf("Exact F^H d / Q split by voxels over GPUs: 256^3 voxels x %zu samples, %d GPU(s) visible\n", M, gpus);
  std::printf("device 0: %s\n", gpu::device_description().c_str());
  {  // every device's context and module loaded before timing
    gpu::FhdConfig warm = c;
    warm.devices = gpus;
    gpu::fhd_on_device(noncart::Grid{3, 16}, s.k.data(), s.d.data(), 4096, warm);
  }
  std::printf("%-6s %12s %9s %11s %14s\n", "GPUs", "F^H d s", "speed-up", "efficiency", "rel L2 vs 1");
  nlohmann::json rows = nlohmann::json::array();
  std::vector<cdouble> one;
  double t_fhd1 = 0;
  bool bar = true;
  for (int n = 1; n <= gpus; n *= 2) {
    c.devices = n;
    auto t0 = std::chrono::steady_clock::now();
    auto fhd = gpu::fhd_on_device(g, s.k.data(), s.d.data(), M, c);
    const double t_fhd = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (n == 1) one = fhd, t_fhd1 = t_fhd;
    const double e = relative_l2(fhd, one), sf = t_fhd1 / t_fhd;
    std::printf("%-6d %12.4f %9.2f %10.1f%% %14.3g\n", n, t_fhd, sf, 100 * sf / n, e);
    rows.push_back({{"gpus", n}, {"fhd_s", t_fhd}, {"fhd_speedup", sf}, {"rel_l2_vs_one", e}});
    if (n == 4 && sf < 3.5) bar = false;
  }
  std::printf("(wall time of fhd_on_device: upload, kernels, download into one host array)\n");
  if (gpus >= 4) std::printf("bar (F^H d on 4 GPUs >= 3.5x one): %s\n", bar ? "met" : "MISSED");
  // The exact CG (operators forced: Auto takes the gridded ones at this size); with several GPUs its F^H d and
  // Q pass through the host to the solver's GPU.
  NoncartParams p;
  p.iterations = 60;
  p.operators = CgOperators::Exact;
  nlohmann::json cg = nlohmann::json::array();
  for (int n = 1; n <= gpus; n *= 2) {
    c.devices = n;
    gpu::Timing tm;
    gpu::cg_on_device(g, s, p, c, {}, &tm);
    std::printf("exact CG 60 it. on %d GPU(s): F^H d %.3f s, Q %.3f s, solver %.3f s, total %.3f s\n", n, tm.fhd_s, tm.q_s,
                tm.solver_s, tm.total_s);
    cg.push_back({{"gpus", n}, {"fhd_s", tm.fhd_s}, {"q_s", tm.q_s}, {"solver_s", tm.solver_s}, {"total_s", tm.total_s}});
  }
  report["fhd_256"] = {{"voxels", g.voxels()}, {"samples", M}, {"gpus_visible", gpus}, {"rows", rows}, {"cg_exact", cg}};
  return bar ? 0 : 1;
}

}  // namespace
#endif

int bench_scale(const BenchOptions& options, nlohmann::json& report) {
  if (is_scale_sim_rank()) return scale_sim_rank(options);  // one rank of a run the suite started
#ifdef MRWB_HAVE_CUDA
  if (!options.quick && options.backend != Backend::Cpu && gpu::device_available()) {
    const int fhd = scale_fhd(report);
    std::printf("\n");
    return scale_simulator(options, report) | fhd;
  }
#endif
  // Without GPUs: --quick times a small slab over 1 and 2 CPU ranks (a smoke run of the plumbing).
  if (options.quick) return scale_simulator(options, report);
  std::printf("scale: needs CUDA GPUs (none here); --quick runs a small slab over CPU ranks\n");
  report["skipped"] = "no CUDA device";
  return options.backend == Backend::Cuda ? 1 : 0;
}

}  // namespace mrwb::cli
