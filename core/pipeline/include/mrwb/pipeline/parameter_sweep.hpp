#pragma once
// A parameter sweep: the scenario run end to end (run_pipeline, the GUI's Run) at each value of one
// numeric field, with what a class compares across the range: PSNR and SSIM of the reconstruction against
// the truth, and the mean |recon| in a region (the signal of a vessel, of a tissue).
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

// The fields offered for sweeps: the file key, its label and the unit shown (shown value x to_file = the
// file's SI value).
struct SweepField {
  std::string key, label, unit;
  double to_file = 1;
};
const std::vector<SweepField>& sweep_fields();

// Pixels [x0, x1) x [y0, y1) of the reconstruction (row 0 at the bottom, as Image2D); empty: the whole image.
struct SweepRegion {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

struct SweepPoint {
  double value = 0;  // in the file's units
  Image2D recon;
  Metrics metrics;   // recon against the truth
  double region_mean = 0;
};
struct SweepResult {
  std::string field;
  std::vector<SweepPoint> points;
};

// `points` values from `from` to `to` (linear, both ends); InputError outside 2 .. k_max_sweep_points.
constexpr int k_max_sweep_points = 64;
std::vector<double> sweep_values(double from, double to, int points);

// Every value is checked (scenario_with_field: the reader's ranges) before the first run. progress: the
// points share 0..1 in turn; cancel between and inside runs.
SweepResult run_sweep(const Scenario& s, const std::string& field, const std::vector<double>& values,
                      const SweepRegion& region, const ProgressFn& progress, const CancelToken& cancel);

// One row per point: field value, PSNR [dB], SSIM, % error, region mean.
std::string sweep_csv(const SweepResult& r);

}  // namespace mrwb
