#pragma once
// The CPU reference engine. Which of its two paths plays a run, and why: cpu_engine_closed_form.cpp.
#include <complex>
#include <functional>
#include <span>
#include <string>

#include "mrwb/base/progress.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
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

}  // namespace mrwb
