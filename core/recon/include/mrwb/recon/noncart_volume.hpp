#pragma once
// `mrwb recon` of a 3-D non-Cartesian trajectory: a volume (ImageVolume, n^3 voxels, FOV fov on every
// axis) on the CPU or a registered backend (gpu/ registers Cuda: mrwb::gpu::register_backends). The
// registry's Reconstructors give 2-D images (noncart_recon.hpp). Writing volumes: io/image_volume_io.hpp.
#include <functional>
#include <string>

#include "mrwb/base/backend_registry.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb::noncart {

// True for a trajectory with kz (samples_from_raw gives dims 3).
bool has_3d_trajectory(const RawData& raw);

// The volume on the CPU, method cg (CPU.SP, exact or gridded F^H d / Q, SENSE with estimated maps for
// several coils) or gridding (Pipe-Menon weights, root-sum-of-squares over coils). Matrix p.matrix or
// default_matrix.
ImageVolume reconstruct_volume_cpu(const RawData& raw, ReconMethod method, const NoncartParams& p,
                                   const ProgressFn& progress = {}, const CancelToken& cancel = {});

// Everything a gridding / cg reconstruction of raw by `backend` would refuse, before any of its work: the
// trajectory (3-D gives a volume), the backend, the parameters and samples (recon_input) and, on the CPU,
// the memory (check_noncart_memory; CUDA checks its device memory itself). Throws InputError.
void check_noncart_recon(const RawData& raw, ReconMethod method, Backend backend, const NoncartParams& p);

// The same on another backend: available(), make(raw, method, params, progress, cancel).
using VolumeFn = std::function<ImageVolume(const RawData&, ReconMethod method, const NoncartParams&,
                                           const ProgressFn&, const CancelToken&)>;
using VolumeBackend = BackendEntry<VolumeFn>;
void register_volume_backend(Backend backend, VolumeBackend volume);
// The volume with `backend` (auto: cuda when registered and available, else cpu; cpu; cuda), method checked
// first (cg | gridding; InputError otherwise).
ImageVolume reconstruct_volume(const RawData& raw, ReconMethod method, Backend backend,
                               const NoncartParams& p, const ProgressFn& progress = {}, const CancelToken& cancel = {});

}  // namespace mrwb::noncart
