// An engine as one rank of a slab decomposition (rank_decomposition.hpp): which slab is this process's,
// and the signal summed over the ranks.
#include <algorithm>

#include "mrwb/base/errors.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

int SimulationEngine::rank_halo_planes(int, int) const { return transport_halo_planes(flow_transport_); }

void SimulationEngine::run_held_slab(const CellPhantom&, const SlabSplit&, const SequenceProgram&, const CoilMaps&,
                                     std::span<std::complex<float>>,
                                     std::span<std::complex<float>>, const ProgressFn&, const CancelToken&) {
  throw InputError("simulate: the " + name() + " engine over ranks takes the whole phantom on every rank");
}

SlabSplit SimulationEngine::rank_split(const CellPhantom& ph) const {
  if (decomposed() && played_split_) return *played_split_;
  return slab_split(ph, 1);
}

bool SimulationEngine::play_decomposed(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                                       std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                                       const ProgressFn& progress, const CancelToken& cancel) {
  if (!decomposed() || played_split_) return false;
  const int ranks = comm_->size();
  const SlabSplit split = slab_split(ph, ranks, [&](int planes) { return rank_halo_planes(planes, ranks); }, split_axis_);
  if (on_split_) on_split_(split);
  struct Playing {  // played_split_ for this run only, exceptions included
    std::optional<SlabSplit>& p;
    ~Playing() { p.reset(); }
  } playing{played_split_};
  played_split_ = played_split(split);
  if (!split.rows_of_3d) {
    run(ph, prog, coils, samples, cell_truth, progress, cancel);
    return true;
  }
  CoilMaps swapped_coils;
  swapped_coils.ncoils = coils.ncoils;
  swap_y_z_cells(coils.sens, swapped_coils.sens, ph.nx, ph.ny, ph.nz);
  std::vector<std::complex<float>> truth(cell_truth.size());
  run(swap_y_z(ph), swap_y_z(prog), swapped_coils, samples, truth, progress, cancel);
  std::vector<std::complex<float>> back;
  swap_y_z_cells(truth, back, ph.nx, ph.nz, ph.ny);
  std::copy(back.begin(), back.end(), cell_truth.begin());
  // The plan held was the swapped grid's: named on the phantom's own axes (the same orders and memory).
  if (!held_cell_states_.empty()) held_cell_states_ = plan_cell_states(prog, ph).summary();
  return true;
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
