#pragma once
// CPU twin of the CUDA engine's separable readout (mrwb/simulation/internal/separable_readout.hpp): which readouts and
// cells it applies to, and one readout's signal computed the separable way from the cells' state.
#include <complex>
#include <span>

#include "mrwb/phantom/tissue_table.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/internal/separable_readout.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb::separable {

// A readout whose gradient moves k along x only: dk_y = dk_z = 0 per dwell.
bool readout_is_separable(const SeqEvent& e);

// [k], k <= events.size(): whether the transverse magnetization before events[k] is ever read: not when the first
// event from k other than a Free is a Spoil (ideal spoiling zeroes Mxy before the excitation; a Free event before it
// relaxes Mz on its own, as Mxy's precession and decay never reach Mz). At the program's end ([size]) it is kept
// (the final state). A closed-form pass then neither stores the Mxy it ends with nor loads the Mxy it starts from:
// 16 of its 26 bytes a cell (entry, M in, M out) on the default spoiled GE. One backward pass over the events.
std::vector<bool> transverse_reads(std::span<const SeqEvent> events);

// The distinct (T2, ΔB) of the cells that obey the Bloch operator alone: PD != 0 and, when
// `skip_fluid`, not fluid (those are time-stepped). False when there are more than
// k_max_readout_groups (the direct sum is used then).
bool readout_groups(const CellPhantom& ph, bool skip_fluid, ReadoutGroups& groups);
// The same from tissue values (PD, T1, T2, ΔB; PD = 0: not played in closed form), e.g. the CUDA
// engine's table (closed_form_tissue): a few entries instead of every cell.
bool readout_groups(std::span<const TissueValue> tissue, ReadoutGroups& groups);

// Plays the readout `e` (readout_is_separable) for the cells with PD != 0, every one of them in a group
// of `groups`: signal[c·n_samples + j] += S_c(j) (sum over x and groups of P·z^j), each cell's state m
// advanced over the whole readout in closed form, cell_truth set at e.truth_sample.
void play_separable_readout(const CellPhantom& ph, const CoilMaps& coils, const ReadoutGroups& groups,
                            const SeqEvent& e, std::span<bloch::Mag> m, std::span<std::complex<double>> signal,
                            std::span<std::complex<float>> cell_truth);

}  // namespace mrwb::separable
