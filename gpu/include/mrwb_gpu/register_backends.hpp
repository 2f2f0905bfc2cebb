#pragma once
// Entry point of the CUDA backends. Executables call register_backends() once; core's registry then
// offers "cuda" (available only when a device is present) and `auto` prefers it.
#include <string>

namespace mrwb::gpu {

void register_backends();
// True when the CUDA runtime sees at least one device.
bool device_available();
// "NVIDIA H100 80GB HBM3, 79.1 GiB, sm_90" or why there is none.
std::string device_description();

}  // namespace mrwb::gpu
