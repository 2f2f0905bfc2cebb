#pragma once
// The CUDA engine's device memory for one run, estimated on the host (so that a refusal is testable
// without a device). The record sizes are the CUDA engine's, checked there with static_asserts.
#include <cstddef>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb {

// GPU memory the CUDA engine allocates for one run [bytes]: cell state (double-buffered when the phantom
// moves), tissue and flow arrays, coil maps, truth, signal sums (double) and the event program. On the
// host so that the refusal below is testable without a device.
constexpr std::size_t k_device_event_bytes = 72;  // sizeof the CUDA engine's per-event record (checked there)
constexpr std::size_t k_device_event_factor_bytes = 8704;  // at most, per event: its separable pass tables (checked there)
constexpr std::size_t k_device_step_bytes = 128;  // its per-time-step records, step and gradient frame (checked there)
constexpr std::size_t k_signal_slots = 16;        // partial sums per k-space sample on the device
std::size_t cuda_simulation_bytes(const CellPhantom& phantom, const SequenceProgram& program, int ncoils);
// The same with what the caller already knows: whether the phantom moves (phantom_moves) and how many of
// its cells are fluid (counted only when it moves).
std::size_t cuda_simulation_bytes(const CellPhantom& phantom, const SequenceProgram& program, int ncoils, bool moving,
                                  std::size_t fluid_cells);
// Throws InputError (one line: bytes asked, bytes free, coarser cells or --backend cpu) when
// need_bytes > free_bytes.
void check_gpu_memory(std::size_t need_bytes, std::size_t free_bytes);

}  // namespace mrwb
