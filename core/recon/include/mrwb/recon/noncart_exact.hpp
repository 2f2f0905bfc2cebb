#pragma once
// Exact F^H d and Q of Stone et al. 2008 (Eqs. 3-4): direct sums over the samples for every voxel.
// Conventions: noncart_types.hpp.
#include <cstddef>
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

// Exact [F^H d]_n (Eq. 4) for one coil (d has s.count() values). Single: float trig and accumulation,
// multithreaded (CPU.SP); Double: double everywhere (CPU.DP). Threads: 0 = hardware concurrency.
std::vector<cdouble> exact_fhd(const Grid& g, const float* k, const cfloat* d, std::size_t M, Precision p,
                               int threads = 0, const CancelToken& cancel = {});
// Exact Q (Eq. 3) on the 2n grid, (2n)^D values; Hermitian symmetry Q(-x) = conj Q(x) halves the work.
std::vector<cdouble> exact_q(const Grid& g, const float* k, std::size_t M, Precision p, int threads = 0,
                             const CancelToken& cancel = {});

// One rank's share (noncart_ranks.hpp): the voxels [begin, end) of exact_fhd, or of Q's Hermitian half
// (begin, end <= q_half_voxels), the rest of the full-size result zero; each voxel bit for bit as in the whole.
std::vector<cdouble> exact_fhd_voxels(const Grid& g, const float* k, const cfloat* d, std::size_t M, Precision p,
                                      std::size_t begin, std::size_t end, int threads = 0, const CancelToken& cancel = {});
std::vector<cdouble> exact_q_half_voxels(const Grid& g, const float* k, std::size_t M, Precision p, std::size_t begin,
                                         std::size_t end, int threads = 0, const CancelToken& cancel = {});

// Hermitian symmetry: Q at offset -x is conj Q(x). The direct sums compute the lower half of the slowest
// axis (indices 0..n, offsets -n..0: q_half_voxels values); complete_q_hermitian resizes q to (2n)^D and
// fills the rest by j -> (2n - j) mod 2n on every axis (CPU and the tiled CUDA path alike).
std::size_t q_half_voxels(const Grid& g);
void complete_q_hermitian(const Grid& g, std::vector<cdouble>& q);

}  // namespace mrwb::noncart
