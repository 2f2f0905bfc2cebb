// The non-Cartesian recon's split over ranks: voxel shares all-gathered, sample shares summed in rank order.
#include "mrwb/recon/noncart_ranks.hpp"

#include <span>
#include <stdexcept>

#include "mrwb/base/parallel_ranges.hpp"

namespace mrwb::noncart {

RankShare rank_share(std::size_t count, const RankComm* comm) {
  if (!comm) return {0, count};
  return {range_begin(count, comm->size(), comm->rank()), range_begin(count, comm->size(), comm->rank() + 1)};
}

std::vector<cdouble> split_by_voxels(RankComm* comm, std::size_t voxels, const SharePart& part) {
  const RankShare sh = rank_share(voxels, comm);
  std::vector<cdouble> whole = part(sh.begin, sh.end);
  if (whole.size() != voxels) throw std::logic_error("split_by_voxels: a part of the wrong length");
  if (comm) comm->all_gather(whole, sh.begin, sh.end);
  return whole;
}

std::vector<cdouble> split_by_samples(RankComm* comm, std::size_t samples, const SharePart& part) {
  const RankShare sh = rank_share(samples, comm);
  std::vector<cdouble> sum = part(sh.begin, sh.end);
  if (comm) comm->sum_in_rank_order(sum);  // every rank's part has the same length: the grid's
  return sum;
}

std::vector<float> density_share(const Grid& g, const Samples& s, const GriddingParams& p, RankComm* comm) {
  const RankShare sh = rank_share(s.count(), comm);
  if (!comm || p.density != "pipe-menon") {
    std::vector<float> w = density_compensation(g, s, p);
    if (w.empty() || !comm) return w;
    return {w.begin() + sh.begin, w.begin() + sh.end};
  }
  return density_pipe_menon(g, s, p, sh.begin, sh.end, comm);
}

}  // namespace mrwb::noncart
