#pragma once
// Entry point of the CUDA backends. Executables call register_backends() once; core's registries then
// offer cuda (available only when a device is present) and `auto` prefers it.
#include "mrwb_gpu/base/device.hpp"

namespace mrwb::gpu {

void register_backends();

}  // namespace mrwb::gpu
