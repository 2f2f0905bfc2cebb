#pragma once
// The simulator backend interface. CPU reference in core, CUDA twin in gpu/, chosen via the registry.
#include <algorithm>
#include <cmath>
#include <complex>
#include <span>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_program.hpp"

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
  // transport (transport_cell_ops.hpp) and sub-steps that keep the Courant number <= 1. (The CUDA engine
  // time-steps only their fluid cells and plays the others event by event: exact up to float rounding,
  // since transport couples fluid cells only.)
  //   samples:    ncoils × readouts × nx, S_c(t) = Σ_cells C_c(r)·(Mx + i·My)
  //   cell_truth: Mxy of every cell at the truth sample (zero if the program records none)
  // Throws Cancelled when `cancel` is set; reports progress through `progress`.
  virtual void run(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
                   std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                   const ProgressFn& progress, const CancelToken& cancel) = 0;
  // Single uniform coil.
  void run(const CellPhantom& phantom, const SequenceProgram& program, std::span<std::complex<float>> samples,
           std::span<std::complex<float>> cell_truth, const ProgressFn& progress, const CancelToken& cancel) {
    run(phantom, program, CoilMaps{}, samples, cell_truth, progress, cancel);
  }
};

// True when some fluid cell has a non-zero velocity (ux, uy or uz) and the phantom has a flow time step.
bool phantom_moves(const CellPhantom& phantom);
// Largest |ux| + |uy| + |uz| over fluid cells: both engines sub-step so that this times dt/flow_dt <= 1.
double max_courant_speed(const CellPhantom& phantom);
// Longest step keeping the Courant number <= 1 [s] (0: nothing moves, no limit), and the number of
// equal sub-steps an interval dt_s takes under it: the one rule both engines (and the bench) follow.
inline double courant_dt_s(const CellPhantom& phantom) {
  const double u = phantom.flow_dt_s > 0 ? max_courant_speed(phantom) : 0.0;
  return u > 0 ? phantom.flow_dt_s / u : 0.0;
}
inline int courant_substeps(double dt_s, double courant_dt) {
  return courant_dt > 0 ? std::max(1, static_cast<int>(std::ceil(dt_s / courant_dt - 1e-9))) : 1;
}
// Time steps the time-stepped path takes for `program` (sub-steps of every Free interval and every ADC
// sample).
long time_step_count(const CellPhantom& phantom, const SequenceProgram& program);

// Progress once per TR, dummy TRs included: marks[e] = TRs completed when event e has been played
// (simulated time / TR, rounded down; readouts played when the program has no TR); the last mark is
// the total. Every engine reports progress(marks[e] / total) each time the mark increases.
std::vector<int> tr_progress_marks(const SequenceProgram& program);

// Runs `engine` on a thread, cancels it `delay_s` after the start and returns the seconds from cancel()
// to the engine's return (−1 when the run ended before the cancel): the figure behind "cancel within
// 100 ms", measured by `mrwb bench` and checked generously by the tests.
double cancel_latency_s(SimulationEngine& engine, const CellPhantom& phantom, const SequenceProgram& program,
                        double delay_s);

// GPU memory the CUDA engine allocates for one run [bytes]: cell state (double-buffered when the phantom
// moves), tissue and flow arrays, coil maps, truth, signal sums (double) and the event program. On the
// host so that the refusal below is testable without a device.
constexpr std::size_t k_device_event_bytes = 72;  // sizeof the CUDA engine's per-event record (checked there)
constexpr std::size_t k_device_event_factor_bytes = 8704;  // at most, per event: its separable pass tables (checked there)
constexpr std::size_t k_device_step_bytes = 64;   // sizeof its per-time-step record (checked there)
constexpr std::size_t k_signal_slots = 16;        // partial sums per k-space sample on the device
std::size_t cuda_simulation_bytes(const CellPhantom& phantom, const SequenceProgram& program, int ncoils);
// The same with what the caller already knows: whether the phantom moves (phantom_moves) and how many of
// its cells are fluid (counted only when it moves).
std::size_t cuda_simulation_bytes(const CellPhantom& phantom, const SequenceProgram& program, int ncoils, bool moving,
                                  std::size_t fluid_cells);
// Throws InputError (one line: bytes asked, bytes free, coarser cells or --backend cpu) when
// need_bytes > free_bytes.
void check_gpu_memory(std::size_t need_bytes, std::size_t free_bytes);

// Multithreaded, deterministic CPU reference (same result for any thread count).
class CpuSimulationEngine final : public SimulationEngine {
 public:
  explicit CpuSimulationEngine(int threads = 0);  // 0: hardware concurrency
  std::string name() const override { return "cpu"; }
  using SimulationEngine::run;
  void run(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
           std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
           const ProgressFn& progress, const CancelToken& cancel) override;
  // Forces the time-stepped path even for a static phantom (tests compare the two paths).
  void set_force_time_stepping(bool on) { force_time_stepping_ = on; }

 private:
  void run_static(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
                  std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                  const ProgressFn& progress, const CancelToken& cancel);
  void run_time_stepped(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
                        std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                        const ProgressFn& progress, const CancelToken& cancel);
  int threads_;
  bool force_time_stepping_ = false;
};

struct SimulationResult {
  RawData raw;
  Image2D truth;        // transverse magnetization at TE averaged over each image voxel (a slab: summed over z)
  std::string backend;  // engine actually used
  double seconds = 0;
};

// Builds phantom and program from the scenario, runs `engine`, scales the signal to voxel units
// (cell area / voxel area) so the FFT image and the truth share one scale. Non-Cartesian scenarios
// (sequence.trajectory) go to simulate_noncart (sequence_noncart_gre.hpp).
// The raw-data header every simulation path fills the same way: matrix (nx, ny from the program),
// coils, in-plane FOV, TR, TE, flip angle and the scenario's name; k-space left empty.
RawData simulated_raw_header(const Scenario& scenario, const SequenceProgram& prog, int ncoils);

SimulationResult simulate(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                          const CancelToken& cancel);

// The scenario's receive coils on the phantom's cell grid (none: one uniform coil).
CoilMaps scenario_coil_maps(const Scenario& scenario, const CellPhantom& ph);
// sqrt(Σ_c |C_c(cell)|²): the weight an ideal root-sum-of-squares image gives a cell (1 for one uniform coil).
inline float coil_sos_weight(const CoilMaps& coils, std::size_t cells, std::size_t cell) {
  if (coils.uniform()) return 1.f;
  float sos = 0.f;
  for (int c = 0; c < coils.ncoils; ++c) sos += std::norm(coils.sens[static_cast<std::size_t>(c) * cells + cell]);
  return std::sqrt(sos);
}
// Ground truth on the image grid: Mxy at TE averaged over the cells of each voxel (in voxel units) and,
// with several coils, weighted by sqrt(Σ_c |s_c|²) as an ideal root-sum-of-squares image shows it.
Image2D sos_weighted_truth(const CellPhantom& ph, const CoilMaps& coils,
                           const std::vector<std::complex<float>>& cell_truth, const SequenceSpec& seq);

}  // namespace mrwb
