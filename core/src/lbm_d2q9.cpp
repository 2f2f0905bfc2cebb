// D2Q9 lattice Boltzmann (BGK or MRT), CPU reference (the CUDA twin is gpu/src/lbm_cuda.cu).
#include "lbm_loop.hpp"

namespace mrwb {

LbmResult lbm_d2q9_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  return detail::lbm_loop_cpu(
      d, p, progress, cancel, [mrt = p.collision == LbmCollision::Mrt](const lbm::View& v, int x, int y, int) {
        mrt ? lbm::d2q9_update<true>(v, x, y) : lbm::d2q9_update<false>(v, x, y);
      },
      [](const lbm::View& v, std::size_t i) { lbm::d2q9_init(v, i); }, "lbm d2q9");
}

}  // namespace mrwb
