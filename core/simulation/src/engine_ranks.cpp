// An engine as one rank of a slab decomposition (rank_decomposition.hpp): which slab is this process's,
// and the signal summed over the ranks.
#include <algorithm>

#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

SlabSplit SimulationEngine::rank_split(const CellPhantom& ph, int halo) const {
  SlabSplit split = slab_split(ph, decomposed() ? comm_->size() : 1, halo);
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
