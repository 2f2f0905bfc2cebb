// `mrwb bench --suite grappa`: GRAPPA autocalibration (Schneider 2008, thesis Table 5.1 default case and
// its N_c / N_col sweeps), CPU reference vs CUDA (solve included), a full 256x256 32-coil R=4 slice
// (device time without transfers, transfers separately) and GEMM rates against cuBLAS's own.
// Calibration input is random complex Gaussian k-space, as in the thesis' standalone benchmark (5.3.1).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "bench_suites.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/undersample.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/recon/grappa_cuda.hpp"
#endif

namespace mrwb::cli {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

RawData random_raw(int ncoils, int ncol, int nlines, int R, int acs, unsigned seed) {
  RawData raw;
  raw.nx = ncol;
  raw.ny = nlines;
  raw.ncoils = ncoils;
  raw.fov_x_m = raw.fov_y_m = 0.25;
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.f, 1.f);
  raw.kspace.resize(static_cast<std::size_t>(ncoils) * ncol * nlines);
  for (auto& v : raw.kspace) v = {n(rng), n(rng)};
  raw.line_flags.assign(nlines, static_cast<std::uint8_t>(kLineAcquired | kLineImaging));
  undersample_cartesian(raw, R, acs);
  return raw;
}

// Image of a disc-and-ellipses object on the grid (for the full-slice case).
std::vector<std::complex<float>> test_object(int n) {
  std::vector<std::complex<float>> img(static_cast<std::size_t>(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double x = 2.0 * (i - n / 2) / n, y = 2.0 * (j - n / 2) / n;
      double v = x * x / 0.5 + y * y / 0.75 <= 1 ? 1.0 : 0.0;
      v -= (x - 0.2) * (x - 0.2) / 0.02 + y * y / 0.1 <= 1 ? 0.6 : 0.0;
      v += (x + 0.3) * (x + 0.3) + (y - 0.3) * (y - 0.3) <= 0.01 ? 0.5 : 0.0;
      img[static_cast<std::size_t>(j) * n + i] = std::polar(static_cast<float>(v), static_cast<float>(0.4 * x));
    }
  return img;
}

struct CalibRow {
  std::string label;
  int ncoils, ncol;
  double cpu_ms = -1, cuda_ms = -1, upload_ms = -1, gemm_gflops = -1;
};

}  // namespace

int bench_grappa(const BenchOptions& options, nlohmann::json& report) {
  const auto backends = bench_backends(options, "grappa", report);
  if (!backends) return 1;
  const bool cpu = backends->cpu, cuda = backends->cuda;
  const int R = 4, acs = 24;
  GrappaParams basic;  // thesis Table 5.1: N_b 4, delta_s 128, chi 1e-4, eta 1
  basic.approach = "basic";
  basic.kernel_pe = 4;
  basic.segment_cols = 128;

  // --- calibration: default case and sweeps -------------------------------------------------------
  std::vector<std::pair<int, int>> cases = {{32, 512}};  // (N_c, N_col)
  std::vector<int> nc_sweep = {8, 16, 32, 64, 128}, ncol_sweep = {256, 512, 768, 1024};
  if (options.quick) nc_sweep = {8, 16}, ncol_sweep = {256};
  for (int nc : nc_sweep) cases.push_back({nc, 512});
  for (int ncol : ncol_sweep) cases.push_back({32, ncol});
  std::vector<CalibRow> rows;
  std::printf("GRAPPA calibration (basic: N_b 4, delta_s 128, R 4, 24 ACS; CUDA: device time, solve included)\n");
  std::printf("%-22s %5s %6s %12s %12s %10s %12s %12s\n", "case", "N_c", "N_col", "CPU ms", "CUDA ms", "speedup",
              "upload ms", "ZGEMM GF/s");
  report["calibration"] = nlohmann::json::array();
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const auto [nc, ncol] = cases[ci];
    CalibRow row{ci == 0 ? "default (Table 5.1)" : (ci <= nc_sweep.size() ? "N_c sweep" : "N_col sweep"), nc, ncol};
    const RawData raw = random_raw(nc, ncol, 64, R, acs, 7 + ci);
    if (cpu) {
      std::vector<double> t;
      const int reps = nc * ncol > 32 * 512 ? 1 : 3;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        (void)grappa_calibrate(raw, basic);
        t.push_back(seconds_since(t0) * 1e3);
      }
      row.cpu_ms = median(t);
    }
#ifdef MRWB_HAVE_CUDA
    if (cuda) {
      const GrappaGeometry g = grappa_geometry(raw, basic);
      gpu::GrappaCuda dev(g, basic, 1);
      dev.upload_acs(0, grappa_acs_block(raw, g));
      row.upload_ms = dev.timing().upload_ms;
      dev.calibrate();  // warm-up (cuBLAS/cuSOLVER kernels loaded)
      std::vector<double> t, gemm;
      for (int r = 0; r < 20; ++r) {
        dev.calibrate();
        t.push_back(dev.timing().calibrate_ms);
        gemm.push_back(dev.timing().calib_gemm_gflop / (dev.timing().calib_gemm_ms * 1e-3));
      }
      row.cuda_ms = median(t);
      row.gemm_gflops = median(gemm);
    }
#endif
    std::printf("%-22s %5d %6d %12.3f %12.3f %10.1f %12.3f %12.0f\n", row.label.c_str(), nc, ncol, row.cpu_ms, row.cuda_ms,
                row.cpu_ms > 0 && row.cuda_ms > 0 ? row.cpu_ms / row.cuda_ms : 0.0, row.upload_ms, row.gemm_gflops);
    report["calibration"].push_back({{"case", row.label}, {"ncoils", nc}, {"ncol", ncol}, {"R", R}, {"acs", acs},
                                     {"cpu_ms", row.cpu_ms}, {"cuda_ms", row.cuda_ms}, {"upload_ms", row.upload_ms},
                                     {"zgemm_gflops", row.gemm_gflops}});
  }

  // --- full slice 256x256, 32 coils, R 4 --------------------------------------------------------------
  const int n = options.quick ? 128 : 256, nc = options.quick ? 8 : 32;
  RawData full = multicoil_raw(test_object(n), loop_coil_sensitivities(nc, n, n, 0.25), nc, n, n, 0.25, 0.25);
  const auto truth = reconstruct_fft(full).magnitude();
  RawData raw = full;
  undersample_cartesian(raw, R, acs);
  GrappaParams improved;  // 4x5 kernel
  GrappaParams basic_slice = basic;
  basic_slice.segment_cols = n / 4;
  std::printf("\nFull slice %dx%d, %d coils, R 4, 24 ACS (CUDA: device ms without transfers; transfers separately)\n", n, n,
              nc);
  std::printf("%-26s %10s %9s %9s %9s %9s %9s %10s %10s %9s\n", "calibration", "CPU ms", "calib", "synth", "combine",
              "CUDA ms", "upload", "download", "CGEMM GF/s", "PSNR dB");
  report["full_slice"] = nlohmann::json::array();
  for (const auto& [label, p] : {std::pair<std::string, GrappaParams>{"improved 4x5", improved},
                                 std::pair<std::string, GrappaParams>{"basic N_b 4, 4 segments", basic_slice}}) {
    double cpu_ms = -1, psnr = 0;
    nlohmann::json j = {{"case", label}, {"n", n}, {"ncoils", nc}, {"R", R}, {"acs", acs}};
    if (cpu) {
      const auto t0 = std::chrono::steady_clock::now();
      const Image2D img = reconstruct_grappa(raw, p, {}, {});
      cpu_ms = seconds_since(t0) * 1e3;
      psnr = compare_images(img.magnitude(), truth, n, n).psnr_db;
      j["cpu_ms"] = cpu_ms;
    }
    double c_ms = -1, s_ms = -1, m_ms = -1, up = -1, down = -1, gf = -1;
#ifdef MRWB_HAVE_CUDA
    if (cuda) {
      const GrappaGeometry g = grappa_geometry(raw, p);
      gpu::GrappaCuda dev(g, p, 1);
      std::vector<double> tc, ts, tm, tu, td, tg;
      for (int r = 0; r < 11; ++r) {  // first run is the warm-up
        dev.upload_acs(0, grappa_acs_block(raw, g));
        double u = dev.timing().upload_ms;
        dev.calibrate();
        dev.upload_kspace(raw);
        u += dev.timing().upload_ms;
        dev.synthesize(0);
        dev.combine(raw, p.combine);
        const Image2D img = dev.image();
        if (r == 0) {
          psnr = compare_images(img.magnitude(), truth, n, n).psnr_db;
          continue;
        }
        const auto& t = dev.timing();
        tc.push_back(t.calibrate_ms);
        ts.push_back(t.synth_ms);
        tm.push_back(t.combine_ms);
        tu.push_back(u);
        td.push_back(t.download_ms);
        tg.push_back(t.synth_gemm_gflop / (t.synth_gemm_ms * 1e-3));
      }
      c_ms = median(tc), s_ms = median(ts), m_ms = median(tm), up = median(tu), down = median(td), gf = median(tg);
      j.update({{"cuda_calibrate_ms", c_ms}, {"cuda_synthesis_ms", s_ms}, {"cuda_combine_ms", m_ms},
                {"cuda_total_ms", c_ms + s_ms + m_ms}, {"upload_ms", up}, {"download_ms", down}, {"cgemm_gflops", gf}});
    }
#endif
    j["psnr_db"] = psnr;
    std::printf("%-26s %10.1f %9.3f %9.3f %9.3f %9.3f %9.3f %10.3f %10.0f %9.2f\n", label.c_str(), cpu_ms, c_ms, s_ms, m_ms,
                c_ms >= 0 ? c_ms + s_ms + m_ms : -1.0, up, down, gf, psnr);
    report["full_slice"].push_back(j);
  }

#ifdef MRWB_HAVE_CUDA
  if (cuda) {
    const int gn = options.quick ? 1024 : 4096;
    const double c = gpu::cublas_complex_gemm_gflops(false, gn), z = gpu::cublas_complex_gemm_gflops(true, gn);
    std::printf("\ncuBLAS own rate, %d^3: CGEMM %.0f GFLOP/s, ZGEMM %.0f GFLOP/s (8 flops per complex multiply-add)\n", gn,
                c, z);
    report["cublas_reference"] = {{"n", gn}, {"cgemm_gflops", c}, {"zgemm_gflops", z}};
  }
#endif
  return 0;
}

}  // namespace mrwb::cli
