#pragma once
// (P)CG on the normal equations (F^H F + lambda W^H W) rho = F^H d of Stone et al. 2008, with SENSE coils.
#include <string>
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/base/rank_comm.hpp"
#include "mrwb/recon/iter/conjugate_gradient.hpp"
#include "mrwb/recon/noncart_toeplitz.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

struct CgOptions {
  int iterations = 20;
  double lambda = 0.0;
  std::string regularizer = "identity";    // identity | finite-difference | anatomical
  std::vector<float> prior;                // anatomical: reference image, n^D values (x fastest)
  double edge_threshold = 0.02;            // anatomical: edge where the reference jumps by > this x its range
  std::string preconditioner = "none";     // none | diagonal | circulant
  double tolerance = 0.0;                  // stop when ||r|| / ||b|| < tolerance
};
// iterations, relative_residual and per iteration residuals, ||r|| / ||b||.
using CgReport = iter::CgReport;

// Multi-coil SENSE normal equations sum_c S_c^H F^H F S_c + lambda W^H W, rhs sum_c S_c^H F^H d_c.
// sens empty: single coil, S = 1. sens: [coil][n^D].
// comm: one rank of several (noncart_ranks.hpp), each given the whole T, rhs and sens; the vectors are updated
// on the rank's rows (planes), the dot products are per-row partials added in row order as in one process, so
// every rank returns one process's image, bit for bit.
std::vector<cdouble> cg_solve(const ToeplitzNormal& T, const std::vector<cdouble>& rhs, const CgOptions& o,
                              const std::vector<cfloat>& sens, int coils, CgReport* report = nullptr,
                              const ProgressFn& progress = {}, const CancelToken& cancel = {},
                              RankComm* comm = nullptr);

}  // namespace mrwb::noncart
