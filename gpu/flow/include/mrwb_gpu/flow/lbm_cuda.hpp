#pragma once
// CUDA twin of the LBM CPU reference (core/flow/src/lbm_d2q9.cpp, lbm_d3q19.cpp): the same per-node code
// (mrwb/flow/lbm_node_ops.hpp), one thread per node, SoA distributions resident on the device, double
// buffered; macroscopic fields are written only on residual-check steps.
#include "mrwb/flow/lbm.hpp"

namespace mrwb::gpu {

// D2Q9 when nz == 1, else D3Q19. Throws std::runtime_error when no device is present.
LbmResult lbm_run_cuda(const LbmDomain& domain, const LbmParams& params, const ProgressFn& progress = {},
                       const CancelToken& cancel = {});

// Timing of `steps` updates of a domain without residual checks (for `mrwb bench --suite flow`):
// returns the seconds of the kernels alone (CUDA events).
double lbm_time_steps_cuda(const LbmDomain& domain, const LbmParams& params, int steps);

}  // namespace mrwb::gpu

namespace mrwb::gpu {
// Memory bandwidth of device 0 for the flow benchmark's roofline: the theoretical peak from the
// memory clock and bus width (0 if the runtime does not report them) and a measured device-to-device
// copy (read + write bytes per second).
double peak_memory_bandwidth_Bps();
double measured_copy_bandwidth_Bps();
}  // namespace mrwb::gpu
