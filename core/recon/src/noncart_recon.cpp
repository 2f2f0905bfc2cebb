// The non-Cartesian pipelines on the CPU (cg, gridding) and their Reconstructor adapters.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <span>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_exact.hpp"
#include "mrwb/recon/noncart_ranks.hpp"
#include "mrwb/recon/noncart_recon.hpp"

namespace mrwb::noncart {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Exact or gridded F^H d and Q (cg_operators.hpp), rated on the threads of every rank; over ranks rank 0's
// choice, so that hosts of different core counts cannot split one run into both.
bool cg_operators_exact(const Grid& g, std::size_t M, int coils, CgOperators requested, RankComm* comm, int threads) {
  const unsigned rank_threads = threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency());
  const unsigned all_threads = rank_threads * static_cast<unsigned>(comm ? comm->size() : 1);
  std::byte exact = static_cast<std::byte>(choose_cg_operators(g, M, coils, Backend::Cpu, requested, comm ? all_threads : 0).exact);
  if (comm) comm->broadcast_bytes(std::span<std::byte>(&exact, 1), 0);
  return exact != std::byte{0};
}

}  // namespace

GriddingParams gridding_params(const NoncartParams& p) {
  GriddingParams g;
  g.width = p.kb_width;
  g.oversampling = p.oversampling;
  g.density = p.density;
  g.kernel = p.kernel;
  return g;
}

std::vector<cfloat> estimate_sensitivities(const Grid& g, const std::vector<std::vector<cdouble>>& lowres) {
  const std::size_t nv = g.voxels();
  const int coils = static_cast<int>(lowres.size());
  std::vector<double> sos(nv);
  double peak = 0;
  for (const auto& c : lowres)
    for (std::size_t i = 0; i < nv; ++i) sos[i] += std::norm(c[i]);
  for (double v : sos) peak = std::max(peak, v);
  const double eps = 1e-6 * peak;
  std::vector<cfloat> s(nv * coils);
  for (int c = 0; c < coils; ++c)
    for (std::size_t i = 0; i < nv; ++i)
      s[static_cast<std::size_t>(c) * nv + i] = cfloat(lowres[c][i] / std::sqrt(sos[i] + eps));
  return s;
}

std::vector<cfloat> estimate_sensitivities(const Grid& g, const Samples& s, const GriddingParams& gp) {
  const std::size_t M = s.count();
  // Low-resolution coil images from the centre of k-space (|k| < n/8, Hann taper), density-compensated.
  Samples lo;
  lo.dims = s.dims;
  std::vector<std::size_t> keep;
  const double kc = g.n / 8.0;
  for (std::size_t m = 0; m < M; ++m) {
    double r2 = 0;
    for (int d = 0; d < s.dims; ++d) r2 += static_cast<double>(s.k[m * s.dims + d]) * s.k[m * s.dims + d];
    if (r2 < kc * kc) keep.push_back(m);
  }
  for (auto m : keep)
    for (int d = 0; d < s.dims; ++d) lo.k.push_back(s.k[m * s.dims + d]);
  lo.d.assign(keep.size(), cfloat(1, 0));
  const std::vector<float> w = density_pipe_menon(g, lo, gp);
  std::vector<std::vector<cdouble>> lowres(s.coils);
  for (int c = 0; c < s.coils; ++c) {
    std::vector<cfloat> dc(keep.size());
    for (std::size_t i = 0; i < keep.size(); ++i) {
      double r2 = 0;
      for (int d = 0; d < s.dims; ++d) r2 += static_cast<double>(lo.k[i * s.dims + d]) * lo.k[i * s.dims + d];
      const double hann = 0.5 * (1 + std::cos(M_PI * std::sqrt(r2) / kc));
      dc[i] = s.d[static_cast<std::size_t>(c) * M + keep[i]] * static_cast<float>(hann);
    }
    lowres[c] = gridding_recon(g, lo.k.data(), dc.data(), keep.size(), w, gp);
  }
  return estimate_sensitivities(g, lowres);
}

std::vector<cfloat> cg_sensitivities(const Grid& g, const Samples& s, const NoncartParams& p) {
  if (p.sensitivities.empty()) {
    if (s.coils == 1) return {};
    GriddingParams gp = gridding_params(p);  // the estimate grids with Kaiser-Bessel and its own Pipe-Menon weights
    gp.density = "none";
    gp.kernel = "kaiser-bessel";
    return estimate_sensitivities(g, s, gp);
  }
  const std::size_t want = static_cast<std::size_t>(s.coils) * g.voxels();
  if (p.sensitivities.size() != want)
    throw InputError("cg: coil maps hold " + std::to_string(p.sensitivities.size()) + " values (allowed: coils x matrix^" +
                     std::to_string(g.dims) + " = " + std::to_string(want) + ")");
  return p.sensitivities;
}

CgResult reconstruct_cg_cpu(const Grid& g, const Samples& s, const NoncartParams& p, Precision prec,
                            const std::vector<cfloat>& sens_in, const ProgressFn& progress,
                            const CancelToken& cancel, RankComm* comm, int threads) {
  validate_samples(g, s, "cg");
  const std::size_t M = s.count(), nv = g.voxels();
  // F^H d and Q are unweighted sums by definition (no density compensation), and the gridded ones use the
  // Kaiser-Bessel kernel as on CUDA (noncart_cg.cu): the gridding-only density / kernel options do not apply.
  GriddingParams gp = gridding_params(p);
  gp.density = "none";
  gp.kernel = "kaiser-bessel";
  CgResult res;
  const bool exact = cg_operators_exact(g, M, s.coils, p.operators, comm, threads);
  auto t0 = std::chrono::steady_clock::now();
  // Exact sums split by voxels over the ranks, gridded ones by samples (noncart_ranks.hpp).
  std::vector<std::vector<cdouble>> fhd(s.coils);
  for (int c = 0; c < s.coils; ++c) {
    const cfloat* d = s.d.data() + static_cast<std::size_t>(c) * M;
    fhd[c] = exact ? split_by_voxels(comm, nv, [&](std::size_t b, std::size_t e) {
                       return exact_fhd_voxels(g, s.k.data(), d, M, prec, b, e, threads, cancel);
                     })
                   : split_by_samples(comm, M, [&](std::size_t b, std::size_t e) {
                       return gridded_fhd(g, s.k.data() + b * s.dims, d + b, e - b, gp);
                     });
    if (progress) progress(0.1 * (c + 1) / s.coils, "F^H d");
  }
  res.seconds_fhd = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::vector<cdouble> q;
  if (exact) {
    q = split_by_voxels(comm, q_half_voxels(g), [&](std::size_t b, std::size_t e) {
      return exact_q_half_voxels(g, s.k.data(), M, prec, b, e, threads, cancel);
    });
    complete_q_hermitian(g, q);
  } else {
    q = split_by_samples(comm, M, [&](std::size_t b, std::size_t e) { return gridded_q(g, s.k.data() + b * s.dims, e - b, gp); });
  }
  res.seconds_q = seconds_since(t0);
  if (progress) progress(0.3, "Q");
  t0 = std::chrono::steady_clock::now();
  std::vector<cfloat> sens = sens_in.empty() ? cg_sensitivities(g, s, p) : sens_in;
  // The estimate is the same computation on every rank; rank 0's copy makes it the same bits on any host.
  if (comm && comm->size() > 1 && !sens.empty())
    comm->broadcast_bytes(std::as_writable_bytes(std::span<cfloat>(sens)), 0);
  std::vector<cdouble> rhs(nv);
  if (sens.empty()) {
    rhs = fhd[0];
  } else {
    for (int c = 0; c < s.coils; ++c)
      for (std::size_t i = 0; i < nv; ++i) rhs[i] += std::conj(cdouble(sens[static_cast<std::size_t>(c) * nv + i])) * fhd[c][i];
  }
  const ToeplitzNormal T(g, q);
  CgOptions o;
  o.iterations = p.iterations;
  o.lambda = p.lambda;
  o.regularizer = p.regularizer;
  o.prior = p.prior;
  o.edge_threshold = p.edge_threshold;
  o.preconditioner = p.preconditioner;
  o.tolerance = p.tolerance;
  ProgressFn cg_progress;
  if (progress) cg_progress = [&](double f, std::string_view st) { progress(0.3 + 0.7 * f, st); };
  res.image = cg_solve(T, rhs, o, sens, s.coils, &res.report, cg_progress, cancel, comm);
  res.seconds_solver = seconds_since(t0);
  return res;
}

namespace {

void check_params(const NoncartParams& p) {
  if (p.iterations < 1 || p.iterations > 10000) throw InputError("--iterations " + std::to_string(p.iterations) + ": allowed 1 .. 10000");
  if (p.matrix < 0 || p.matrix % 2 || p.matrix > 1024)
    throw InputError("--matrix " + std::to_string(p.matrix) + ": allowed even values 2 .. 1024 (0: from the trajectory)");
}

}  // namespace

double noncart_cpu_bytes(const Grid& g, std::size_t M, int coils, ReconMethod method, const NoncartParams& p) {
  const double D = g.dims, n = g.n, m = static_cast<double>(M), c = std::max(1, coils);
  const double cd = sizeof(cdouble), cf = sizeof(cfloat);
  const double nv = std::pow(n, D);
  // The oversampled grid of a Gridder on n (even, >= os n; bilinear gridding: n itself).
  const auto grid_cells = [&](double size) {
    const bool bilinear = method == ReconMethod::Gridding && p.kernel == "bilinear";
    return std::pow(bilinear ? size : 2 * std::ceil(p.oversampling * size / 2 - 1e-9), D);
  };
  double b = m * (c * cf + D * sizeof(float));  // the samples' copy
  b += nv * (cd + cf);                           // the result and its image
  if (method == ReconMethod::Gridding) {
    const double cells = grid_cells(n);
    b += cells * sizeof(double) + 4 * m * sizeof(double);  // density weights: their grid, per-sample sums
    b += 2 * cells * cd + 2 * nv * cd;  // one coil's grid and its centred copy, its image, the sum over coils
    return b;
  }
  const double n2v = std::pow(2 * n, D);
  b += c * nv * cd;                                  // F^H d per coil
  if (coils > 1) b += c * nv * (cf + cd) + nv * 8;  // sensitivities and the low-resolution coil images
  b += 4 * n2v * cd;  // Q, its copy, its FFT and the FFT buffer of the Toeplitz embedding
  if (!choose_cg_operators(g, M, coils, Backend::Cpu, p.operators).exact)
    b += 2 * grid_cells(2 * n) * cd;  // gridded Q: the oversampled 2n grid and its centred copy
  b += 9 * nv * cd;                                // rhs and the CG vectors
  if (p.preconditioner != "none") b += 2 * nv * cd + 3 * nv * sizeof(double);
  if (p.regularizer != "identity") b += nv;  // W's links
  return b;
}

void check_noncart_memory(const Grid& g, std::size_t M, int coils, ReconMethod method, const NoncartParams& p) {
  if (noncart_cpu_bytes(g, M, coils, method, p) <= k_noncart_memory_limit_bytes) return;
  int fits = 0;  // the largest even matrix within the limit
  for (int lo = 1, hi = std::min(g.n, 1024) / 2; lo <= hi;) {
    const int mid = (lo + hi) / 2;
    if (noncart_cpu_bytes(Grid{g.dims, 2 * mid}, M, coils, method, p) <= k_noncart_memory_limit_bytes) fits = 2 * mid, lo = mid + 1;
    else hi = mid - 1;
  }
  const double bytes = noncart_cpu_bytes(g, M, coils, method, p);
  std::ostringstream os;
  os << "--matrix " << p.matrix;
  if (p.matrix == 0) os << " (from the trajectory: " << g.n << ")";
  os << ": " << to_string(method) << " of a " << g.n << "^" << g.dims << (g.dims == 3 ? " volume" : " image") << " with "
     << coils << " coil(s) and " << M << " samples needs " << std::fixed << std::setprecision(1)
     << bytes / (1 << 30) << " GiB (" << std::setprecision(0) << bytes
     << " bytes: grids, oversampled grid, coil images, CG vectors), more than the "
     << k_noncart_memory_limit_bytes / (1 << 30) << " GiB allowed (allowed: --matrix "
     << (fits >= 2 ? "2 .. " + std::to_string(fits) : std::string("none fits")) << " for this data"
     << (g.dims == 3 ? " in 3-D" : "") << ")";
  throw InputError(os.str());
}

ReconInput recon_input(const RawData& raw, const NoncartParams& p, ReconMethod method, int dims) {
  check_params(p);
  ReconInput in{{}, samples_from_raw(raw)};
  const std::string name(to_string(method));
  if (in.samples.dims != dims)
    throw InputError("recon --method " + name + ": a " + std::to_string(in.samples.dims) + "-D trajectory where " +
                     (dims == 2 ? "an image needs 2-D (3-D trajectories give volumes: mrwb recon --traj)"
                                : "a volume needs 3-D (kz not all zero)"));
  in.grid = Grid{dims, p.matrix ? p.matrix : default_matrix(in.samples)};
  validate_samples(in.grid, in.samples, name);
  return in;
}

std::vector<cdouble> combine_coil_images(int coils, const std::function<std::vector<cdouble>(int coil)>& coil_image,
                                         const ProgressFn& progress, const CancelToken& cancel) {
  std::vector<cdouble> out;
  for (int c = 0; c < coils; ++c) {
    cancel.throw_if_cancelled();
    std::vector<cdouble> img = coil_image(c);
    if (coils == 1) {
      out = std::move(img);
    } else {
      out.resize(img.size());
      for (std::size_t i = 0; i < img.size(); ++i) out[i] += std::norm(img[i]);  // root sum of squares below
    }
    if (progress) progress(static_cast<double>(c + 1) / coils, "gridding");
  }
  if (coils > 1)
    for (auto& v : out) v = std::sqrt(v.real());
  return out;
}

namespace {

Image2D cg_recon_cpu(const RawData& raw, const ReconOptions& options, RankComm* comm, int threads,
                     const ProgressFn& progress, const CancelToken& cancel) {
  const auto in = recon_input(raw, options.noncart, ReconMethod::Cg, 2);
  check_noncart_memory(in.grid, in.samples.count(), in.samples.coils, ReconMethod::Cg, options.noncart);
  const CgResult r =
      reconstruct_cg_cpu(in.grid, in.samples, options.noncart, Precision::Single, {}, progress, cancel, comm, threads);
  return to_image2d(in.grid, r.image, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
}

// Over ranks each rank weights and grids its sample share of every coil (gridding is linear in the samples) and
// the coil images are summed in rank order.
Image2D gridding_recon_cpu(const RawData& raw, const ReconOptions& options, RankComm* comm, const ProgressFn& progress,
                           const CancelToken& cancel) {
  const auto in = recon_input(raw, options.noncart, ReconMethod::Gridding, 2);
  check_noncart_memory(in.grid, in.samples.count(), in.samples.coils, ReconMethod::Gridding, options.noncart);
  const auto& g = in.grid;
  const auto& s = in.samples;
  const GriddingParams gp = gridding_params(options.noncart);
  const std::vector<float> w = density_share(g, s, gp, comm);  // this rank's samples' weights
  const std::size_t M = s.count();
  const auto out = combine_coil_images(
      s.coils,
      [&](int c) {
        return split_by_samples(comm, M, [&](std::size_t b, std::size_t e) {
          return gridding_recon(g, s.k.data() + b * s.dims, s.d.data() + static_cast<std::size_t>(c) * M + b, e - b, w, gp);
        });
      },
      progress, cancel);
  return to_image2d(g, out, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
}

}  // namespace

Image2D reconstruct_noncart_cpu(const RawData& raw, const ReconOptions& options, RankComm* comm, int threads,
                                const ProgressFn& progress, const CancelToken& cancel) {
  if (options.method == ReconMethod::Cg) return cg_recon_cpu(raw, options, comm, threads, progress, cancel);
  if (options.method == ReconMethod::Gridding) return gridding_recon_cpu(raw, options, comm, progress, cancel);
  throw std::invalid_argument("reconstruct_noncart_cpu: cg or gridding only");
}

std::unique_ptr<Reconstructor> make_cg_reconstructor_cpu() {
  return make_function_reconstructor("cg/cpu", [](const RawData& raw, const ReconOptions& o, const ProgressFn& progress,
                                                  const CancelToken& cancel) {
    return cg_recon_cpu(raw, o, nullptr, 0, progress, cancel);
  });
}
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cpu() {
  return make_function_reconstructor("gridding/cpu", [](const RawData& raw, const ReconOptions& o,
                                                        const ProgressFn& progress, const CancelToken& cancel) {
    return gridding_recon_cpu(raw, o, nullptr, progress, cancel);
  });
}

}  // namespace mrwb::noncart
