// `mrwb bench --suite noncart`: exact and gridded iterative non-Cartesian reconstruction (Stone et al.
// 2008) at the paper's size on the GPU (128^3 voxels, 284,592 samples, 60 CG iterations), the kernel
// tuning sweep, the paper's quality table (gridding alone vs regularised CG), and a 2-D radial case on the
// CPU. --quick: small 2-D cases only (CPU smoke run).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "bench_suites.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/phantom/analytic_phantom.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/sequence/trajectory.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/recon/noncart_cuda.hpp"
#endif

namespace mrwb::cli {
namespace {

using namespace mrwb::noncart;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<float> magnitudes(const std::vector<cdouble>& v, double scale = 1.0) {
  std::vector<float> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = static_cast<float>(scale * std::abs(v[i]));
  return m;
}

// Golden-angle radial spokes of 2n samples and the analytic Shepp-Logan k-space at their points.
Samples radial_phantom_samples(int n, int spokes) {
  const noncart::Trajectory t = radial_2d(n, spokes, 2 * n, true);
  Samples s;
  s.k = t.k;
  s.d = AnalyticPhantom::shepp_logan(2).kspace(t.k);
  return s;
}

// 2-D radial case on the CPU: exact CG (CPU.SP) and Kaiser-Bessel gridding.
void cpu_radial_case(int n, int spokes, int iterations, nlohmann::json& report) {
  const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(2);
  const Samples s = radial_phantom_samples(n, spokes);
  const Grid g{2, n};
  const auto truth = ph.image(n, 4);
  NoncartParams p;
  p.iterations = iterations;
  p.operators = CgOperators::Exact;
  double t0 = now_s();
  const CgResult r = reconstruct_cg_cpu(g, s, p, Precision::Single);
  const double t_cg = now_s() - t0;
  const Metrics mc = compare_images(magnitudes(r.image), truth, n, n);
  t0 = now_s();
  GriddingParams gp;
  const auto w = density_pipe_menon(g, s, gp);
  const auto gi = gridding_recon(g, s.k.data(), s.d.data(), s.count(), w, gp);
  const double t_grid = now_s() - t0;
  const auto gm = magnitudes(gi);
  const Metrics mg = compare_images(magnitudes(gi, magnitude_scale(gm, truth)), truth, n, n);
  std::printf("CPU 2-D radial %dx%d, %d golden-angle spokes, %zu samples, %d CG iterations\n", n, n, spokes, s.count(),
              iterations);
  std::printf("  %-28s %9s %9s %9s %9s %8s %8s\n", "method", "F^H d s", "Q s", "solver s", "total s", "% err", "PSNR dB");
  std::printf("  %-28s %9.3f %9.3f %9.3f %9.3f %8.2f %8.2f\n", "CG exact (CPU.SP)", r.seconds_fhd, r.seconds_q,
              r.seconds_solver, t_cg, mc.percent_error, mc.psnr_db);
  std::printf("  %-28s %9s %9s %9s %9.3f %8.2f %8.2f\n", "KB gridding + Pipe-Menon", "-", "-", "-", t_grid,
              mg.percent_error, mg.psnr_db);
  report["cpu_radial"] = {{"n", n},
                          {"spokes", spokes},
                          {"samples", s.count()},
                          {"iterations", iterations},
                          {"cg_exact_sp", {{"fhd_s", r.seconds_fhd}, {"q_s", r.seconds_q}, {"solver_s", r.seconds_solver},
                                           {"total_s", t_cg}, {"percent_error", mc.percent_error}, {"psnr_db", mc.psnr_db}}},
                          {"gridding", {{"total_s", t_grid}, {"percent_error", mg.percent_error}, {"psnr_db", mg.psnr_db},
                                        {"note", "rescaled to the true scale before metrics, as in the paper"}}}};
}

// The same radial case through `bart pics -l2` (BART's NUFFT CG, unit coil sensitivity) beside our CG with
// exact and with gridded F^H d / Q, all with `iterations` CG iterations on this machine's cores. BART scales
// its data internally, so its image is fitted to the truth by one magnitude scale before the metrics.
void bart_radial_case(int n, int spokes, int iterations, nlohmann::json& report) {
  if (std::system("bart version > /dev/null 2>&1") != 0) {
    std::printf("bart not found: the bart pics comparison is skipped\n");
    return;
  }
  namespace fs = std::filesystem;
  const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(2);
  const Samples s = radial_phantom_samples(n, spokes);
  const auto truth = ph.image(n, 4);
  const int samples = 2 * n;
  const fs::path dir = fs::temp_directory_path() / ("mrwb_bench_bart_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  CflArray traj{{3, samples, spokes}, {}}, k{{1, samples, spokes, 1}, {}}, sens{{n, n, 1, 1}, {}};
  for (std::size_t m = 0; m < s.count(); ++m) traj.data.insert(traj.data.end(), {s.k[2 * m], s.k[2 * m + 1], 0.0f});
  k.data = s.d;
  sens.data.assign(static_cast<std::size_t>(n) * n, {1.0f, 0.0f});
  write_cfl((dir / "traj").string(), traj);
  write_cfl((dir / "k").string(), k);
  write_cfl((dir / "sens").string(), sens);
  const double lambda = 1e-3;
  const std::string cmd = "bart pics -l2 -r " + std::to_string(lambda) + " -i " + std::to_string(iterations) + " -t " +
                          (dir / "traj").string() + " " + (dir / "k").string() + " " + (dir / "sens").string() + " " +
                          (dir / "out").string() + " > " + (dir / "log").string() + " 2>&1";
  double t0 = now_s();
  const int rc = std::system(cmd.c_str());
  const double t_bart = now_s() - t0;
  if (rc != 0) {
    std::printf("bart pics failed (exit %d), see %s\n", rc, (dir / "log").string().c_str());
    report["bart_pics"] = {{"error", "bart pics exit " + std::to_string(rc)}};
    return;
  }
  const CflArray out = read_cfl((dir / "out").string());
  fs::remove_all(dir);
  std::vector<float> bm(out.data.size());
  for (std::size_t i = 0; i < bm.size(); ++i) bm[i] = std::abs(out.data[i]);
  const double scale = magnitude_scale(bm, truth);
  for (auto& v : bm) v = static_cast<float>(v * scale);
  const Metrics mb = compare_images(bm, truth, n, n);

  const Grid g{2, n};
  NoncartParams p;
  p.iterations = iterations;
  nlohmann::json ours = nlohmann::json::array();
  std::printf("bart pics -l2 -r %g -i %d vs mrwb CG, %dx%d, %d golden-angle spokes x %d samples (CPU, %u threads)\n", lambda,
              iterations, n, n, spokes, samples, std::thread::hardware_concurrency());
  std::printf("  %-30s %9s %12s %8s %8s\n", "method", "total s", "time / bart", "% err", "PSNR dB");
  std::printf("  %-30s %9.3f %12.2f %8.2f %8.2f\n", "bart pics -l2 (NUFFT CG)", t_bart, 1.0, mb.percent_error, mb.psnr_db);
  for (bool exact : {true, false}) {
    p.operators = exact ? CgOperators::Exact : CgOperators::Gridded;
    t0 = now_s();
    const CgResult r = reconstruct_cg_cpu(g, s, p, Precision::Single);
    const double t = now_s() - t0;
    const Metrics m = compare_images(magnitudes(r.image), truth, n, n);
    const char* name = exact ? "mrwb cg exact (CPU.SP)" : "mrwb cg gridded (KB W=4 os=2)";
    std::printf("  %-30s %9.3f %12.2f %8.2f %8.2f\n", name, t, t / t_bart, m.percent_error, m.psnr_db);
    ours.push_back({{"path", name}, {"total_s", t}, {"time_ratio_to_bart", t / t_bart}, {"percent_error", m.percent_error},
                    {"psnr_db", m.psnr_db}});
  }
  report["bart_pics"] = {{"n", n}, {"spokes", spokes}, {"samples", s.count()}, {"iterations", iterations}, {"lambda", lambda},
                         {"bart_total_s", t_bart}, {"bart_percent_error", mb.percent_error}, {"bart_psnr_db", mb.psnr_db},
                         {"bart_note", "magnitude fitted to the truth by one scale (BART scales its data)"}, {"mrwb", ours}};
}

#ifdef MRWB_HAVE_CUDA
// Stone et al. 2008's quality comparison at its size: gridding alone (Kaiser-Bessel and its bilinear baseline,
// Pipe-Menon density, each scaled to the truth as the paper did) beside CG with first-order finite-difference
// W and with the paper's anatomically constrained W. lambda is absolute in (F^H F + lambda W^H W), so it is
// set relative to F^H F's diagonal Q(0) = M phi^2 (trace(F^H F) / N): lambda = lambda_rel M phi^2. At 32^3
// and 48^3 with the same samples per voxel the gridded CG with FD W is best at lambda_rel 0.1-0.3 (0 lets it
// diverge) and the exact CG hardly moves with lambda_rel; the anatomical W wants lambda_rel 1-100. The
// gridding rows run on the CPU: the single-threaded Pipe-Menon density dominates (~30-40 s on the 2-core box).
void gpu_quality_case(const Grid& g, const Samples& s, const std::vector<float>& truth, const gpu::FhdConfig& c,
                      nlohmann::json& report) {
  const int n = g.n;
  const std::size_t M = s.count();
  std::printf("\nQuality at Stone et al. 2008's size (128^3, %zu samples, 60 CG it.): %% error and PSNR against "
              "the truth\n", M);
  std::printf("  %-44s %8s %8s %8s\n", "method", "total s", "% err", "PSNR dB");
  nlohmann::json rows = nlohmann::json::array();
  auto row = [&](const std::string& name, double sec, const Metrics& m, double lambda_rel) {
    std::printf("  %-44s %8.3f %8.2f %8.2f\n", name.c_str(), sec, m.percent_error, m.psnr_db);
    rows.push_back({{"method", name}, {"total_s", sec}, {"percent_error", m.percent_error}, {"psnr_db", m.psnr_db},
                    {"lambda_rel", lambda_rel}});
  };
  double t0 = now_s();
  GriddingParams gp;
  const std::vector<float> w = density_compensation(g, s, gp);
  const double t_density = now_s() - t0;
  for (const std::string kernel : {"kaiser-bessel", "bilinear"}) {
    gp.kernel = kernel;
    t0 = now_s();
    const auto gi = gridding_recon(g, s.k.data(), s.d.data(), M, w, gp);
    const double sec = t_density + now_s() - t0;
    const auto scaled = magnitudes(gi, magnitude_scale(magnitudes(gi), truth));
    row("gridding " + kernel + " (CPU, scaled to truth)", sec, compare_images(scaled, truth, n, n * n), -1);
  }
  NoncartParams p;
  p.iterations = 60;
  const double q0 = static_cast<double>(M) * g.phi() * g.phi();
  auto cg_row = [&](const std::string& label, double rel, bool exact) {
    p.operators = exact ? CgOperators::Exact : CgOperators::Gridded;
    p.lambda = rel * q0;
    gpu::Timing tm;
    const auto img = gpu::cg_on_device(g, s, p, c, {}, &tm);
    char name[96];
    std::snprintf(name, sizeof name, "CG %s, %s, lambda_rel %g", exact ? "exact" : "gridded", label.c_str(), rel);
    row(name, tm.total_s, compare_images(magnitudes(img), truth, n, n * n), rel);
  };
  p.regularizer = "finite-difference";
  for (double rel : {0.03, 0.1, 0.3, 1.0}) cg_row("FD W", rel, false);
  cg_row("FD W", 0.1, true);
  // Stone et al. 2008's own W (its ref. [14]): differences cut at the edges of a reference scan of the same ellipsoids
  // in another contrast.
  p.regularizer = "anatomical";
  p.prior = AnalyticPhantom::shepp_logan_other_contrast(3).image(n, 2);
  for (double rel : {1.0, 10.0, 100.0}) cg_row("anatomical W", rel, false);
  cg_row("anatomical W", 10.0, true);
  // How much the gain owes to a well registered reference: the same reference moved by one voxel along x.
  std::rotate(p.prior.rbegin(), p.prior.rbegin() + 1, p.prior.rend());
  cg_row("anatomical W, ref. 1 voxel off", 10.0, false);
  report["quality"] = {{"lambda_rule", "lambda = lambda_rel * M * phi^2 (F^H F diagonal, trace / N)"},
                       {"anatomical_prior", "shepp_logan_other_contrast at the matrix (voxel means), edge threshold 0.02"},
                       {"gridding_note", "Pipe-Menon density; magnitude rescaled to the truth before metrics, as the paper"},
                       {"rows", rows}};
}

// 256^3 voxels (Stone et al. 2008's voxel tiling): exact F^H d in one pass (automatic tiles: 2^24 voxels fit) and
// forced into 4 tiles, the same samples; then the whole exact CG on the device (its F^H d and Q in one pass:
// they stay on the device for the solver). Timing only: the data are the 128^3 case's values.
void gpu_large_case(const Samples& s, gpu::FhdConfig c, double sfu_bound, nlohmann::json& report) {
  const Grid g{3, 256};
  const std::size_t M = s.count();
  const double pairs = static_cast<double>(g.voxels()) * M;
  std::printf("\n256^3 voxels x %zu samples (the 128^3 case's trajectory scaled by 2)\n", M);
  Samples s2 = s;
  for (auto& v : s2.k) v *= 2.0f;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<cdouble> one_pass;
  for (std::size_t tile : {std::size_t{0}, gpu::kAutoTileVoxels / 4}) {
    c.voxel_tile = tile;
    double sec = 0;
    auto fhd = gpu::fhd_on_device(g, s2.k.data(), s2.d.data(), M, c, &sec);
    const auto plan = gpu::plan_voxel_tiles(g.voxels(), g.n, M, 3, true, std::size_t{80} << 30, tile);
    const double diff = tile ? relative_l2(fhd, one_pass) : 0.0;
    std::printf("  F^H d %s, %zu tile(s) of %zu voxels: %.4f s, %.3e pairs/s = %.1f%% of SFU bound, rel L2 vs one pass %.3g\n",
                c.variant.c_str(), plan.tiles, plan.tile_voxels, sec, pairs / sec, 100 * pairs / sec / sfu_bound, diff);
    rows.push_back({{"tiles", plan.tiles}, {"tile_voxels", plan.tile_voxels}, {"fhd_s", sec}, {"pairs_per_s", pairs / sec},
                    {"fraction_of_sfu_bound", pairs / sec / sfu_bound}, {"rel_l2_vs_one_pass", diff}});
    if (!tile) one_pass = std::move(fhd);
  }
  NoncartParams p;
  p.iterations = 60;
  gpu::Timing tm;
  c.voxel_tile = 0;
  gpu::cg_on_device(g, s2, p, c, {}, &tm);
  std::printf("  exact CG 60 it.: F^H d %.3f s, Q %.3f s, solver %.3f s, total %.3f s\n", tm.fhd_s, tm.q_s, tm.solver_s, tm.total_s);
  report["large_256"] = {{"voxels", g.voxels()}, {"samples", M}, {"fhd", rows},
                         {"cg_exact", {{"fhd_s", tm.fhd_s}, {"q_s", tm.q_s}, {"solver_s", tm.solver_s}, {"total_s", tm.total_s}}}};
}

int gpu_paper_case(nlohmann::json& report) {
  const int n = 128;
  const gpu::DeviceFacts f = gpu::device_facts();
  const double sfu_bound = f.sfu_ops_per_s() / 2.0;  // voxel-sample pairs per second
  std::printf("GPU: %s\nSFU bound: %d SMs x 16 sin/cos per clock x %.3f GHz / 2 = %.3e pairs/s\n",
              gpu::device_description().c_str(), f.sms, f.clock_hz * 1e-9, sfu_bound);
  Samples s;
  s.dims = 3;
  s.k = stone2008_points(n);  // 284,592 points at 128^3
  const std::size_t M = s.count();
  const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(3);
  s.d = ph.kspace(s.k);
  const Grid g{3, n};
  const double voxels = static_cast<double>(g.voxels());
  report["device"] = gpu::device_description();
  report["sfu_bound_pairs_per_s"] = sfu_bound;
  report["problem"] = {{"voxels", g.voxels()}, {"samples", M}, {"trajectory", "stack of 128 VD spirals (alpha 2, 3 interleaves), decimated"}};

  // Tuning sweep on the first 16384 samples (all voxels).
  const std::size_t Ms = 16384;
  nlohmann::json sweep = nlohmann::json::array();
  gpu::FhdConfig best[2];
  double best_rate[2] = {0, 0};
  std::printf("\nF^H d tuning (128^3 voxels x %zu samples): variant, threads/block, tile, unroll -> pairs/s, %% of SFU bound\n", Ms);
  for (const std::string variant : {"sfu", "rotate"}) {
    for (int tpb : {64, 128, 256, 512})
      for (int tile : {512, 1024, 2048, gpu::max_tile(variant)})
        for (int unroll : {1, 2, 4, 8, 16}) {
          if (variant == "rotate" && (unroll == 16 || tpb == 512)) continue;
          const gpu::FhdConfig c{variant, tpb, tile, unroll};
          double sec = 0;
          gpu::fhd_on_device(g, s.k.data(), s.d.data(), Ms, c, &sec);
          const double rate = voxels * Ms / sec;
          const int v = variant == "rotate";
          if (rate > best_rate[v]) best_rate[v] = rate, best[v] = c;
          sweep.push_back({{"variant", variant}, {"threads_per_block", tpb}, {"tile", tile}, {"unroll", unroll},
                           {"seconds", sec}, {"pairs_per_s", rate}, {"fraction_of_sfu_bound", rate / sfu_bound}});
          std::printf("  %-6s %4d %5d %3d  %.3e  %5.1f%%\n", variant.c_str(), tpb, tile, unroll, rate, 100 * rate / sfu_bound);
        }
  }
  report["tuning"] = sweep;

  // Full-size exact F^H d and Q with the best configuration of each variant.
  std::printf("\nFull size: 128^3 voxels x %zu samples\n", M);
  std::printf("  %-34s %9s %12s %9s %9s\n", "kernel", "seconds", "pairs/s", "% SFU", "GFLOP/s");
  std::vector<cdouble> fhd_ref;
  nlohmann::json kernels = nlohmann::json::array();
  for (int v = 0; v < 2; ++v) {
    const gpu::FhdConfig& c = best[v];
    double sec = 0, qsec = 0;
    auto fhd = gpu::fhd_on_device(g, s.k.data(), s.d.data(), M, c, &sec);
    gpu::q_on_device(g, s.k.data(), M, c, &qsec);
    const double pairs = voxels * M, qpairs = (8.0 * voxels / (2 * n)) * (n + 1) * M;
    char name[96];
    std::snprintf(name, sizeof name, "F^H d %s (%d thr, tile %d, unroll %d)", c.variant.c_str(), c.threads_per_block, c.tile, c.unroll);
    std::printf("  %-34s %9.4f %12.3e %9.1f %9.1f\n", name, sec, pairs / sec, 100 * pairs / sec / sfu_bound, 15 * pairs / sec * 1e-9);
    std::snprintf(name, sizeof name, "Q %s (half grid, Hermitian)", c.variant.c_str());
    std::printf("  %-34s %9.4f %12.3e %9.1f %9.1f\n", name, qsec, qpairs / qsec, 100 * qpairs / qsec / sfu_bound, 15 * qpairs / qsec * 1e-9);
    kernels.push_back({{"variant", c.variant}, {"threads_per_block", c.threads_per_block}, {"tile", c.tile}, {"unroll", c.unroll},
                       {"fhd_s", sec}, {"fhd_pairs_per_s", pairs / sec}, {"fhd_fraction_of_sfu_bound", pairs / sec / sfu_bound},
                       {"fhd_gflops_paper", 15 * pairs / sec * 1e-9}, {"q_s", qsec}, {"q_pairs_per_s", qpairs / qsec}});
    if (v == 0) fhd_ref = std::move(fhd);
  }
  report["kernels"] = kernels;

  // Whole reconstructions: exact (both variants) and gridded, 60 CG iterations.
  const auto truth = ph.image(n, 2);
  NoncartParams p;
  p.iterations = 60;
  std::printf("\nCG, 60 iterations (128^3, %zu samples)\n", M);
  std::printf("  %-26s %8s %8s %8s %8s %8s %8s %10s\n", "path", "F^H d s", "Q s", "solver s", "total s", "% err", "PSNR dB", "residual");
  nlohmann::json recons = nlohmann::json::array();
  double psnr_exact = 0;
  for (int path = 0; path < 3; ++path) {
    p.operators = path < 2 ? CgOperators::Exact : CgOperators::Gridded;
    const gpu::FhdConfig& c = best[path == 1 ? 1 : 0];
    gpu::Timing tm;
    const auto img = gpu::cg_on_device(g, s, p, c, {}, &tm);
    const Metrics m = compare_images(magnitudes(img), truth, n, n * n);
    if (path == 0) psnr_exact = m.psnr_db;
    const std::string name = path == 2 ? "gridded (KB W=4, os=2)" : "exact " + c.variant;
    std::printf("  %-26s %8.3f %8.3f %8.3f %8.3f %8.2f %8.2f %10.3g\n", name.c_str(), tm.fhd_s, tm.q_s, tm.solver_s, tm.total_s,
                m.percent_error, m.psnr_db, tm.relative_residual);
    recons.push_back({{"path", name}, {"fhd_s", tm.fhd_s}, {"q_s", tm.q_s}, {"solver_s", tm.solver_s}, {"total_s", tm.total_s},
                      {"total_without_q_s", tm.total_s - tm.q_s}, {"percent_error", m.percent_error}, {"psnr_db", m.psnr_db},
                      {"psnr_minus_exact_db", m.psnr_db - psnr_exact}, {"relative_residual", tm.relative_residual}});
  }
  report["cg"] = recons;
  gpu_quality_case(g, s, truth, best[0], report);
  gpu_large_case(s, best[0], sfu_bound, report);
  return 0;
}
#endif

}  // namespace

int bench_noncart(const BenchOptions& options, nlohmann::json& report) {
  bool gpu_run = false;
#ifdef MRWB_HAVE_CUDA
  gpu_run = !options.quick && options.backend != Backend::Cpu && gpu::device_available();
#endif
  if (options.quick) {
    cpu_radial_case(64, 64, 20, report);
    return 0;
  }
  int rc = 0;
#ifdef MRWB_HAVE_CUDA
  if (gpu_run) rc |= gpu_paper_case(report);
#endif
  if (!gpu_run && options.backend == Backend::Cuda) {
    std::printf("noncart: --backend cuda but no CUDA device here\n");
    return 1;
  }
  // Beside a GPU run a 128^2 CPU case keeps the suite short; on the CPU machine the 256^2 case runs beside
  // `bart pics -l2` (our exact and gridded CG, BART's NUFFT CG).
  if (gpu_run) cpu_radial_case(128, 128, 30, report);
  else bart_radial_case(256, 256, 30, report);
  return rc;
}

}  // namespace mrwb::cli
