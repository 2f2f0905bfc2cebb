// GRAPPA CPU pipeline and its registry entry {"grappa", "cpu"}.
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"

namespace mrwb {

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
