// D2Q9 lattice Boltzmann (BGK or MRT), CPU reference (the CUDA twin is gpu/flow/src/lbm_cuda.cu).
#include "lbm_loop.hpp"

namespace mrwb {

LbmResult lbm_d2q9_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  return detail::lbm_run_lattice_cpu<9>(d, p, progress, cancel);
}

}  // namespace mrwb
