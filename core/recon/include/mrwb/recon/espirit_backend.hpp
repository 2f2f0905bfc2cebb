#pragma once
// espirit_maps by backend, in one BackendRegistry (base/backend_registry.hpp): core registers the CPU
// reference (espirit.hpp); gpu/ registers its CUDA twin in mrwb::gpu::register_backends() (which hands data of
// more than 32 coils, beyond its batched eigensolver, to the CPU).
#include <functional>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/backend_registry.hpp"
#include "mrwb/recon/espirit.hpp"

namespace mrwb {

using EspiritFn = std::function<EspiritMaps(const RawData&, const EspiritParams&)>;
using EspiritBackend = BackendEntry<EspiritFn>;

void register_espirit(Backend backend, EspiritBackend b);
// auto: CUDA when registered and a device is available, else the CPU. InputError (one line) for cuda
// without a device or without a CUDA build.
EspiritMaps espirit_maps(const RawData& raw, const EspiritParams& p, Backend backend);

}  // namespace mrwb
