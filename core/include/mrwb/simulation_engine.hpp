#pragma once
// The simulator backend interface. CPU reference in core, CUDA twin in gpu/, chosen via the registry.
#include <complex>
#include <span>
#include <string>
#include <vector>

#include "mrwb/image.hpp"
#include "mrwb/phantom.hpp"
#include "mrwb/progress.hpp"
#include "mrwb/raw_data.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/sequence_program.hpp"

namespace mrwb {

// Receive-coil sensitivities on the cell grid. Empty `sens`: one uniform coil of sensitivity 1.
struct CoilMaps {
  int ncoils = 1;
  std::vector<std::complex<float>> sens;  // [coil][cell]
  bool uniform() const { return sens.empty(); }
};

class SimulationEngine {
 public:
  virtual ~SimulationEngine() = default;
  virtual std::string name() const = 0;  // "cpu" or "cuda"
  // Plays `program` over `phantom` from thermal equilibrium (M = PD·z). Static phantoms (flow_dt_s = 0 or
  // all velocities zero) are advanced event by event (exact); moving ones are time-stepped with
  // transport (transport_cell_ops.hpp) and sub-steps that keep the Courant number <= 1.
  //   samples:    ncoils × readouts × nx, S_c(t) = Σ_cells C_c(r)·(Mx + i·My)
  //   cell_truth: Mxy of every cell at the truth sample (zero if the program records none)
  // Throws Cancelled when `cancel` is set; reports progress through `progress`.
  virtual void run(const Phantom2D& phantom, const SequenceProgram& program, const CoilMaps& coils,
                   std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                   const ProgressFn& progress, const CancelToken& cancel) = 0;
  // Single uniform coil.
  void run(const Phantom2D& phantom, const SequenceProgram& program, std::span<std::complex<float>> samples,
           std::span<std::complex<float>> cell_truth, const ProgressFn& progress, const CancelToken& cancel) {
    run(phantom, program, CoilMaps{}, samples, cell_truth, progress, cancel);
  }
};

// True when some fluid cell has a non-zero velocity and the phantom has a flow time step.
bool phantom_moves(const Phantom2D& phantom);
// Largest |ux| + |uy| over fluid cells: both engines sub-step so that this times dt/flow_dt <= 1.
double max_courant_speed(const Phantom2D& phantom);

// Multithreaded, deterministic CPU reference (same result for any thread count).
class CpuSimulationEngine final : public SimulationEngine {
 public:
  explicit CpuSimulationEngine(int threads = 0);  // 0: hardware concurrency
  std::string name() const override { return "cpu"; }
  using SimulationEngine::run;
  void run(const Phantom2D& phantom, const SequenceProgram& program, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
           const ProgressFn& progress, const CancelToken& cancel) override;
  // Forces the time-stepped path even for a static phantom (tests compare the two paths).
  void set_force_time_stepping(bool on) { force_time_stepping_ = on; }

 private:
  void run_static(const Phantom2D& phantom, const SequenceProgram& program, const CoilMaps& coils,
                  std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                  const ProgressFn& progress, const CancelToken& cancel);
  void run_time_stepped(const Phantom2D& phantom, const SequenceProgram& program, const CoilMaps& coils,
                        std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                        const ProgressFn& progress, const CancelToken& cancel);
  int threads_;
  bool force_time_stepping_ = false;
};

struct SimulationResult {
  RawData raw;
  Image2D truth;        // transverse magnetization at TE averaged over each image voxel
  std::string backend;  // engine actually used
  double seconds = 0;
};

// Builds phantom and program from the scenario, runs `engine`, scales the signal to voxel units
// (cell area / voxel area) so the FFT image and the truth share one scale.
SimulationResult simulate(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                          const CancelToken& cancel);

}  // namespace mrwb
