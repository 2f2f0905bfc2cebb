#pragma once
// Lagrangian spin tracking: the second simulation model, and the reference the Eulerian cell engine is
// tested against. Spins are carried by the phantom's velocity field (each moves with the velocity of the
// cell it is in), gradients act at each spin's own position (no transport between cells, so nothing
// diffuses what the gradients write), fresh fully relaxed spins enter through the inflow faces the
// Eulerian transport opens (grid edges, open vessel ends), and spins leaving the fluid are dropped.
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

class LagrangianCpuEngine final : public SimulationEngine {
 public:
  // spins_per_axis: spins per fluid cell along each axis (2-D: its square, 3-D: its cube), stratified with
  // a jitter drawn from `seed`; stationary cells hold one spin at their centre.
  explicit LagrangianCpuEngine(int spins_per_axis = 3, unsigned seed = 1);
  std::string name() const override { return "cpu-lagrangian"; }
  using SimulationEngine::run;
  // As SimulationEngine::run. A spin contributes its magnetization times 1 / (its cell's spins) to the
  // signal and to the truth of the cell it is in at the truth sample. Sub-steps keep each move within half
  // a cell; a Free interval's gradient moment is spread evenly over its sub-steps and applied at the
  // sub-step's mid-point position (exact for a constant velocity under a constant gradient).
  void run(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth, const ProgressFn& progress,
           const CancelToken& cancel) override;

 private:
  int spins_per_axis_;
  unsigned seed_;
};

}  // namespace mrwb
