// cg/cuda and gridding/cuda reconstructors (registry adapters of the device pipelines).
#include <cmath>

#include "mrwb/errors.hpp"
#include "mrwb_gpu/noncart_cuda.hpp"

namespace mrwb::gpu {
namespace {

class CgCuda final : public Reconstructor {
 public:
  std::string name() const override { return "cg/cuda"; }
  Image2D reconstruct(const RawData& raw, const ReconOptions& o, const ProgressFn& progress,
                      const CancelToken& cancel) override {
    const auto in = noncart::recon_input(raw, o.noncart, "cg", 2);
    const auto& g = in.grid;
    const auto& s = in.samples;
    std::vector<noncart::cfloat> sens;
    if (s.coils > 1) sens = noncart::estimate_sensitivities(g, s, noncart::gridding_params(o.noncart));
    const auto img = cg_on_device(g, s, o.noncart, FhdConfig{}, sens, nullptr, progress, cancel);
    return noncart::to_image2d(g, img, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
  }
};

class GriddingCuda final : public Reconstructor {
 public:
  std::string name() const override { return "gridding/cuda"; }
  Image2D reconstruct(const RawData& raw, const ReconOptions& o, const ProgressFn& progress,
                      const CancelToken& cancel) override {
    const auto in = noncart::recon_input(raw, o.noncart, "gridding", 2);
    const auto& g = in.grid;
    const auto& s = in.samples;
    const auto gp = noncart::gridding_params(o.noncart);
    const std::vector<float> w = noncart::density_pipe_menon(g, s, gp);
    const std::size_t M = s.count();
    const auto out = noncart::combine_coil_images(
        s.coils, [&](int c) { return gridding_adjoint_on_device(g, s.k.data(), s.d.data() + c * M, w, M, gp); },
        progress, cancel);
    return noncart::to_image2d(g, out, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
  }
};

}  // namespace

noncart::Volume reconstruct_volume_cuda(const RawData& raw, const std::string& method, const NoncartParams& p,
                                        const ProgressFn& progress, const CancelToken& cancel) {
  const auto in = noncart::recon_input(raw, p, method, 3);
  const auto& g = in.grid;
  const auto& s = in.samples;
  const auto gp = noncart::gridding_params(p);
  std::vector<noncart::cdouble> img;
  if (method == "cg") {
    std::vector<noncart::cfloat> sens;
    if (s.coils > 1) sens = noncart::estimate_sensitivities(g, s, gp);
    img = cg_on_device(g, s, p, FhdConfig{}, sens, nullptr, progress, cancel);
  } else {
    const std::vector<float> w = noncart::density_pipe_menon(g, s, gp);
    const std::size_t M = s.count();
    img = noncart::combine_coil_images(
        s.coils, [&](int c) { return gridding_adjoint_on_device(g, s.k.data(), s.d.data() + c * M, w, M, gp); }, progress,
        cancel);
  }
  noncart::Volume v;
  v.n = g.n;
  v.dims = g.dims;
  v.data.assign(img.begin(), img.end());
  v.fov_m = raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m;
  return v;
}

std::unique_ptr<Reconstructor> make_cg_reconstructor_cuda() { return std::make_unique<CgCuda>(); }
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cuda() { return std::make_unique<GriddingCuda>(); }

}  // namespace mrwb::gpu
