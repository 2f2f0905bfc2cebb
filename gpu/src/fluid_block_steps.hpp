#pragma once
// Blocked time stepping of the fluid cells on the device (mrwb/fluid_blocks.hpp): one launch plays K
// steps of every part in shared memory. Internal to the CUDA simulation engine; its CPU twin is
// mrwb::run_fluid_blocks_cpu.
#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <vector>

#include "cuda_check.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/simulation/fluid_blocks.hpp"

namespace mrwb::gpu {

// What the kernel reads besides the tables: the grid (positions from the cell index), coil maps
// (nullptr: one uniform coil), signal partial sums (k_signal_slots × samples) and the truth.
struct FluidGrid {
  int nx, ny;
  double x0, y0, z0, cell;
  std::size_t n;
  int ncoils;
  std::size_t per_coil, samples;
  const float2* sens;
  double2* sums;
  float2* truth;
};

// What the fluid kernels read per listed cell besides the state, gathered from the phantom: position
// (ix, iy, iz), tissue (PD, R1 = 1/T1, R2 = 1/T2, ΔB) and velocity. `cells` may repeat (region entries).
// Throws std::invalid_argument when a grid side exceeds 65535 cells (positions are uint16).
struct FluidStatics {
  std::vector<ushort4> pos;
  std::vector<float4> tissue;
  std::vector<float> ux, uy, uz;  // uz zeros when the phantom has none
};
FluidStatics gather_fluid_statics(const CellPhantom& ph, std::span<const std::uint32_t> cells);

// The region tables of a FluidBlocks on the device, with everything static gathered per entry (tissue,
// velocities, the fluid cell's compact index), and the fluid cells' state in compact arrays (index = rank
// in the ascending fluid list): a launch reads and writes only these, coalesced, never the grid-sized
// arrays (scattered over hundreds of MB in a slab, where TLB misses bound the loads).
class FluidBlockTables {
 public:
  // fluid: the ascending fluid cell list the blocks were built from.
  FluidBlockTables(const CellPhantom& ph, const FluidBlocks& blocks, std::span<const std::uint32_t> fluid);
  // Plays steps [k0, min(k0 + K, n_steps)) of `steps` (device) for every part from the compact state
  // of the previous launch into the other compact buffer. One launch on `stream`.
  void launch(const FluidGrid& g, const FluidStep* steps, int k0, int n_steps, cudaStream_t stream);
  // Shared memory of one block [bytes] for a region of `entries` with `faces` faces.
  static std::size_t shared_bytes(std::size_t entries, int faces);
  std::size_t device_bytes() const;

 private:
  int K_, faces_;
  unsigned parts_;
  int max_region_;
  int cur_ = 0;  // compact buffer holding the current state
  DeviceBuffer<std::uint32_t> region_begin_, hop_end_, cell_, comp_;
  DeviceBuffer<ushort4> pos_;  // ix, iy, iz per entry
  DeviceBuffer<std::int16_t> face_;
  DeviceBuffer<float4> tissue_;  // PD, T1, T2, ΔB per entry
  DeviceBuffer<float> ux_, uy_, uz_;
  DeviceBuffer<float> state_[2];  // [x | y | z] of the fluid cells, 3 × fluid
};

}  // namespace mrwb::gpu
