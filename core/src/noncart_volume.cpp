// 3-D non-Cartesian reconstructions for `mrwb recon` (volumes; the registry's Reconstructors give 2-D images).
#include <cmath>

#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"
#include "mrwb/gridding.hpp"
#include "mrwb/noncart.hpp"

namespace mrwb::noncart {

Volume reconstruct_volume_cpu(const RawData& raw, const std::string& method, const NoncartParams& p,
                              const ProgressFn& progress, const CancelToken& cancel) {
  if (method != "cg" && method != "gridding") throw InputError("--method " + method + ": 3-D trajectories allow gridding, cg");
  if (p.matrix < 0 || p.matrix % 2 || p.matrix > 1024)
    throw InputError("--matrix " + std::to_string(p.matrix) + ": allowed even values 2 .. 1024 (0: from the trajectory)");
  const Samples s = samples_from_raw(raw);
  const Grid g{s.dims, p.matrix ? p.matrix : default_matrix(s)};
  validate_samples(g, s, method);
  const GriddingParams gp = gridding_params(p);
  std::vector<cdouble> img;
  if (method == "cg") {
    img = reconstruct_cg_cpu(g, s, p, Precision::Single, {}, progress, cancel).image;
  } else {
    const std::vector<float> w = density_pipe_menon(g, s, gp);
    const std::size_t M = s.count();
    img = combine_coil_images(
        s.coils, [&](int c) { return gridding_recon(g, s.k.data(), s.d.data() + static_cast<std::size_t>(c) * M, M, w, gp); },
        progress, cancel);
  }
  Volume v;
  v.n = g.n;
  v.dims = g.dims;
  v.data.assign(img.begin(), img.end());
  return v;
}

namespace {

void check_volume_path(const std::string& path) {
  const bool cfl = path.size() > 4 && path.substr(path.size() - 4) == ".cfl";
  if (!cfl) throw InputError(path + ": --out of a 3-D reconstruction must be a BART .cfl volume (allowed: .cfl)");
}

}  // namespace

bool has_3d_trajectory(const RawData& raw) {
  if (raw.traj_dims != 3) return false;
  for (std::size_t i = 2; i < raw.traj.size(); i += 3)
    if (raw.traj[i] != 0.0f) return true;
  return false;
}

Volume reconstruct_volume_to_files(const RawData& raw, const std::string& method, const std::string& backend,
                                   const NoncartParams& p, const std::vector<std::string>& outputs,
                                   const ProgressFn& progress, const CancelToken& cancel) {
  for (const auto& o : outputs) check_volume_path(o);
  if (backend != "auto" && backend != "cpu")
    throw InputError("--backend " + backend + ": 3-D volumes reconstruct on the CPU in mrwb recon (allowed: auto, cpu)");
  const Volume v = reconstruct_volume_cpu(raw, method, p, progress, cancel);
  for (const auto& o : outputs) write_volume(o, v);
  return v;
}

void write_volume(const std::string& path, const Volume& v) {
  check_volume_path(path);
  CflArray a;
  a.dims = {v.n, v.n, v.dims == 3 ? v.n : 1};
  a.data = v.data;
  write_cfl(path, a);
}

}  // namespace mrwb::noncart
