// D3Q19 lattice Boltzmann (BGK or MRT), CPU reference (the CUDA twin is gpu/flow/src/lbm_cuda.cu).
#include "lbm_loop.hpp"

namespace mrwb {

LbmResult lbm_d3q19_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  return detail::lbm_run_lattice_cpu<19>(d, p, progress, cancel);
}

}  // namespace mrwb
