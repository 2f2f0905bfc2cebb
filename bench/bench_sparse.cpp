// `mrwb bench --suite sparse`: CG-SENSE (Pruessmann et al. 2001) and compressed sensing (Lustig et al. 2007:
// L1-wavelet FISTA, Beck & Teboulle 2009; TV ADMM, Boyd et al. 2011) on one 256² slice seen by 32 loop
// coils, Poisson-disc lines at R = 4 with 24 ACS lines and k-space noise: CPU reference vs CUDA, end to end
// (host raw data in, image out; the CUDA time split into upload, solve and download), the speed-up and the
// PSNR of each against the truth. The product's bar: CUDA >= 10x the CPU on this case.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include "bench_suites.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/cg_sense.hpp"
#include "mrwb/recon/compressed_sensing.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/recon/sparse_cuda.hpp"
#endif

namespace mrwb::cli {
namespace {

using cfloat = std::complex<float>;


// Piecewise smooth: an ellipse with a bias, discs with shading, a dark ellipse, smooth phase.
std::vector<cfloat> sparse_object(int n) {
  std::vector<cfloat> im(static_cast<std::size_t>(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double u = (x - n / 2.0) / n, v = (y - n / 2.0) / n;
      auto in = [&](double cx, double cy, double a, double b) {
        return ((u - cx) / a) * ((u - cx) / a) + ((v - cy) / b) * ((v - cy) / b) <= 1;
      };
      if (!in(0, 0, 0.42, 0.46)) continue;
      double m = 0.9 + 0.25 * u;
      if (in(0, 0, 0.36, 0.40)) m = 0.55 + 0.08 * std::sin(2 * M_PI * v * 3) + 0.1 * u;
      if (in(-0.12, -0.08, 0.07, 0.07)) m = 1.0 - 8 * ((u + 0.12) * (u + 0.12) + (v + 0.08) * (v + 0.08));
      if (in(0.14, 0.06, 0.06, 0.09)) m = 0.25 + 0.5 * (v - 0.06);
      if (in(0.02, -0.02, 0.04, 0.12)) m = 0.1;
      im[static_cast<std::size_t>(y) * n + x] = std::polar(static_cast<float>(m), static_cast<float>(0.6 * u + 0.4 * v * v));
    }
  return im;
}

// PSNR of |image| against |truth| after the least-squares scale.
double psnr(const Image2D& image, const std::vector<float>& truth, int n) {
  std::vector<float> m = image.magnitude();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < m.size(); ++i) num += double(m[i]) * truth[i], den += double(m[i]) * m[i];
  for (auto& v : m) v = static_cast<float>(v * num / den);
  return compare_images(m, truth, n, n).psnr_db;
}

struct Row {
  std::string method;
  int iterations;
  double cpu_s = -1, cuda_s = -1, upload_s = -1, solve_s = -1, download_s = -1, psnr_cpu = 0, psnr_cuda = 0;
};

}  // namespace

int bench_sparse(const BenchOptions& options, nlohmann::json& report) {
  const auto backends = bench_backends(options, "sparse", report);
  if (!backends) return 1;
  const bool cpu = backends->cpu, cuda = backends->cuda;
  const int n = options.quick ? 128 : 256, coils = options.quick ? 8 : 32, acs = 24;
  const double fov = 0.22;
  const std::vector<cfloat> object = sparse_object(n), maps = loop_coil_sensitivities(coils, n, n, fov);
  RawData raw = multicoil_raw(object, maps, coils, n, n, fov, fov);
  const auto flags = poisson_disc_lines(n, 4.0, acs, 1);
  raw.line_flags = flags;
  for (int c = 0; c < coils; ++c)
    for (int y = 0; y < n; ++y)
      if (!(flags[y] & kLineAcquired))
        for (int x = 0; x < n; ++x) raw.at(c, y, x) = {};
  add_correlated_noise(raw, coil_noise_covariance(coils, 0.0), 0.015 * n, 0, 7);
  // The reconstructions' scale: the object weighted by the maps' root sum of squares.
  std::vector<float> truth(object.size());
  for (std::size_t i = 0; i < truth.size(); ++i) {
    double ss = 0;
    for (int c = 0; c < coils; ++c) ss += std::norm(maps[c * truth.size() + i]);
    truth[i] = static_cast<float>(std::abs(object[i]) * std::sqrt(ss));
  }
  CgSenseParams cg;
  cg.iterations = 30;
  CsParams l1;
  l1.iterations = 100;
  CsParams tv;
  tv.regularizer = "tv";
  tv.iterations = 500;  // CG steps in all (BART's pics -i for ADMM); the residual test may end it sooner
  tv.cg_iterations = 10;
  const int reps = options.quick ? 2 : 3;

  std::printf("Sparse reconstruction %dx%d, %d loop coils, Poisson-disc R 4, %d ACS, noise (end to end: raw in, image out)\n",
              n, n, coils, acs);
#ifdef MRWB_HAVE_CUDA
  if (cuda) std::printf("device: %s\n", gpu::device_description().c_str());
#endif
  std::printf("%-26s %10s %10s %9s %9s %9s %9s %11s %11s\n", "method", "CPU s", "CUDA s", "upload", "solve", "download",
              "speed-up", "PSNR CPU", "PSNR CUDA");
  report["n"] = n;
  report["coils"] = coils;
  report["R"] = 4;
  report["acs"] = acs;
  report["cases"] = nlohmann::json::array();
  bool bar = true;
  struct Method {
    std::string name;
    int iterations;
    std::function<Image2D()> on_cpu;
#ifdef MRWB_HAVE_CUDA
    std::function<Image2D(gpu::SparseCudaTiming*)> on_cuda;
#endif
  };
  std::vector<Method> methods = {
      {"cg-sense (30 it)", cg.iterations, [&] { return reconstruct_cg_sense(raw, maps, cg); }
#ifdef MRWB_HAVE_CUDA
       , [&](gpu::SparseCudaTiming* t) { return gpu::reconstruct_cg_sense_cuda(raw, maps, cg, {}, {}, t); }
#endif
      },
      {"cs l1-wavelet (100 it)", l1.iterations, [&] { return reconstruct_compressed_sensing(raw, maps, l1); }
#ifdef MRWB_HAVE_CUDA
       , [&](gpu::SparseCudaTiming* t) { return gpu::reconstruct_compressed_sensing_cuda(raw, maps, l1, {}, {}, t); }
#endif
      },
      {"cs tv (<= 500 CG steps)", tv.iterations, [&] { return reconstruct_compressed_sensing(raw, maps, tv); }
#ifdef MRWB_HAVE_CUDA
       , [&](gpu::SparseCudaTiming* t) { return gpu::reconstruct_compressed_sensing_cuda(raw, maps, tv, {}, {}, t); }
#endif
      },
  };
  for (const Method& m : methods) {
    Row row{m.name, m.iterations};
    nlohmann::json j = {{"method", m.name}, {"iterations", m.iterations}};
    if (cpu) {
      const auto t0 = std::chrono::steady_clock::now();
      const Image2D img = m.on_cpu();
      row.cpu_s = seconds_since(t0);
      row.psnr_cpu = psnr(img, truth, n);
      j["cpu_s"] = row.cpu_s;
      j["psnr_cpu_db"] = row.psnr_cpu;
    }
#ifdef MRWB_HAVE_CUDA
    if (cuda) {
      std::vector<double> total, up, solve, down;
      for (int r = 0; r <= reps; ++r) {  // the first is the warm-up (context, cuFFT kernels)
        gpu::SparseCudaTiming t;
        const auto t0 = std::chrono::steady_clock::now();
        const Image2D img = m.on_cuda(&t);
        const double s = seconds_since(t0);
        if (r == 0) {
          row.psnr_cuda = psnr(img, truth, n);
          continue;
        }
        total.push_back(s), up.push_back(t.upload_s), solve.push_back(t.solve_s), down.push_back(t.download_s);
      }
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      row.cuda_s = median(total), row.upload_s = median(up), row.solve_s = median(solve), row.download_s = median(down);
      j.update({{"cuda_s", row.cuda_s}, {"cuda_upload_s", row.upload_s}, {"cuda_solve_s", row.solve_s},
                {"cuda_download_s", row.download_s}, {"psnr_cuda_db", row.psnr_cuda}});
    }
#endif
    const double speedup = row.cpu_s > 0 && row.cuda_s > 0 ? row.cpu_s / row.cuda_s : 0.0;
    if (speedup > 0) {
      j["speedup"] = speedup;
      bar = bar && speedup >= 10;
    }
    auto cell = [](double v, int width, int digits) {  // "-" for what did not run
      char b[32];
      if (v < 0) std::snprintf(b, sizeof b, "%*s", width, "-");
      else std::snprintf(b, sizeof b, "%*.*f", width, digits, v);
      return std::string(b);
    };
    std::printf("%-26s %s %s %s %s %s %s %s %s\n", m.name.c_str(), cell(row.cpu_s, 10, 3).c_str(),
                cell(row.cuda_s, 10, 4).c_str(), cell(row.upload_s, 9, 4).c_str(), cell(row.solve_s, 9, 4).c_str(),
                cell(row.download_s, 9, 4).c_str(), cell(speedup > 0 ? speedup : -1, 9, 1).c_str(),
                cell(cpu ? row.psnr_cpu : -1, 11, 2).c_str(), cell(cuda ? row.psnr_cuda : -1, 11, 2).c_str());
    report["cases"].push_back(j);
  }
  if (cpu && cuda) {
    std::printf("bar (CUDA >= 10x CPU on every method): %s\n", bar ? "met" : "NOT met");
    report["bar_10x_met"] = bar;
  }
  return 0;
}

}  // namespace mrwb::cli
