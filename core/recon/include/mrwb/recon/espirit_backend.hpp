#pragma once
// ESPIRiT by backend, in one BackendRegistry (base/backend_registry.hpp). What a backend computes is the costly
// part, the maps of a calibration block on an image grid (espirit_from_calibration: the calibration matrix, its
// signal space, the per-voxel eigenproblems); the block itself (Cartesian lines, or a trajectory's gridded
// centre) is taken on the CPU, so Cartesian and non-Cartesian data reach the same backend. core registers the
// CPU reference (espirit.hpp); gpu/ registers its CUDA twin in mrwb::gpu::register_backends().
#include <functional>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/backend_registry.hpp"
#include "mrwb/recon/espirit.hpp"

namespace mrwb {

// The maps of a calibration block on an nx x ny image grid.
using EspiritFn = std::function<EspiritMaps(const EspiritBlock&, int nx, int ny, const EspiritParams&)>;
using EspiritBackend = BackendEntry<EspiritFn>;

void register_espirit(Backend backend, EspiritBackend b);
// espirit_maps and espirit_maps_noncart on `backend`. auto: CUDA when registered and a device is available,
// else the CPU. InputError (one line) for cuda without a device or without a CUDA build.
EspiritMaps espirit_maps(const RawData& raw, const EspiritParams& p, Backend backend);
EspiritMaps espirit_maps_noncart(const RawData& raw, int matrix, const EspiritParams& p, Backend backend);

}  // namespace mrwb
