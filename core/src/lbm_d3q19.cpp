// D3Q19 lattice Boltzmann (BGK or MRT), CPU reference (the CUDA twin is gpu/src/lbm_cuda.cu).
#include "lbm_loop.hpp"

namespace mrwb {

LbmResult lbm_d3q19_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  return detail::lbm_loop_cpu(
      d, p, progress, cancel, [mrt = p.collision == LbmCollision::Mrt](const lbm::View& v, int x, int y, int z) {
        mrt ? lbm::d3q19_update<true>(v, x, y, z) : lbm::d3q19_update<false>(v, x, y, z);
      },
      [](const lbm::View& v, std::size_t i) { lbm::d3q19_init(v, i); }, "lbm d3q19");
}

}  // namespace mrwb
