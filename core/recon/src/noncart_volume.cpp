// 3-D non-Cartesian reconstructions for `mrwb recon` (volumes; the registry's Reconstructors give 2-D images):
// the CPU path and the backend choice (gpu/ registers Cuda). Writing them: io/image_volume_io.hpp.
#include "mrwb/recon/noncart_volume.hpp"

#include <cmath>

#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_recon.hpp"

namespace mrwb::noncart {
namespace {

// Every volume backend makes both methods (cg, gridding): one product.
constexpr const char* k_volume = "volume";

BackendRegistry<VolumeFn>& registry() {
  static BackendRegistry<VolumeFn> r({{{k_volume, Backend::Cpu}, {[] { return true; }, reconstruct_volume_cpu}}});
  return r;
}

std::string refusal(BackendRefusal why, Backend, Backend) {
  const std::string reason = why == BackendRefusal::Unavailable ? "no CUDA device here" : cuda_backends_missing_reason();
  return "--backend cuda: " + reason + " for 3-D volumes (allowed: auto, cpu)";
}

void check_volume_method(ReconMethod method) {
  if (method != ReconMethod::Cg && method != ReconMethod::Gridding)
    throw InputError("--method " + name_of(method) + ": 3-D trajectories allow gridding, cg");
}

}  // namespace

void register_volume_backend(Backend backend, VolumeBackend volume) {
  registry().add(k_volume, backend, std::move(volume));
}

ImageVolume reconstruct_volume_cpu(const RawData& raw, ReconMethod method, const NoncartParams& p,
                                   const ProgressFn& progress, const CancelToken& cancel) {
  check_volume_method(method);
  const auto in = recon_input(raw, p, method, 3);
  check_noncart_memory(in.grid, in.samples.count(), in.samples.coils, method, p);
  const Grid& g = in.grid;
  const Samples& s = in.samples;
  const GriddingParams gp = gridding_params(p);
  std::vector<cdouble> img;
  if (method == ReconMethod::Cg) {
    img = reconstruct_cg_cpu(g, s, p, Precision::Single, {}, progress, cancel).image;
  } else {
    const std::vector<float> w = density_compensation(g, s, gp);
    const std::size_t M = s.count();
    img = combine_coil_images(
        s.coils, [&](int c) { return gridding_recon(g, s.k.data(), s.d.data() + static_cast<std::size_t>(c) * M, M, w, gp); },
        progress, cancel);
  }
  return to_image_volume(g, img, raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m);
}

bool has_3d_trajectory(const RawData& raw) {
  if (raw.traj_dims != 3) return false;
  for (std::size_t i = 2; i < raw.traj.size(); i += 3)
    if (raw.traj[i] != 0.0f) return true;
  return false;
}

void check_noncart_recon(const RawData& raw, ReconMethod method, Backend backend, const NoncartParams& p) {
  const int dims = has_3d_trajectory(raw) ? 3 : 2;
  bool cpu = false;
  if (dims == 3) {
    check_volume_method(method);
    registry().choose(k_volume, backend, refusal);  // refuses an unavailable backend
    const auto cuda = registry().find(k_volume, Backend::Cuda);
    cpu = backend == Backend::Cpu || (backend == Backend::Auto && !(cuda && cuda->available()));
  } else {
    cpu = make_reconstructor(method, backend)->name().ends_with("/cpu");
  }
  const auto in = recon_input(raw, p, method, dims);
  if (method == ReconMethod::Cg && !p.sensitivities.empty()) cg_sensitivities(in.grid, in.samples, p);  // their size
  if (cpu) check_noncart_memory(in.grid, in.samples.count(), in.samples.coils, method, p);
}

ImageVolume reconstruct_volume(const RawData& raw, ReconMethod method, Backend backend,
                               const NoncartParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  check_volume_method(method);
  return registry().choose(k_volume, backend, refusal)(raw, method, p, progress, cancel);
}

}  // namespace mrwb::noncart
