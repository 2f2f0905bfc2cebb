// GRAPPA CPU pipeline and its registry entry {"grappa", "cpu"}.
#include "mrwb/grappa.hpp"
#include "mrwb/noise_prewhitening.hpp"

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

namespace {

class GrappaCpuReconstructor final : public Reconstructor {
 public:
  std::string name() const override { return "grappa/cpu"; }
  Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                      const CancelToken& cancel) override {
    return reconstruct_grappa(raw, options.grappa, progress, cancel);
  }
};

}  // namespace

std::unique_ptr<Reconstructor> make_grappa_cpu_reconstructor() { return std::make_unique<GrappaCpuReconstructor>(); }

}  // namespace mrwb
