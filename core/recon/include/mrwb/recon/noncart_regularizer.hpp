#pragma once
// W of the CG's normal equations (F^H F + lambda W^H W) rho = F^H d (Stone et al. 2008 Eqs. 1-2): identity,
// first-order finite differences, or finite differences cut at the edges of an anatomical reference image
// (Haldar et al. 2008, Stone et al. 2008's ref. [14] "anatomically constrained reconstruction": W is derived from a
// high-resolution, high-SNR reference scan; differences across the reference's edges are not penalised,
// so smoothing stays inside regions and the edges keep their resolution).
//
// Both difference operators are described by links: bit d of links[i] set when the difference between
// voxel i and its forward neighbour along axis d (x fastest) is in W. W^H W x at voxel i is then
// sum over linked neighbours j of (x_i - x_j); its diagonal is the number of links of i. CPU and CUDA
// (gpu/recon/src/noncart_cg.cu) share these links.
#include <cstdint>
#include <string>
#include <vector>

#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

using Links = std::vector<std::uint8_t>;

// Throws InputError naming `regularizer` and the allowed ones unless it is identity, finite-difference or
// anatomical.
void check_regularizer(const std::string& regularizer);
// Every neighbour pair inside the grid (non-periodic finite differences).
Links grid_links(const Grid& g);
// Neighbour pairs whose reference values differ by at most edge_threshold times the reference's range
// (max - min). Throws InputError (one line, naming `where`) for a reference of another size than n^D, a
// NaN / Inf value, or a threshold outside [0, 1).
Links anatomical_links(const Grid& g, const std::vector<float>& reference, double edge_threshold,
                       const std::string& where);
// The links of a regulariser: empty for identity, grid_links for finite-difference, anatomical_links of
// `prior` for anatomical (where = "--prior").
Links regularizer_links(const Grid& g, const std::string& regularizer, const std::vector<float>& prior,
                        double edge_threshold);
// out = W^H W in for the links (size n^D).
void apply_linked_fd_normal(const Grid& g, const std::uint8_t* links, const cdouble* in, cdouble* out);
// Diagonal of W^H W at voxel i: its number of links (forward and backward).
int link_degree(const Grid& g, const std::uint8_t* links, std::size_t i);
// The diagonal (Jacobi) preconditioner's inverse, 1 / (coil_power_i Q(0) + lambda diag(W^H W)_i), 1 where
// that is not positive; diag(W^H W) = link_degree, or 1 for W = identity (links empty). CPU and CUDA solvers.
std::vector<double> diagonal_preconditioner_inverse(const Grid& g, const Links& links, const std::vector<double>& coil_power,
                                                    double q0, double lambda);
// Eigenvalues of the periodic first-order W^H W on the n grid (circulant preconditioner; the anatomical W
// is preconditioned by it too: an approximation, the CG stays exact).
std::vector<double> fd_circulant_eigenvalues(const Grid& g);

}  // namespace mrwb::noncart
