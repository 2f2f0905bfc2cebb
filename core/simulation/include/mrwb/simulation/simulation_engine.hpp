#pragma once
// The simulator backend interface. CPU reference in core, CUDA twin in gpu/, chosen via the registry.
#include <cmath>
#include <complex>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/base/rank_comm.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/base/simulation_model.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"

namespace mrwb {

// Receive-coil sensitivities on the cell grid. Empty `sens`: one uniform coil of sensitivity 1.
struct CoilMaps {
  int ncoils = 1;
  std::vector<std::complex<float>> sens;  // [coil][cell]
  bool uniform() const { return sens.empty(); }
};

// Cells [first, first + count) of every coil's map over a grid of `cells` (a rank's slab).
CoilMaps crop_coils(const CoilMaps& coils, std::size_t cells, std::size_t first, std::size_t count);

class SimulationEngine {
 public:
  virtual ~SimulationEngine() = default;
  virtual std::string name() const = 0;  // "cpu", "cuda", "cpu-lagrangian", "cuda-lagrangian"
  // Eulerian engines only (a Lagrangian engine has no cells to transport between and ignores it).
  void set_flow_transport(FlowTransport t) { flow_transport_ = t; }
  FlowTransport flow_transport() const { return flow_transport_; }
  // Lagrangian engines only: spins per fluid cell along each axis (2-D: its square, 3-D: its cube).
  void set_spins_per_axis(int s) { spins_per_axis_ = s < 1 ? 1 : s; }
  int spins_per_axis() const { return spins_per_axis_; }
  // Eulerian engines only: runs as one rank of `comm` (null or one rank: the whole grid here). This process
  // advances its slab of planes (rank_decomposition.hpp), the signal is summed over the ranks and rank 0
  // gets the whole cell truth. `on_split` hears each run's decomposition. Every rank must run the same phantoms.
  void set_rank_comm(RankComm* comm, std::function<void(const SlabSplit&)> on_split = {}) {
    comm_ = comm;
    on_split_ = std::move(on_split);
  }
  // The axis a 3-D grid is split along over ranks (slab_split; Auto unless set).
  void set_split_axis(SplitAxis a) { split_axis_ = a; }
  // Halo planes this engine reads from each neighbour when `planes` are split over `ranks` (the CPU engine
  // one, exchanged every step; the CUDA engine more, exchanged less often).
  virtual int rank_halo_planes(int planes, int ranks) const;
  // As one rank that holds only its planes (a phantom too large for one host's every rank): `held` is planes
  // [split.held_begin(rank), split.held_end(rank)) of the whole grid (split with rank_halo_planes), with the
  // whole phantom's whole_courant_speed and its halo's non-fluid cells emptied (empty_halo_cells); coils on
  // `held`'s cells; samples summed over the ranks; cell_truth the whole grid's (rank 0 receives it) or empty.
  // The CUDA engine only (others: InputError).
  virtual void run_held_slab(const CellPhantom& held, const SlabSplit& split, const SequenceProgram& program,
                             const CoilMaps& coils,
                             std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                             const ProgressFn& progress, const CancelToken& cancel);
  // Plays `program` over `phantom` from thermal equilibrium (M = PD·z). Static phantoms (flow_dt_s = 0 or
  // all velocities zero) are advanced event by event (exact); moving ones are time-stepped with
  // transport (transport_cell_ops.hpp) and sub-steps that keep the Courant number <= 1. (The CUDA engine
  // time-steps only their fluid cells and plays the others event by event: exact up to float rounding,
  // since transport couples fluid cells only.)
  //   samples:    ncoils × readouts × nx, S_c(t) = Σ_cells C_c(r)·(Mx + i·My)
  //   cell_truth: Mxy of every cell at the truth sample (zero if the program records none)
  // Throws Cancelled when `cancel` is set; reports progress through `progress`.
  virtual void run(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
                   std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                   const ProgressFn& progress, const CancelToken& cancel) = 0;
  // The plan of within-cell states the last run() held, in words (CellStatePlan::summary(), as the run's summary
  // names it); empty when the program asked for none.
  const std::string& held_cell_states() const { return held_cell_states_; }
  // Single uniform coil.
  void run(const CellPhantom& phantom, const SequenceProgram& program, std::span<std::complex<float>> samples,
           std::span<std::complex<float>> cell_truth, const ProgressFn& progress, const CancelToken& cancel) {
    run(phantom, program, CoilMaps{}, samples, cell_truth, progress, cancel);
  }

 protected:
  bool decomposed() const { return comm_ && comm_->size() > 1; }
  // As one of several ranks, the whole run: the split chosen and reported to on_split_ once, then run() again on
  // the grid as the engines play it (for y rows of a 3-D grid: swap_y_z's phantom, program and coils, the truth
  // swapped back), rank_split giving that split. False (nothing done) when not decomposed or already playing:
  // each engine's run() calls it first.
  bool play_decomposed(const CellPhantom& ph, const SequenceProgram& program, const CoilMaps& coils,
                       std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                       const ProgressFn& progress, const CancelToken& cancel);
  // This rank's slab of the grid being played: the split play_decomposed chose (the whole grid when not
  // decomposed).
  SlabSplit rank_split(const CellPhantom& ph) const;
  // The ranks' signal sums added in rank order, into `samples`.
  void reduce_samples(std::span<std::complex<double>> sums, std::span<std::complex<float>> samples) const;

  FlowTransport flow_transport_ = FlowTransport::GradientFrame;
  int spins_per_axis_ = k_default_spins_per_axis;
  RankComm* comm_ = nullptr;
  std::function<void(const SlabSplit&)> on_split_;
  SplitAxis split_axis_ = SplitAxis::Auto;
  std::optional<SlabSplit> played_split_;  // while play_decomposed runs
  std::string held_cell_states_;          // set by an engine that plays cell states (held_cell_states())
};

// sqrt(Σ_c |C_c(cell)|²): the weight an ideal root-sum-of-squares image gives a cell (1 for one uniform coil).
inline float coil_sos_weight(const CoilMaps& coils, std::size_t cells, std::size_t cell) {
  if (coils.uniform()) return 1.f;
  float sos = 0.f;
  for (int c = 0; c < coils.ncoils; ++c) sos += std::norm(coils.sens[static_cast<std::size_t>(c) * cells + cell]);
  return std::sqrt(sos);
}

}  // namespace mrwb
