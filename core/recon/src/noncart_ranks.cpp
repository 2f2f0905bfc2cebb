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
  const Gridder gr(g, p);
  const float* k = s.k.data() + sh.begin * s.dims;
  const std::size_t m = sh.end - sh.begin;
  std::vector<double> w(m, 1.0);
  for (int it = 0; it < p.pipe_menon_iterations; ++it) {
    std::vector<double> grid = gr.spread_weights(k, w.data(), m);
    // G^D doubles with G even, so an even count: summed as complex pairs.
    comm->sum_in_rank_order(std::span<cdouble>(reinterpret_cast<cdouble*>(grid.data()), grid.size() / 2));
    const std::vector<double> c = gr.interpolate_weights(k, grid, m);
    for (std::size_t i = 0; i < m; ++i) w[i] = c[i] > 0 ? w[i] / c[i] : 0.0;
  }
  std::vector<float> out(w.begin(), w.end());
  cdouble sum{};
  for (float v : out) sum += v;
  comm->sum_in_rank_order(std::span<cdouble>(&sum, 1));
  if (sum.real() > 0)
    for (auto& v : out) v = static_cast<float>(v * band_area(s) / sum.real());  // as normalise_to_band
  return out;
}

}  // namespace mrwb::noncart
