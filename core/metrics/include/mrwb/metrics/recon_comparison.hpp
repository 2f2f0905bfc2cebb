#pragma once
// One RawData reconstructed with several methods (through the reconstructor registry), each image
// compared with the truth: the data behind the GUI's side-by-side comparison. Multi-slice and 3-D raw
// data are reconstructed whole and measured over every voxel; the images shown are the central plane.
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/image_volume.hpp"
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
  Image2D image;                 // volumes: the central plane
  std::vector<float> magnitude;  // |image|
  std::vector<float> error_map;  // |image| − |truth| (empty without truth or on a size mismatch)
  bool has_metrics = false;      // truth given and of the same size
  Metrics metrics;               // volumes: over every voxel (compare_volumes)
  double seconds = 0;            // reconstruction wall time
  std::vector<float> gfactor;    // [y][x] g-factor map when asked for (pipeline/gfactor_replica.hpp), else empty
  std::string gfactor_source;    // how: "analytic" or "N replicas"; or why there is none
  std::string error;             // non-empty: this method failed (e.g. gridding on Cartesian data)
  bool ok() const { return error.empty(); }
};

struct ReconComparison {
  std::vector<ComparisonEntry> entries;  // one per request, in order
  bool has_truth = false;
  Image2D truth;                       // volumes: the central plane
  std::vector<float> truth_magnitude;
  int planes = 1;                      // > 1: the metrics are over this many planes (slices or partitions)
  int shown_plane = 0;                 // the plane the images show
};

// Runs every request on `raw`. A method that rejects the data (InputError, runtime_error) gets its
// message in entry.error and the others still run; Cancelled propagates. truth: may be null.
// progress: request i covers [i/N, (i+1)/N).
ReconComparison compare_reconstructions(const RawData& raw, const Image2D* truth,
                                        const std::vector<ComparisonRequest>& requests,
                                        const ProgressFn& progress = {}, const CancelToken& cancel = {});

// The same on multi-slice / 3-D raw data (raw.volume()): each request reconstructs the whole volume
// (reconstruct_volume), its metrics are compare_volumes against `truth` (may be null; a different size gives
// no metrics), and the images and error maps are the central plane (the pipeline's: slices/2 or partitions/2).
ReconComparison compare_volume_reconstructions(const RawData& raw, const ImageVolume* truth,
                                        const std::vector<ComparisonRequest>& requests,
                                        const ProgressFn& progress = {}, const CancelToken& cancel = {});

// The requests for a list of methods with default parameters and `backend`; labels are the upper-case
// method names.
std::vector<ComparisonRequest> comparison_requests(const std::vector<ReconMethod>& methods,
                                                   Backend backend = Backend::Auto);

}  // namespace mrwb
