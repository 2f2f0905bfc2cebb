#include "mrwb/pulseq_simulation.hpp"

#include <chrono>

#include "mrwb/errors.hpp"
#include "mrwb/phase_contrast.hpp"
#include "mrwb/recon_fft.hpp"

namespace mrwb {

ImportedSequenceRun simulate_imported_sequence(const Scenario& scenario, const seq::BlockSequence& sequence,
                                               SimulationEngine& engine, const ProgressFn& progress,
                                               const CancelToken& cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  const CellPhantom ph = build_phantom(scenario);
  const CoilMaps coils = scenario_coil_maps(scenario, ph);
  ImportedSequenceRun r;
  r.backend = engine.name();
  r.segments = simulate_block_sequence(ph, sequence, engine, coils, &r.truth, progress, cancel);
  if (r.segments.empty()) throw InputError("the sequence has no ADC to simulate");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.image = reconstruct_fft(r.segments.front());
  return r;
}

}  // namespace mrwb
