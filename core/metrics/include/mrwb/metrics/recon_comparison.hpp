#pragma once
// One RawData reconstructed with several methods (through the reconstructor registry), each image
// compared with the truth: the data behind the GUI's side-by-side comparison.
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb {

struct ComparisonRequest {
  std::string label;     // shown in the views and the table, e.g. "GRAPPA R=2"
  ReconOptions options;  // method, backend and method parameters
};

struct ComparisonEntry {
  std::string label;
  ReconMethod method = ReconMethod::Fft;
  std::string backend;          // the reconstructor that ran, e.g. "grappa/cpu"
  Image2D image;
  std::vector<float> magnitude;  // |image|
  std::vector<float> error_map;  // |image| − |truth| (empty without truth or on a size mismatch)
  bool has_metrics = false;      // truth given and of the same size
  Metrics metrics;
  double seconds = 0;            // reconstruction wall time
  std::string error;             // non-empty: this method failed (e.g. gridding on Cartesian data)
  bool ok() const { return error.empty(); }
};

struct ReconComparison {
  std::vector<ComparisonEntry> entries;  // one per request, in order
  bool has_truth = false;
  Image2D truth;
  std::vector<float> truth_magnitude;
};

// Runs every request on `raw`. A method that rejects the data (InputError, runtime_error) gets its
// message in entry.error and the others still run; Cancelled propagates. truth: may be null.
// progress: request i covers [i/N, (i+1)/N).
ReconComparison compare_reconstructions(const RawData& raw, const Image2D* truth,
                                        const std::vector<ComparisonRequest>& requests,
                                        const ProgressFn& progress = {}, const CancelToken& cancel = {});

// The requests for a list of methods with default parameters and `backend`; labels are the upper-case
// method names.
std::vector<ComparisonRequest> comparison_requests(const std::vector<ReconMethod>& methods,
                                                   Backend backend = Backend::Auto);

}  // namespace mrwb
