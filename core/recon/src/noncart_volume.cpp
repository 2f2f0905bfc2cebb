// 3-D non-Cartesian reconstructions for `mrwb recon` (volumes; the registry's Reconstructors give 2-D images):
// the CPU path and the backend choice (gpu/ registers "cuda"). Writing them: io/image_volume_io.hpp.
#include <cmath>
#include <map>
#include <mutex>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart.hpp"

namespace mrwb::noncart {
namespace {

std::mutex& backends_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, VolumeBackend>& volume_backends() {
  static std::map<std::string, VolumeBackend> b;
  return b;
}

void check_volume_method(const std::string& method) {
  if (method != "cg" && method != "gridding") throw InputError("--method " + method + ": 3-D trajectories allow gridding, cg");
}

// The registered backend named `backend`, or "cpu" (nullptr); auto prefers an available "cuda".
const VolumeBackend* choose_backend(const std::string& backend) {
  if (backend != "auto" && backend != "cpu" && backend != "cuda")
    throw InputError("--backend " + backend + ": unknown (allowed: auto, cpu, cuda)");
  if (backend == "cpu") return nullptr;
  std::lock_guard<std::mutex> lock(backends_mutex());
  const auto it = volume_backends().find("cuda");
  const bool usable = it != volume_backends().end() && it->second.available();
  if (backend == "cuda" && !usable)
    throw InputError("--backend cuda: no CUDA device (or a build without CUDA) for 3-D volumes (allowed: auto, cpu)");
  return usable ? &it->second : nullptr;
}

}  // namespace

void register_volume_backend(const std::string& name, VolumeBackend backend) {
  std::lock_guard<std::mutex> lock(backends_mutex());
  volume_backends()[name] = std::move(backend);
}

Volume reconstruct_volume_cpu(const RawData& raw, const std::string& method, const NoncartParams& p,
                              const ProgressFn& progress, const CancelToken& cancel) {
  check_volume_method(method);
  const auto in = recon_input(raw, p, method, 3);
  const Grid& g = in.grid;
  const Samples& s = in.samples;
  const GriddingParams gp = gridding_params(p);
  std::vector<cdouble> img;
  if (method == "cg") {
    img = reconstruct_cg_cpu(g, s, p, Precision::Single, {}, progress, cancel).image;
  } else {
    const std::vector<float> w = density_compensation(g, s, gp);
    const std::size_t M = s.count();
    img = combine_coil_images(
        s.coils, [&](int c) { return gridding_recon(g, s.k.data(), s.d.data() + static_cast<std::size_t>(c) * M, M, w, gp); },
        progress, cancel);
  }
  Volume v;
  v.n = g.n;
  v.dims = g.dims;
  v.data.assign(img.begin(), img.end());
  v.fov_m = raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m;
  return v;
}

bool has_3d_trajectory(const RawData& raw) {
  if (raw.traj_dims != 3) return false;
  for (std::size_t i = 2; i < raw.traj.size(); i += 3)
    if (raw.traj[i] != 0.0f) return true;
  return false;
}

Volume reconstruct_volume(const RawData& raw, const std::string& method, const std::string& backend, const NoncartParams& p,
                          const ProgressFn& progress, const CancelToken& cancel) {
  check_volume_method(method);
  const VolumeBackend* b = choose_backend(backend);
  return b ? b->reconstruct(raw, method, p, progress, cancel) : reconstruct_volume_cpu(raw, method, p, progress, cancel);
}

}  // namespace mrwb::noncart
