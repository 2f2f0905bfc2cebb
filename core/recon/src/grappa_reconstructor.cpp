// GRAPPA CPU pipeline and its registry entry {"grappa", "cpu"}.
#include <algorithm>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"

namespace mrwb {

bool grappa_fully_sampled(const RawData& raw) {
  if (raw.accel_R != 1 || !raw.cartesian()) return false;
  for (int l = 0; l < raw.ny; ++l)
    if (!(raw.flags(l) & kLineAcquired)) return false;
  return true;
}

Image2D grappa_combine_fully_sampled(const RawData& raw, const GrappaParams& params) {
  if (params.combine != "sos" && params.combine != "sensitivity")
    throw InputError("grappa: --combine " + params.combine + " (allowed: sos, sensitivity)");
  check_raw_layout(raw);
  GrappaGeometry g;
  g.R = 1;
  g.ncoils = raw.ncoils;
  g.nx = raw.nx;
  g.ny = raw.ny;
  g.acs_lines = std::min(24, raw.ny);
  g.acs_first = std::clamp(raw.k0_line() - g.acs_lines / 2, 0, raw.ny - g.acs_lines);
  return grappa_combine(raw, g, raw.kspace, params.combine);
}

Image2D reconstruct_grappa(const RawData& raw_in, const GrappaParams& params, const ProgressFn& progress,
                           const CancelToken& cancel) {
  // Noise prewhitening as in reconstruct_fft (multi-coil data with a noise scan).
  const bool whiten = !raw_in.noise.empty() && raw_in.ncoils > 1;
  const RawData white = whiten ? prewhitened(raw_in) : RawData{};
  const RawData& raw = whiten ? white : raw_in;
  auto report = [&](double f) {
    if (progress) progress(f, "grappa");
  };
  cancel.throw_if_cancelled();
  if (grappa_fully_sampled(raw)) return grappa_combine_fully_sampled(raw, params);
  const GrappaWeights w = grappa_calibrate(raw, params);
  report(0.4);
  cancel.throw_if_cancelled();
  const auto k = grappa_synthesize(raw, w);
  report(0.7);
  cancel.throw_if_cancelled();
  Image2D img = grappa_combine(raw, w.geo, k, params.combine);
  report(1.0);
  return img;
}

std::unique_ptr<Reconstructor> make_grappa_cpu_reconstructor() {
  return make_function_reconstructor("grappa/cpu", [](const RawData& raw, const ReconOptions& o, const ProgressFn& progress,
                                                      const CancelToken& cancel) {
    return reconstruct_grappa(raw, o.grappa, progress, cancel);
  });
}

}  // namespace mrwb
