#pragma once
// Which CUDA device this process sees. No CUDA type here: the CLI, the GUI and the tests include it.
#include <string>

namespace mrwb::gpu {

// True when the CUDA runtime sees at least one device.
bool device_available();
// "NVIDIA H100 80GB HBM3, 79.1 GiB, sm_90, 132 SMs" or why there is none.
std::string device_description();
// Peak memory bandwidth of device 0 [GB/s] from its memory clock and bus width (2 transfers per clock):
// 3352 on an H100 SXM (HBM3), about 4800 on an H200; 0 with no device. The benchmarks' roofline.
double device_memory_bandwidth_GB_per_s();

}  // namespace mrwb::gpu
