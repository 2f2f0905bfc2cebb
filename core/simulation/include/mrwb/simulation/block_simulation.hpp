#pragma once
// A block sequence (the block model of sequence/sequence_blocks.hpp: built, or read from Pulseq) played by a
// simulation engine over a cell phantom, and the velocity its voxels should read.
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_fidelity.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// How a block sequence of unknown type (an imported file, phase contrast) is played: sequence.fidelity with
// "auto" resolved to each RF pulse one hard pulse at its centre (2-D phantom: slice profile not modelled)
// and gradients in 20 us pieces, so that moving spins see when each gradient acts (a bipolar's first moment,
// the phase-encode lobe's centre); spoiling ideal by default (Jurczuk et al. 2016: the builders' spoiler
// moment is a whole number of turns per cell for 1 or 2 cells per voxel, so on the cell grid it cannot
// dephase). Shaped RF: 100 us steps.
seq::ConversionOptions block_playback(const SequenceFidelity& fidelity = {});

// Plays a block sequence over `phantom` with `engine`: converted with `options` (a still phantom plays
// every interval whole: its pieces compose to the same rotation), demodulated, and split by the SET label into one RawData per segment (lines by LIN). Signal in voxel units (cell area / voxel area).
// `truth` (optional) receives the voxel-averaged Mxy at the k-space centre in the receiver's frame.
std::vector<RawData> simulate_block_sequence(const CellPhantom& phantom, const seq::BlockSequence& s,
                                             SimulationEngine& engine, const CoilMaps& coils, Image2D* truth,
                                             const ProgressFn& progress, const CancelToken& cancel,
                                             const seq::ConversionOptions& options = block_playback());

// The velocity a phase-contrast voxel should read along `axis` (0 x, 1 y, 2 z) [m/s]: the proton-density
// weighted mean of its cells' velocity, still cells counting as 0 (the phase of a voxel is, for small
// phases, the signal-weighted mean of its spins'). On the image grid, cells_per_voxel² cells per voxel.
std::vector<float> velocity_truth_m_per_s(const CellPhantom& phantom, int axis);

}  // namespace mrwb
