// D2Q9 BGK lattice Boltzmann, CPU reference (the CUDA twin is gpu/src/lbm_cuda.cu).
#include "lbm_loop.hpp"

namespace mrwb {

LbmResult lbm_d2q9_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  return detail::lbm_loop_cpu(
      d, p, progress, cancel, [](const lbm::View& v, int x, int y, int) { lbm::d2q9_update(v, x, y); },
      [](const lbm::View& v, std::size_t i) { lbm::d2q9_init(v, i); }, "lbm d2q9");
}

}  // namespace mrwb
