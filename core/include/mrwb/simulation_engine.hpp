#pragma once
// The simulator backend interface. CPU reference in core, CUDA twin in gpu/, chosen via the registry.
#include <complex>
#include <span>
#include <string>

#include "mrwb/image.hpp"
#include "mrwb/phantom.hpp"
#include "mrwb/progress.hpp"
#include "mrwb/raw_data.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/sequence_program.hpp"

namespace mrwb {

class SimulationEngine {
 public:
  virtual ~SimulationEngine() = default;
  virtual std::string name() const = 0;  // "cpu" or "cuda"
  // Plays `program` over `phantom` from thermal equilibrium (M = PD·z).
  //   samples:   readouts × nx complex sums S(t) = Σ_cells (Mx + i·My), one uniform coil, row `line`
  //   cell_truth: Mxy of every cell at the truth sample (zero if the program records none)
  // Throws Cancelled when `cancel` is set; reports progress through `progress`.
  virtual void run(const Phantom2D& phantom, const SequenceProgram& program,
                   std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                   const ProgressFn& progress, const CancelToken& cancel) = 0;
};

// Multithreaded, deterministic CPU reference (same result for any thread count).
class CpuSimulationEngine final : public SimulationEngine {
 public:
  explicit CpuSimulationEngine(int threads = 0);  // 0: hardware concurrency
  std::string name() const override { return "cpu"; }
  void run(const Phantom2D& phantom, const SequenceProgram& program,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
           const ProgressFn& progress, const CancelToken& cancel) override;

 private:
  int threads_;
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
