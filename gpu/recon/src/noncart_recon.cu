// cg/cuda and gridding/cuda reconstructors (registry adapters of the device pipelines).
#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb_gpu/recon/noncart_cuda.hpp"

namespace mrwb::gpu {
namespace {

struct DeviceRecon {
  noncart::Grid grid;
  std::vector<noncart::cdouble> image;
};

// cg (SENSE with estimated sensitivities when several coils) or gridding (the CPU's density weights, coils
// combined) on the device, for 2-D (dims 2) or 3-D (dims 3) trajectories.
DeviceRecon recon_on_device(const RawData& raw, ReconMethod method, const NoncartParams& p, int dims,
                            const ProgressFn& progress, const CancelToken& cancel) {
  const auto in = noncart::recon_input(raw, p, method, dims);
  const auto& g = in.grid;
  const auto& s = in.samples;
  const auto gp = noncart::gridding_params(p);
  DeviceRecon r{g, {}};
  if (method == ReconMethod::Cg) {
    const std::vector<noncart::cfloat> sens = noncart::cg_sensitivities(g, s, p);
    FhdConfig cfg;
    cfg.devices = p.gpus;
    r.image = cg_on_device(g, s, p, cfg, sens, nullptr, progress, cancel);
  } else {
    const std::vector<float> w = noncart::density_compensation(g, s, gp);
    const std::size_t M = s.count();
    r.image = noncart::combine_coil_images(
        s.coils, [&](int c) { return gridding_adjoint_on_device(g, s.k.data(), s.d.data() + c * M, w, M, gp, p.gpus); }, progress,
        cancel);
  }
  return r;
}

double recon_fov_m(const RawData& raw) { return raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m; }

std::unique_ptr<Reconstructor> make_2d(ReconMethod method) {
  return make_function_reconstructor(name_of(method) + "/cuda", [method](const RawData& raw, const ReconOptions& o,
                                                                         const ProgressFn& progress, const CancelToken& cancel) {
    const DeviceRecon r = recon_on_device(raw, method, o.noncart, 2, progress, cancel);
    return noncart::to_image2d(r.grid, r.image, recon_fov_m(raw));
  });
}

}  // namespace

ImageVolume reconstruct_volume_cuda(const RawData& raw, ReconMethod method, const NoncartParams& p,
                                    const ProgressFn& progress, const CancelToken& cancel) {
  const DeviceRecon r = recon_on_device(raw, method, p, 3, progress, cancel);
  return noncart::to_image_volume(r.grid, r.image, recon_fov_m(raw));
}

std::unique_ptr<Reconstructor> make_cg_reconstructor_cuda() { return make_2d(ReconMethod::Cg); }
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cuda() { return make_2d(ReconMethod::Gridding); }

}  // namespace mrwb::gpu
