// An engine as one rank of a slab decomposition (rank_decomposition.hpp): which slab is this process's,
// and the signal summed over the ranks.
#include <algorithm>

#include "mrwb/base/errors.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

int SimulationEngine::rank_halo_planes(int, int) const { return transport_halo_planes(flow_transport_); }

void SimulationEngine::run_held_slab(const CellPhantom&, const SlabSplit&, const SequenceProgram&, const CoilMaps&,
                                     std::span<std::complex<float>>,
                                     std::span<std::complex<float>>, const ProgressFn&, const CancelToken&) {
  throw InputError("simulate: the " + name() + " engine over ranks takes the whole phantom on every rank");
}

SlabSplit SimulationEngine::rank_split(const CellPhantom& ph) const {
  const int ranks = decomposed() ? comm_->size() : 1;
  SlabSplit split = slab_split(ph, ranks, rank_halo_planes(ph.nz > 1 ? ph.nz : ph.ny, ranks));
  if (decomposed() && on_split_) on_split_(split);
  return split;
}

void SimulationEngine::reduce_samples(std::span<std::complex<double>> sums, std::span<std::complex<float>> samples) const {
  comm_->sum_in_rank_order(sums);
  for (std::size_t j = 0; j < samples.size(); ++j)
    samples[j] = {static_cast<float>(sums[j].real()), static_cast<float>(sums[j].imag())};
}

CoilMaps crop_coils(const CoilMaps& coils, std::size_t cells, std::size_t first, std::size_t count) {
  CoilMaps c;
  c.ncoils = coils.ncoils;
  if (coils.uniform()) return c;
  c.sens.resize(static_cast<std::size_t>(coils.ncoils) * count);
  for (int k = 0; k < coils.ncoils; ++k)
    std::copy_n(coils.sens.begin() + static_cast<std::ptrdiff_t>(k * cells + first), count,
                c.sens.begin() + static_cast<std::ptrdiff_t>(k * count));
  return c;
}

}  // namespace mrwb
