#include "mrwb/recon/cg_operators.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <thread>

#include "mrwb/recon/noncart_exact.hpp"

namespace mrwb::noncart {

CgOperatorChoice choose_cg_operators(const Grid& g, std::size_t M, int coils, Backend backend, CgOperators requested,
                                     unsigned cpu_threads) {
  CgOperatorChoice c;
  const double m = static_cast<double>(M);
  c.exact_pairs = m * (static_cast<double>(std::max(1, coils)) * static_cast<double>(g.voxels()) +
                       static_cast<double>(q_half_voxels(g)));
  const bool cuda = backend == Backend::Cuda;
  const unsigned threads = cpu_threads ? cpu_threads : std::max(1u, std::thread::hardware_concurrency());
  const double rate = cuda ? k_exact_pairs_per_s_cuda : k_exact_pairs_per_s_cpu_thread * threads;
  c.exact_estimate_s = c.exact_pairs / rate;
  c.exact = requested == CgOperators::Exact ||
            (requested == CgOperators::Auto && c.exact_estimate_s <= k_exact_budget_s);
  std::ostringstream os;
  os.precision(2);
  os << "cg: " << (c.exact ? "exact" : "gridded (Kaiser-Bessel)") << " F^H d and Q on the " << (cuda ? "GPU" : "CPU");
  if (requested != CgOperators::Auto) os << " (as asked)";
  else if (c.exact) os << " (exact: ~" << c.exact_estimate_s << " s, within the " << k_exact_budget_s << " s budget)";
  else os << " (exact would take ~" << std::fixed << std::setprecision(0) << c.exact_estimate_s << " s, over the "
          << k_exact_budget_s << " s budget; --exact to force)";
  c.text = os.str();
  return c;
}

}  // namespace mrwb::noncart
