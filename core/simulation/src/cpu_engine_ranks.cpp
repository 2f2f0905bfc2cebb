// The CPU engine as one rank of a slab decomposition (rank_decomposition.hpp): which slab is this
// process's, and the signal summed over the ranks.
#include "mrwb/simulation/cpu_engine.hpp"

namespace mrwb {

SlabSplit CpuSimulationEngine::rank_split(const CellPhantom& ph) const {
  SlabSplit split = slab_split(ph, decomposed() ? comm_->size() : 1);
  if (decomposed() && on_split_) on_split_(split);
  return split;
}

void CpuSimulationEngine::reduce_samples(std::span<std::complex<double>> sums, std::span<std::complex<float>> samples) const {
  comm_->sum_in_rank_order(sums);
  for (std::size_t j = 0; j < samples.size(); ++j)
    samples[j] = {static_cast<float>(sums[j].real()), static_cast<float>(sums[j].imag())};
}

}  // namespace mrwb
