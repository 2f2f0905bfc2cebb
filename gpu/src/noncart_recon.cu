// cg/cuda and gridding/cuda reconstructors (registry adapters of the device pipelines).
#include <cmath>

#include "mrwb/errors.hpp"
#include "mrwb_gpu/noncart_cuda.hpp"

namespace mrwb::gpu {
namespace {

noncart::GriddingParams gridding_params(const NoncartParams& p) {
  noncart::GriddingParams g;
  g.width = p.kb_width;
  g.oversampling = p.oversampling;
  return g;
}

void check(const NoncartParams& p) {
  if (p.iterations < 1 || p.iterations > 10000) throw InputError("--iterations " + std::to_string(p.iterations) + ": allowed 1 .. 10000");
  if (p.matrix < 0 || p.matrix % 2 || p.matrix > 1024)
    throw InputError("--matrix " + std::to_string(p.matrix) + ": allowed even values 2 .. 1024 (0: from the trajectory)");
}

class CgCuda final : public Reconstructor {
 public:
  std::string name() const override { return "cg/cuda"; }
  Image2D reconstruct(const RawData& raw, const ReconOptions& o, const ProgressFn& progress,
                      const CancelToken& cancel) override {
    check(o.noncart);
    const noncart::Samples s = noncart::samples_from_raw(raw);
    if (s.dims != 2) throw InputError("recon --method cg: 3-D trajectories give volumes; use the library API (allowed here: 2-D)");
    const noncart::Grid g{2, o.noncart.matrix ? o.noncart.matrix : noncart::default_matrix(s)};
    noncart::validate_samples(g, s, "cg");
    std::vector<noncart::cfloat> sens;
    if (s.coils > 1) sens = noncart::estimate_sensitivities(g, s, gridding_params(o.noncart));
    const auto img = cg_on_device(g, s, o.noncart, FhdConfig{}, sens, nullptr, progress, cancel);
    return noncart::to_image2d(g, img, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
  }
};

class GriddingCuda final : public Reconstructor {
 public:
  std::string name() const override { return "gridding/cuda"; }
  Image2D reconstruct(const RawData& raw, const ReconOptions& o, const ProgressFn& progress,
                      const CancelToken& cancel) override {
    check(o.noncart);
    const noncart::Samples s = noncart::samples_from_raw(raw);
    if (s.dims != 2) throw InputError("recon --method gridding: 3-D trajectories give volumes; use the library API (allowed here: 2-D)");
    const noncart::Grid g{2, o.noncart.matrix ? o.noncart.matrix : noncart::default_matrix(s)};
    noncart::validate_samples(g, s, "gridding");
    const auto gp = gridding_params(o.noncart);
    const std::vector<float> w = noncart::density_pipe_menon(g, s, gp);
    const std::size_t M = s.count();
    std::vector<noncart::cdouble> out(g.voxels());
    for (int c = 0; c < s.coils; ++c) {
      cancel.throw_if_cancelled();
      const auto img = gridding_adjoint_on_device(g, s.k.data(), s.d.data() + c * M, w, M, gp);
      if (s.coils == 1) out = img;
      else
        for (std::size_t i = 0; i < img.size(); ++i) out[i] += std::norm(img[i]);
      if (progress) progress(static_cast<double>(c + 1) / s.coils, "gridding");
    }
    if (s.coils > 1)
      for (auto& v : out) v = std::sqrt(v.real());
    return noncart::to_image2d(g, out, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
  }
};

}  // namespace

std::unique_ptr<Reconstructor> make_cg_reconstructor_cuda() { return std::make_unique<CgCuda>(); }
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cuda() { return std::make_unique<GriddingCuda>(); }

}  // namespace mrwb::gpu
