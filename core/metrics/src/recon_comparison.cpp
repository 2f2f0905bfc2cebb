#include "mrwb/metrics/recon_comparison.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/multislice.hpp"

namespace mrwb {

namespace {

// Every request through `run_one`, which reconstructs one and fills image, magnitude and (with a truth)
// metrics and error map; a method that rejects the data gets its message, Cancelled propagates.
template <typename RunOne>
void run_requests(ReconComparison& out, const std::vector<ComparisonRequest>& requests, const ProgressFn& progress,
                  const CancelToken& cancel, RunOne run_one) {
  const double n = std::max<std::size_t>(1, requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    cancel.throw_if_cancelled();
    const ComparisonRequest& req = requests[i];
    ComparisonEntry e;
    e.label = req.label.empty() ? name_of(req.options.method) : req.label;
    e.method = req.options.method;
    ProgressFn sub;
    if (progress) sub = [&](double f, std::string_view stage) { progress((i + std::clamp(f, 0.0, 1.0)) / n, stage); };
    const auto t0 = std::chrono::steady_clock::now();
    try {
      run_one(req, e, sub);
      e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& ex) {  // InputError or "not available": reported per method
      e.error = ex.what();
      e.image = {};
      e.magnitude.clear();
      e.error_map.clear();
      e.has_metrics = false;
    }
    if (progress) progress((i + 1) / n, "compare");
    out.entries.push_back(std::move(e));
  }
}

}  // namespace

ReconComparison compare_reconstructions(const RawData& raw, const Image2D* truth,
                                        const std::vector<ComparisonRequest>& requests, const ProgressFn& progress,
                                        const CancelToken& cancel) {
  ReconComparison out;
  if (truth && truth->size() > 0) {
    out.has_truth = true;
    out.truth = *truth;
    out.truth_magnitude = truth->magnitude();
  }
  run_requests(out, requests, progress, cancel, [&](const ComparisonRequest& req, ComparisonEntry& e, const ProgressFn& sub) {
    auto recon = make_reconstructor(req.options.method, req.options.backend);
    e.backend = recon->name();
    e.image = recon->reconstruct(raw, req.options, sub, cancel);
    e.magnitude = e.image.magnitude();
    if (out.has_truth && e.image.nx == out.truth.nx && e.image.ny == out.truth.ny) {
      e.metrics = compare_images(e.magnitude, out.truth_magnitude, e.image.nx, e.image.ny);
      e.error_map = error_map(e.magnitude, out.truth_magnitude);
      e.has_metrics = true;
    }
  });
  return out;
}

ReconComparison compare_volume_reconstructions(const RawData& raw, const ImageVolume* truth,
                                        const std::vector<ComparisonRequest>& requests, const ProgressFn& progress,
                                        const CancelToken& cancel) {
  ReconComparison out;
  out.planes = raw.slices * raw.partitions;
  out.shown_plane = raw.slices > 1 ? raw.slices / 2 : raw.partitions / 2;  // as run_pipeline shows
  std::vector<float> truth_volume_magnitude;
  if (truth && truth->nz == out.planes && !truth->data.empty()) {
    out.has_truth = true;
    out.truth = truth->slice(out.shown_plane);
    out.truth_magnitude = out.truth.magnitude();
    truth_volume_magnitude = truth->magnitude();
  }
  run_requests(out, requests, progress, cancel, [&](const ComparisonRequest& req, ComparisonEntry& e, const ProgressFn& sub) {
    e.backend = make_reconstructor(req.options.method, req.options.backend)->name();
    const ImageVolume volume = reconstruct_volume(raw, req.options, sub, cancel);
    e.image = volume.slice(out.shown_plane);
    e.magnitude = e.image.magnitude();
    if (out.has_truth && volume.nx == truth->nx && volume.ny == truth->ny && volume.nz == truth->nz) {
      e.metrics = compare_volumes(volume.magnitude(), truth_volume_magnitude, volume.nx, volume.ny, volume.nz);
      e.error_map = error_map(e.magnitude, out.truth_magnitude);
      e.has_metrics = true;
    }
  });
  return out;
}

std::vector<ComparisonRequest> comparison_requests(const std::vector<ReconMethod>& methods, Backend backend) {
  std::vector<ComparisonRequest> out;
  for (const ReconMethod m : methods) {
    ComparisonRequest r;
    r.options.method = m;
    r.options.backend = backend;
    r.label = name_of(m);
    std::transform(r.label.begin(), r.label.end(), r.label.begin(), [](unsigned char c) { return std::toupper(c); });
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mrwb
