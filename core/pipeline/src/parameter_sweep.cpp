#include "mrwb/pipeline/parameter_sweep.hpp"

#include <algorithm>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/region_stats.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/scenario/scenario_field.hpp"

namespace mrwb {

const std::vector<SweepField>& sweep_fields() {
  static const std::vector<SweepField> fields = {
      {"sequence.flip_angle_deg", "Flip angle", "°", 1},
      {"sequence.TE_s", "TE", "ms", 1e-3},
      {"sequence.TR_s", "TR", "ms", 1e-3},
      {"sequence.venc_m_per_s", "VENC", "m/s", 1},
      {"sequence.acceleration", "Acceleration R", "", 1},
      {"sequence.acs_lines", "ACS lines", "", 1},
      {"sequence.bandwidth_Hz_per_pixel", "Bandwidth", "Hz/pixel", 1},
      {"flow.inlet_flow_m3_per_s", "Inflow", "mL/s", 1e-6},
      {"phantom.vessel_angle_deg", "Vessel angle", "°", 1},
      {"recon.cg_iterations", "CG iterations", "", 1},
      {"recon.cg_lambda", "CG λ", "", 1},
  };
  return fields;
}

std::vector<double> sweep_values(double from, double to, int points) {
  if (points < 2 || points > k_max_sweep_points)
    throw InputError("sweep: points = " + std::to_string(points) + " (allowed: 2 .. " + std::to_string(k_max_sweep_points) + ")");
  std::vector<double> v(points);
  for (int i = 0; i < points; ++i) v[i] = from + (to - from) * i / (points - 1);
  return v;
}

SweepResult run_sweep(const Scenario& s, const std::string& field, const std::vector<double>& values,
                      const SweepRegion& region, const ProgressFn& progress, const CancelToken& cancel) {
  if (field.rfind("recon.cg_", 0) == 0 && s.recon.method != ReconMethod::Cg)
    throw InputError("sweep: " + field + " acts only with recon.method = cg (it is " + name_of(s.recon.method) + ")");
  std::vector<Scenario> runs;
  for (double v : values) runs.push_back(scenario_with_field(s, field, v, "sweep"));  // all refused up front
  SweepResult r{field, {}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    cancel.throw_if_cancelled();
    ProgressFn part;
    if (progress)
      part = [&, i](double f, std::string_view stage) { progress((static_cast<double>(i) + f) / runs.size(), stage); };
    PipelineResult p = run_pipeline(runs[i], part, cancel);
    SweepPoint pt;
    pt.value = values[i];
    pt.metrics = p.metrics;
    const int nx = p.recon.nx, ny = p.recon.ny;
    pt.region_mean = region.empty() ? region_stats(p.recon.magnitude(), nx, ny, 0, 0, nx, ny).mean
                                    : region_stats(p.recon.magnitude(), nx, ny, region.x0, region.y0, region.x1, region.y1).mean;
    pt.recon = std::move(p.recon);
    r.points.push_back(std::move(pt));
  }
  return r;
}

std::string sweep_csv(const SweepResult& r) {
  std::ostringstream os;
  os.precision(9);
  os << r.field << ",psnr_db,ssim,percent_error,region_mean\n";
  for (const auto& p : r.points)
    os << p.value << "," << p.metrics.psnr_db << "," << p.metrics.ssim << "," << p.metrics.percent_error << ","
       << p.region_mean << "\n";
  return os.str();
}

}  // namespace mrwb
