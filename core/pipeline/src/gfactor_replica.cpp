#include "mrwb/pipeline/gfactor_replica.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/sense.hpp"

namespace mrwb {
namespace {

double acquired_rms(const RawData& raw) {
  double sum = 0;
  std::size_t n = 0;
  for (int c = 0; c < raw.ncoils; ++c)
    for (int l = 0; l < raw.ny; ++l) {
      if (!(raw.flags(l) & kLineAcquired)) continue;
      for (int s = 0; s < raw.nx; ++s) sum += std::norm(raw.at(c, l, s));
      n += static_cast<std::size_t>(raw.nx);
    }
  return n ? std::sqrt(sum / static_cast<double>(n)) : 0.0;
}

}  // namespace

GfactorMap pseudo_replica_gfactor(const RawData& raw_in, const ReconOptions& options, const ReplicaGfactorOptions& o,
                                  const ProgressFn& progress, const CancelToken& cancel) {
  if (o.replicas < 2 || o.replicas > 10000)
    throw InputError("g-factor replicas " + std::to_string(o.replicas) + " out of range (allowed: 2 .. 10000)");
  if (!(o.noise_sigma >= 0) || !std::isfinite(o.noise_sigma))
    throw InputError("g-factor noise sigma out of range (allowed: >= 0, 0 = 1e-3 x the RMS of the acquired samples)");
  if (!raw_in.cartesian())
    throw InputError("g-factor by pseudo-replicas: Cartesian data only (allowed: data without a trajectory)");
  if (raw_in.volume())
    throw InputError("g-factor by pseudo-replicas: one slice (allowed: slices = partitions = 1; extract a slice first)");
  check_raw_layout(raw_in);

  RawData raw = raw_in;
  raw.noise.clear();  // white noise, nothing prewhitens (see the header)
  raw.noise_samples = 0;
  const double sigma = o.noise_sigma > 0 ? o.noise_sigma : 1e-3 * acquired_rms(raw);
  if (!(sigma > 0)) throw InputError("g-factor by pseudo-replicas: the data hold no signal (every acquired sample is 0)");

  auto recon = make_reconstructor(options.method, options.backend);
  const Image2D clean = recon->reconstruct(raw, options, {}, cancel);
  const std::vector<float> clean_mag = clean.magnitude();
  const std::size_t n = clean.size();
  const auto psi = coil_noise_covariance(raw.ncoils, 0.0);
  // The replicas are independent (each its own noise seed): on the CPU they are split over the hardware threads,
  // each with a reconstructor of its own, and the parts' sums added in part order; a GPU backend keeps one thread
  // (one device's memory). Progress from the calling thread (part 0), counting every part's replicas.
  const int parts = options.backend == Backend::Cpu
                        ? std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, o.replicas)
                        : 1;
  std::vector<std::unique_ptr<Reconstructor>> recons(static_cast<std::size_t>(parts));
  recons[0] = std::move(recon);
  for (std::size_t p = 1; p < recons.size(); ++p) recons[p] = make_reconstructor(options.method, options.backend);
  std::vector<std::vector<double>> sums(static_cast<std::size_t>(parts), std::vector<double>(n, 0.0));
  std::vector<std::vector<double>> sums2 = sums;
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(parts));
  std::atomic<int> replicas_done{0};
  std::atomic<bool> stop{false};
  int reported = 0;  // replicas counted in part 0's last progress call (part 0 only)
  for_each_range(static_cast<std::size_t>(o.replicas), parts, [&](int p, std::size_t begin, std::size_t end) {
    const std::size_t k = static_cast<std::size_t>(p);
    try {
      for (std::size_t r = begin; r < end && !stop; ++r) {
        cancel.throw_if_cancelled();
        RawData noisy = raw;
        add_correlated_noise(noisy, psi, sigma, 0, o.seed + static_cast<unsigned>(r));  // acquired samples only
        const std::vector<float> m = recons[k]->reconstruct(noisy, options, {}, cancel).magnitude();
        for (std::size_t i = 0; i < n; ++i) {
          const double d = static_cast<double>(m[i]) - clean_mag[i];
          sums[k][i] += d;
          sums2[k][i] += d * d;
        }
        const int done = ++replicas_done;
        if (p == 0 && progress) progress(static_cast<double>(reported = done) / o.replicas, "g-factor replicas");
      }
    } catch (...) {
      failed[k] = std::current_exception();
      stop = true;
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  // The other parts' sums added into part 0's, in part order.
  std::vector<double>& sum = sums[0];
  std::vector<double>& sum2 = sums2[0];
  for (std::size_t p = 1; p < sums.size(); ++p)
    for (std::size_t i = 0; i < n; ++i) {
      sum[i] += sums[p][i];
      sum2[i] += sums2[p][i];
    }
  if (progress && reported < o.replicas) progress(1.0, "g-factor replicas");

  GfactorMap out;
  out.nx = clean.nx;
  out.ny = clean.ny;
  int acquired = 0;
  for (int l = 0; l < raw.ny; ++l) acquired += (raw.flags(l) & kLineAcquired) != 0;
  out.R = acquired > 0 ? static_cast<double>(raw.ny) / acquired : 1.0;
  out.replicas = o.replicas;
  out.sigma_1 = sigma / std::sqrt(2.0 * raw.nx * raw.ny);
  out.g.assign(n, 0.0f);
  out.sigma_R.assign(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const double mean = sum[i] / o.replicas;
    const double var = std::max(0.0, (sum2[i] - o.replicas * mean * mean) / (o.replicas - 1));
    const double s = std::sqrt(var);
    out.sigma_R[i] = static_cast<float>(s);
    if (clean_mag[i] >= k_replica_min_snr * s && s > 0)
      out.g[i] = static_cast<float>(s / (out.sigma_1 * std::sqrt(out.R)));
  }
  return out;
}

}  // namespace mrwb

namespace mrwb {

void add_gfactor_maps(ReconComparison& comparison, const RawData& raw, const std::vector<ComparisonRequest>& requests,
                      int replicas, const ProgressFn& progress, const CancelToken& cancel) {
  const std::size_t n = std::min(comparison.entries.size(), requests.size());
  for (std::size_t i = 0; i < n; ++i) {
    ComparisonEntry& e = comparison.entries[i];
    const ReconOptions& o = requests[i].options;
    auto part = [&](double f, std::string_view stage) {
      if (progress) progress((static_cast<double>(i) + f) / static_cast<double>(n), stage);
    };
    e.gfactor.clear();
    if (!e.ok()) {
      e.gfactor_source = "the method failed";
    } else if (!raw.cartesian() || raw.volume()) {
      e.gfactor_source = "one Cartesian slice only";
    } else if (o.method == ReconMethod::Sense && sense_regular_comb(raw)) {
      e.gfactor = sense_unfold(raw, o.sense.maps).gfactor;  // Pruessmann et al. 1999, eq. 23
      e.gfactor_source = "analytic";
    } else {
      ReplicaGfactorOptions r;
      r.replicas = replicas;
      e.gfactor = pseudo_replica_gfactor(raw, o, r, part, cancel).g;
      e.gfactor_source = std::to_string(replicas) + " replicas";
    }
    part(1.0, "g-factor");
  }
}

}  // namespace mrwb
