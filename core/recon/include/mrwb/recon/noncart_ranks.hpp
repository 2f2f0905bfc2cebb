#pragma once
// The non-Cartesian recon over ranks (processes, RankComm: base/rank_comm.hpp). Exact F^H d and Q (Stone et
// al. 2008, Eqs. 3-4) are independent per voxel, so each rank sums its contiguous voxel share and the shares
// are all-gathered; gridded F^H d, Q and the gridding reconstruction are linear in the samples, so each rank
// grids its sample share and the results are summed in rank order. The CG (noncart_cg.hpp) updates its vectors
// on a share of the image's rows. With no comm every function is the one-process run.
#include <cstddef>
#include <functional>
#include <vector>

#include "mrwb/base/rank_comm.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

// This rank's contiguous share [begin, end) of `count` voxels or samples: the first count % ranks shares one
// longer (base/parallel_ranges.hpp's split); [0, count) with no comm.
struct RankShare {
  std::size_t begin = 0, end = 0;
};
RankShare rank_share(std::size_t count, const RankComm* comm);

// part(begin, end) returns a `voxels`-long result holding its voxels [begin, end): every rank's share,
// all-gathered, on every rank.
using SharePart = std::function<std::vector<cdouble>(std::size_t begin, std::size_t end)>;
std::vector<cdouble> split_by_voxels(RankComm* comm, std::size_t voxels, const SharePart& part);
// part(begin, end) returns what the samples [begin, end) contribute to a linear result: the ranks' results
// summed in rank order (RankComm::sum_in_rank_order), on every rank.
std::vector<cdouble> split_by_samples(RankComm* comm, std::size_t samples, const SharePart& part);

// The density weights (p.density) of this rank's sample share. Pipe-Menon (1999) is split too: each iteration
// spreads the share's weights, sums the grids in rank order and reads them back at the share's samples; the
// sum for the band normalisation is summed in rank order. Voronoi and radial: computed whole, then cut.
// No comm: density_compensation.
std::vector<float> density_share(const Grid& g, const Samples& s, const GriddingParams& p, RankComm* comm);

}  // namespace mrwb::noncart
