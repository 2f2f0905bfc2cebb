#pragma once
// Which CUDA device this process sees. No CUDA type here: the CLI, the GUI and the tests include it.
#include <string>

namespace mrwb::gpu {

// True when the CUDA runtime sees at least one device.
bool device_available();
// Devices the CUDA runtime sees (0 with none or no driver).
int device_count();
// True when device `from` can read and write device `to`'s memory directly (peer access, e.g. over NVLink):
// GPU ranks of one host then exchange their halos by peer stores (CUDA IPC).
bool peer_access(int from, int to);
// "NVIDIA H100 80GB HBM3, 79.1 GiB, sm_90, 132 SMs" or why there is none.
std::string device_description();
// Peak memory bandwidth of device 0 [GB/s] from its memory clock and bus width (2 transfers per clock):
// 3352 on an H100 SXM (HBM3), about 4800 on an H200; 0 with no device. The benchmarks' roofline.
double device_memory_bandwidth_GB_per_s();

// SMs and SM clock of device 0, and its special-function-unit rate: 16 sin, cos, exp2 or reciprocal per SM
// per clock on sm_70 to sm_90 (CUDA C++ Programming Guide, arithmetic instruction throughput). Zeros with
// no device. The benchmarks' SFU roof.
struct DeviceFacts {
  int sms = 0;
  double clock_hz = 0;
  double sfu_ops_per_s() const { return sms * 16.0 * clock_hz; }
};
DeviceFacts device_facts();

// Creates device 0's primary CUDA context (a few hundred ms on an H200). core's CudaStart runs it on a
// thread of its own while a command reads its inputs; the runtime's first call elsewhere waits for it
// rather than making a second. Does nothing without a device; errors surface at the first real use.
void start_context();

}  // namespace mrwb::gpu
