// GPU memory estimate of the CUDA simulator and its refusal message (see simulation_engine.hpp).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/internal/gpu_memory.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

std::size_t cuda_simulation_bytes(const CellPhantom& ph, const SequenceProgram& prog, int ncoils) {
  const bool moving = phantom_moves(ph);
  std::size_t fluid = 0;
  if (moving) {
    const std::size_t n = ph.size();
    const int parts = range_parts(n);
    std::vector<std::size_t> counted(static_cast<std::size_t>(parts), 0);
    for_each_range(n, parts, [&](int p, std::size_t begin, std::size_t end) {
      std::size_t c = 0;
      for (std::size_t i = begin; i < end; ++i) c += ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      counted[static_cast<std::size_t>(p)] = c;
    });
    for (std::size_t c : counted) fluid += c;
  }
  return cuda_simulation_bytes(ph, prog, ncoils, moving, fluid);
}

std::size_t cuda_simulation_bytes(const CellPhantom& ph, const SequenceProgram& prog, int ncoils, bool moving,
                                  std::size_t fluid) {
  const std::size_t n = ph.size();
  const std::size_t state = 3 * sizeof(float);                         // Mx My Mz
  const std::size_t tissue = 4 * sizeof(float);  // PD T1 T2 dB per cell (at most: a table and 2 B entries where it can)
  const std::size_t lists = sizeof(std::uint32_t);  // closed-form cell list
  const std::size_t truth = 2 * sizeof(float);                         // Mxy at the truth sample
  const std::size_t coils = ncoils > 1 ? static_cast<std::size_t>(ncoils) * 2 * sizeof(float) : 0;
  const std::size_t samples = static_cast<std::size_t>(ncoils) * prog.readouts * prog.nx;
  // Signal sums: k_signal_slots partial sums per sample (blocks spread their atomics over them).
  const std::size_t sums = std::max<std::size_t>(1, samples) * k_signal_slots * 2 * sizeof(double);
  // Closed-form events (with their separable pass tables) either way; time-stepped path: one record per step
  // (+ one per RF/spoil event at most).
  const std::size_t events = prog.events.size() * (k_device_event_bytes + k_device_event_factor_bytes);
  const std::size_t table = events + (moving ? (static_cast<std::size_t>(time_step_count(ph, prog)) + prog.events.size()) * k_device_step_bytes : 0);
  // Fluid cells (either dimension): the per-step kernel's state twice in compact arrays (24 B), grid
  // index, position, tissue, stencil (out and fresh, up to 6 inflow slots of rank and coefficient), velocity
  // (the gradient frame's turn by motion).
  if (!moving) fluid = 0;
  const std::size_t stencil = 6 * sizeof(float) + sizeof(std::uint32_t) + 8 + 4 * sizeof(float) + 2 * sizeof(float) +
                              6 * (sizeof(std::int32_t) + sizeof(float)) + 4 * sizeof(float);
  const std::size_t flow = fluid * stencil;
  return n * (state + tissue + lists + truth + coils) + sums + table + flow;
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
