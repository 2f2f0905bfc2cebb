// `mrwb bench --suite espirit`: ESPIRiT maps (Uecker et al. 2014) of a 256² x 32-coil loop-coil slice with
// receiver noise, -r 24 -k 6: the CPU reference, the CUDA twin (wall time with transfers, and its device
// stages), the speed-up, the maps' difference, and `bart ecalib -m1` on the same data where bart is installed
// (its time includes reading and writing the .cfl files).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "bench_suites.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/espirit.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/recon/espirit_cuda.hpp"
#endif

namespace mrwb::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A disc with a checkerboard of two levels, seen by the loop coils, with receiver noise (image SNR ~ 50 at the
// object's mean coil signal): the noise sets how many kernels pass -t 0.001, and so the work.
RawData espirit_raw(int n, int coils) {
  std::vector<std::complex<float>> disc(static_cast<std::size_t>(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (std::hypot((x - n / 2) / 0.42, (y - n / 2) / 0.36) < n / 2)
        disc[static_cast<std::size_t>(y) * n + x] = 1.0f + 0.3f * ((x / 16 + y / 16) % 2);
  RawData raw = multicoil_raw(disc, loop_coil_sensitivities(coils, n, n, 0.2), coils, n, n, 0.2, 0.2);
  add_receiver_noise(raw, 0.3, 0.0);
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

}  // namespace

int bench_espirit(const BenchOptions& options, nlohmann::json& report) {
  bool cpu = options.backend != Backend::Cuda, cuda = false;
#ifdef MRWB_HAVE_CUDA
  cuda = options.backend != Backend::Cpu && gpu::device_available();
  if (options.backend == Backend::Cuda && !cuda) {
    std::fprintf(stderr, "bench espirit: --backend cuda but no CUDA device\n");
    return 1;
  }
  if (cuda) report["device"] = gpu::device_description();
#endif
  const int n = options.quick ? 96 : 256, coils = options.quick ? 8 : 32;
  const EspiritParams p;  // -r 24 -k 6 -t 0.001 -c 0.8
  const RawData raw = espirit_raw(n, coils);
  nlohmann::json j = {{"n", n}, {"coils", coils}, {"calib_size", p.calib_size}, {"kernel_size", p.kernel_size}};
  double cpu_s = -1, cuda_s = -1, rms = -1;
  EspiritMaps ref;
  if (cpu) {
    const auto t0 = std::chrono::steady_clock::now();
    ref = espirit_maps(raw, p);
    cpu_s = seconds_since(t0);
    j["cpu_s"] = cpu_s;
    j["kernels"] = ref.kernels;
  }
#ifdef MRWB_HAVE_CUDA
  if (cuda) {
    (void)gpu::espirit_maps_cuda(raw, p);  // warm-up: the context, cuBLAS and cuSOLVER kernels
    gpu::EspiritCudaTiming t;
    const auto t0 = std::chrono::steady_clock::now();
    const EspiritMaps dev = gpu::espirit_maps_cuda(raw, p, &t);
    cuda_s = seconds_since(t0);
    j.update({{"cuda_s", cuda_s}, {"cuda_calibrate_ms", t.calibrate_ms}, {"cuda_maps_ms", t.maps_ms}});
    if (cpu) {
      double num = 0, den = 0;
      for (std::size_t i = 0; i < dev.maps.size(); ++i) {
        num += std::pow(std::abs(dev.maps[i]) - std::abs(ref.maps[i]), 2);
        den += std::norm(ref.maps[i]);
      }
      rms = std::sqrt(num / den);
      j["maps_magnitude_relative_rms"] = rms;
    }
  }
#endif
  const double bart_s = bart_ecalib_seconds(raw, p);
  if (bart_s >= 0) j["bart_ecalib_m1_s"] = bart_s;
  std::printf("ESPIRiT maps %dx%d, %d coils, -r %d -k %d (one set of maps)\n", n, n, coils, p.calib_size, p.kernel_size);
  std::printf("  %-34s %10s\n", "path", "seconds");
  if (cpu) std::printf("  %-34s %10.3f\n", "CPU (espirit_maps)", cpu_s);
  if (cuda_s >= 0)
    std::printf("  %-34s %10.4f  (speed-up %.1f; |maps| vs CPU relative RMS %.2e)\n", "CUDA (espirit_maps_cuda, wall)", cuda_s,
                cpu_s > 0 ? cpu_s / cuda_s : 0.0, rms);
  if (bart_s >= 0) std::printf("  %-34s %10.3f\n", "bart ecalib -m1 (files included)", bart_s);
  else std::printf("  bart not found (or failed): the bart ecalib comparison is skipped\n");
  if (cpu_s > 0 && cuda_s > 0) j["speedup"] = cpu_s / cuda_s;
  report["espirit"] = j;
  return 0;
}

}  // namespace mrwb::cli
