// `mrwb bench --suite espirit`: ESPIRiT maps (Uecker et al. 2014), -r 24 -k 6, of loop-coil data with receiver
// noise, by row: a 256² Cartesian slice with 32 coils (the CUDA twin with both batched eigensolvers, Jacobi and
// XSYEV, and `bart ecalib -m1` on the same data where bart is installed, its time including the .cfl files), the
// same with 64 coils (XSYEV: beyond the Jacobi solver's 32), and a 256² radial slice with 32 coils (the gridded
// centre on the CPU, then the backend's maps). Each row: the CPU reference, the CUDA wall time with transfers and
// its device stages, the speed-up, the maps' difference.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "bench_suites.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/espirit.hpp"
#include "mrwb/recon/noncart_coil_raw.hpp"
#include "mrwb/sequence/trajectory.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/recon/espirit_cuda.hpp"
#endif

namespace mrwb::cli {
namespace {

// A disc with a checkerboard of two levels on an n x n grid.
std::vector<std::complex<float>> checkered_disc(int n) {
  std::vector<std::complex<float>> disc(static_cast<std::size_t>(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (std::hypot((x - n / 2) / 0.42, (y - n / 2) / 0.36) < n / 2)
        disc[static_cast<std::size_t>(y) * n + x] = 1.0f + 0.3f * ((x / 16 + y / 16) % 2);
  return disc;
}

// The disc seen by the loop coils, with receiver noise (image SNR ~ 50 at the object's mean coil signal): the
// noise sets how many kernels pass -t 0.001, and so the work. Cartesian, or radial (3n/2 spokes of 2n samples).
RawData espirit_raw(int n, int coils, bool radial) {
  const auto sens = loop_coil_sensitivities(coils, n, n, 0.2);
  RawData raw;
  if (radial) {
    const noncart::Trajectory t = noncart::radial_2d(n, 3 * n / 2, 2 * n, false);
    raw = noncart::multicoil_raw_noncart(checkered_disc(n), sens, n, coils, t.k, t.readouts, t.samples, 0.2);
  } else {
    raw = multicoil_raw(checkered_disc(n), sens, coils, n, n, 0.2, 0.2);
  }
  // The radial samples carry the voxel basis phi = 1/n² (noncart_types.hpp) where the unnormalised DFT carries 1.
  add_receiver_noise(raw, radial ? 0.3 / (static_cast<double>(n) * n) : 0.3, 0.0);
  return raw;
}

// `bart ecalib -m1 -r calib -k kernel` on raw, seconds (< 0: bart absent or failed).
double bart_ecalib_seconds(const RawData& raw, const EspiritParams& p) {
  if (std::system("bart version > /dev/null 2>&1") != 0) return -1;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mrwb_bench_espirit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_raw_cfl((dir / "k").string(), "", raw);
  const std::string cmd = "bart ecalib -m1 -r " + std::to_string(p.calib_size) + " -k " + std::to_string(p.kernel_size) +
                          " " + (dir / "k").string() + " " + (dir / "maps").string() + " > /dev/null 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  const double s = seconds_since(t0);
  fs::remove_all(dir);
  return rc == 0 ? s : -1;
}

// One row: the CPU reference and the CUDA twin (solver Auto, and Jacobi / XSYEV apart where `both_solvers`).
struct EspiritRow {
  int n, coils;
  bool radial, both_solvers;
};

nlohmann::json bench_row(const EspiritRow& row, bool cpu, bool cuda, bool with_bart) {
  const EspiritParams p;  // -r 24 -k 6 -t 0.001 -c 0.8
  const RawData raw = espirit_raw(row.n, row.coils, row.radial);
  nlohmann::json j = {{"n", row.n},
                      {"coils", row.coils},
                      {"trajectory", row.radial ? "radial" : "cartesian"},
                      {"calib_size", p.calib_size},
                      {"kernel_size", p.kernel_size}};
  std::printf("\nESPIRiT maps %dx%d, %d coils, %s, -r %d -k %d (one set of maps)\n", row.n, row.n, row.coils,
              row.radial ? "radial (gridded centre)" : "Cartesian", p.calib_size, p.kernel_size);
  std::printf("  %-40s %10s\n", "path", "seconds");
  // The calibration block on the CPU (cheap), as espirit_maps / espirit_maps_noncart take it for every backend.
  EspiritBlock block;
  int nx = row.n, ny = row.n;
  if (row.radial) {
    EspiritNoncartCalibration c = espirit_noncart_calibration(raw, 0, p);
    block = std::move(c.block);
    nx = ny = c.matrix;
  } else {
    block = espirit_calibration_block(raw, p);
  }
  double cpu_s = -1;
  EspiritMaps ref;
  if (cpu) {
    const auto t0 = std::chrono::steady_clock::now();
    ref = espirit_from_calibration(block.data, block.cx, block.cy, block.coils, nx, ny, p);
    cpu_s = seconds_since(t0);
    j["cpu_s"] = cpu_s;
    j["kernels"] = ref.kernels;
    std::printf("  %-40s %10.3f\n", "CPU (espirit_from_calibration)", cpu_s);
  }
#ifdef MRWB_HAVE_CUDA
  if (cuda) {
    using gpu::EspiritCudaSolver;
    std::vector<std::pair<EspiritCudaSolver, const char*>> solvers{{EspiritCudaSolver::Auto, "cuda"}};
    if (row.both_solvers)
      solvers = {{EspiritCudaSolver::Jacobi, "cuda_jacobi"}, {EspiritCudaSolver::Syev, "cuda_syev"}};
    for (const auto& [solver, key] : solvers) {
      (void)gpu::espirit_from_calibration_cuda(block, nx, ny, p, solver);  // warm-up: context, cuBLAS, cuSOLVER
      gpu::EspiritCudaTiming t;
      const auto t0 = std::chrono::steady_clock::now();
      const EspiritMaps dev = gpu::espirit_from_calibration_cuda(block, nx, ny, p, solver, &t);
      const double s = seconds_since(t0);
      const std::string k(key);
      j.update({{k + "_s", s}, {k + "_calibrate_ms", t.calibrate_ms}, {k + "_maps_ms", t.maps_ms}});
      const double rms = cpu ? magnitude_relative_l2(dev.maps, ref.maps) : -1;
      if (cpu) {
        j[k + "_maps_magnitude_relative_rms"] = rms;
        j[k + "_speedup"] = cpu_s / s;
      }
      const char* solver_name = solver == EspiritCudaSolver::Jacobi ? "CUDA, cheevjBatched (wall)"
                                : solver == EspiritCudaSolver::Syev ? "CUDA, XsyevBatched (wall)"
                                                                    : "CUDA (wall)";
      std::printf("  %-40s %10.4f  (speed-up %.1f; |maps| vs CPU relative RMS %.2e)\n", solver_name, s,
                  cpu_s > 0 ? cpu_s / s : 0.0, rms);
    }
  }
#else
  (void)cuda;
#endif
  if (with_bart) {
    const double bart_s = bart_ecalib_seconds(raw, p);
    if (bart_s >= 0) {
      j["bart_ecalib_m1_s"] = bart_s;
      std::printf("  %-40s %10.3f\n", "bart ecalib -m1 (files included)", bart_s);
    } else {
      std::printf("  bart not found (or failed): the bart ecalib comparison is skipped\n");
    }
  }
  return j;
}

}  // namespace

int bench_espirit(const BenchOptions& options, nlohmann::json& report) {
  const auto backends = bench_backends(options, "espirit", report);
  if (!backends) return 1;
  const bool cpu = backends->cpu, cuda = backends->cuda;
  const int n = options.quick ? 96 : 256;
  const std::vector<EspiritRow> rows = {{n, options.quick ? 8 : 32, false, true},
                                        {n, options.quick ? 40 : 64, false, false},
                                        {n, options.quick ? 8 : 32, true, false}};
  nlohmann::json j = nlohmann::json::array();
  for (std::size_t r = 0; r < rows.size(); ++r) j.push_back(bench_row(rows[r], cpu, cuda, r == 0));
  report["espirit"] = j;
  return 0;
}

}  // namespace mrwb::cli
