#pragma once
// Lagrangian spin tracking: the second simulation model, and the reference the Eulerian cell engine is
// tested against. Spins are carried by the phantom's velocity field (each moves with the velocity of the
// cell it is in), gradients act at each spin's own position (no transport between cells, so nothing
// diffuses what the gradients write), fresh fully relaxed spins enter through the inflow faces the
// Eulerian transport opens (grid edges, open vessel ends), and spins leaving the fluid are dropped.
// The per-spin operations are shared with the CUDA twin (cuda_lagrangian_engine.hpp), and the spins
// born are the same on both (a counter-based hash, no generator state).
#include <cstddef>

#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// What the last run of a Lagrangian engine did, for throughput figures (`mrwb bench --suite lagrangian`).
struct SpinTrackingStats {
  double spin_steps = 0;       // Σ over sub-steps of the spins alive in it (each precessed once)
  double sub_steps = 0;        // sub-steps of the program
  std::size_t initial_spins = 0, spins_born = 0;
};
class SpinTracker {
 public:
  virtual ~SpinTracker() = default;
  virtual SpinTrackingStats last_run_stats() const = 0;
};

class LagrangianCpuEngine final : public SimulationEngine, public SpinTracker {
 public:
  // spins_per_axis: spins per fluid cell along each axis (2-D: its square, 3-D: its cube), stratified with
  // a jitter keyed by `seed`; stationary cells hold one spin at their centre.
  explicit LagrangianCpuEngine(int spins_per_axis = k_default_spins_per_axis, unsigned seed = 1);
  std::string name() const override { return "cpu-lagrangian"; }
  using SimulationEngine::run;
  // As SimulationEngine::run. A spin contributes its magnetization times 1 / (its cell's spins) to the
  // signal and to the truth of the cell it is in at the truth sample. Sub-steps keep each move within
  // k_max_sub_step_cells (lagrangian_plan.hpp); a Free interval's gradient moment is spread evenly over its
  // sub-steps and applied at the sub-step's mid-point position (exact for a constant velocity under a constant gradient).
  void run(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth, const ProgressFn& progress,
           const CancelToken& cancel) override;
  SpinTrackingStats last_run_stats() const override { return stats_; }

 private:
  unsigned seed_;
  SpinTrackingStats stats_;
};

}  // namespace mrwb
