// GPU memory estimate of the CUDA simulator and its refusal message (see simulation_engine.hpp).
#include <algorithm>
#include <cstdint>
#include <string>

#include "mrwb/errors.hpp"
#include "mrwb/simulation_engine.hpp"

namespace mrwb {

std::size_t cuda_simulation_bytes(const CellPhantom& ph, const SequenceProgram& prog, int ncoils) {
  const std::size_t n = ph.size();
  const bool moving = phantom_moves(ph);
  const std::size_t state = (moving ? 6 : 3) * sizeof(float);        // Mx My Mz (A and B buffers when moving)
  const std::size_t tissue = 6 * sizeof(float) + 1;                    // PD T1 T2 dB ux uy, type
  const std::size_t through_plane = ph.uz.size() == n ? sizeof(float) : 0;  // uz (3-D flow)
  const std::size_t lists = sizeof(std::uint32_t);  // fluid (time-stepped) and closed-form cell lists, n in all
  const std::size_t ends = ph.open_end.size() == n ? 1 : 0;                // open_end flags
  const std::size_t truth = 2 * sizeof(float);                         // Mxy at the truth sample
  const std::size_t coils = ncoils > 1 ? static_cast<std::size_t>(ncoils) * 2 * sizeof(float) : 0;
  const std::size_t samples = static_cast<std::size_t>(ncoils) * prog.readouts * prog.nx;
  // Signal sums: k_signal_slots partial sums per sample (blocks spread their atomics over them).
  const std::size_t sums = std::max<std::size_t>(1, samples) * k_signal_slots * 2 * sizeof(double);
  // Time-stepped path: one record per step (+ one per RF/spoil event at most); static: one per event.
  const std::size_t table = moving ? (static_cast<std::size_t>(time_step_count(ph, prog)) + prog.events.size()) * k_device_step_bytes
                                   : prog.events.size() * k_device_event_bytes;
  return n * (state + tissue + through_plane + lists + ends + truth + coils) + sums + table;
}

long time_step_count(const CellPhantom& ph, const SequenceProgram& prog) {
  const double dt_cfl = courant_dt_s(ph);
  long steps = 0;
  for (const SeqEvent& e : prog.events) {
    if (e.kind == EventKind::Free) steps += courant_substeps(e.dt_s, dt_cfl);
    if (e.kind == EventKind::Readout) steps += static_cast<long>(e.n_samples) * courant_substeps(e.dt_s, dt_cfl);
  }
  return steps;
}

void check_gpu_memory(std::size_t need, std::size_t free_b) {
  if (need <= free_b) return;
  auto mib = [](std::size_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };
  throw InputError("simulate: the CUDA engine needs " + std::to_string(need) + " bytes (" + mib(need) +
                   " MiB) of GPU memory but only " + std::to_string(free_b) + " bytes (" + mib(free_b) +
                   " MiB) are free; use coarser cells (phantom.cells_per_voxel, sequence.matrix) or --backend cpu");
}

}  // namespace mrwb
