#pragma once
// Which CUDA device this process sees. No CUDA type here: the CLI, the GUI and the tests include it.
#include <string>

namespace mrwb::gpu {

// True when the CUDA runtime sees at least one device.
bool device_available();
// "NVIDIA H100 80GB HBM3, 79.1 GiB, sm_90, 132 SMs" or why there is none.
std::string device_description();

}  // namespace mrwb::gpu
