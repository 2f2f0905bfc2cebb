#pragma once
// The CPU reference engine. Which of its two paths plays a run, and why: cpu_engine_closed_form.cpp.
#include <complex>
#include <functional>
#include <span>
#include <string>

#include "mrwb/base/progress.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/rank_comm.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

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
  void set_threads(int threads);  // 0: hardware concurrency
  // Runs as one rank of `comm` (null or one rank: the whole grid here): this process advances its slab
  // of planes (rank_decomposition.hpp), the signal is summed over the ranks and rank 0 gets the whole
  // cell truth. `on_split` hears each run's decomposition. Every rank must run the same phantoms.
  void set_rank_comm(RankComm* comm, std::function<void(const SlabSplit&)> on_split = {}) {
    comm_ = comm;
    on_split_ = std::move(on_split);
  }

 private:
  void run_static(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
                  std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                  const ProgressFn& progress, const CancelToken& cancel);
  void run_time_stepped(const CellPhantom& phantom, const SequenceProgram& program, const CoilMaps& coils,
                        std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                        const ProgressFn& progress, const CancelToken& cancel);
  // This rank's slab of `ph` (the whole grid when not decomposed), reported to on_split_.
  SlabSplit rank_split(const CellPhantom& ph) const;
  // The ranks' signal sums added in rank order, into `samples`.
  void reduce_samples(std::span<std::complex<double>> sums, std::span<std::complex<float>> samples) const;
  bool decomposed() const { return comm_ && comm_->size() > 1; }
  int threads_;
  bool force_time_stepping_ = false;
  RankComm* comm_ = nullptr;
  std::function<void(const SlabSplit&)> on_split_;
};

}  // namespace mrwb
