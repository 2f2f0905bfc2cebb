#pragma once
// What a Lagrangian run plays, built once on the host and shared by the CPU engine and its CUDA twin
// (lagrangian_spin_ops.hpp): the initial spins, the flow table, the tissue factors, the inflow faces and
// the program flattened into entries (RF, spoiling, records, sub-steps).
#include <cstdint>
#include <vector>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/internal/lagrangian_spin_ops.hpp"

namespace mrwb::lagrangian {

// The most a spin moves in one sub-step [cells]. Each move is one explicit step (lagrangian_spin_ops.hpp's
// move), whose error at the face-field's turns is O(step²): across a 75 % stenosis' 2-cell throat the spins
// near its walls drift off their streamlines and thin out behind it. Measured (stenosis_75 at 64², 1 mm
// cells, 8 x 8 spins, the Eulerian image as the fixed point): the Lagrangian image differs from it by
// 2.57 / 1.87 / 1.80 / 1.78 % at 0.5 / 0.1 / 0.05 / 0.025 cells, the two finest 0.20 % apart; 0.1 costs
// 30 % more time there than 0.5 (readout dwells move far less than this anyway).
constexpr double k_max_sub_step_cells = 0.1;

struct Plan {
  bool moving = false, three_d = false;
  int per_axis = 1;                     // s
  int per_cell = 1;                     // spins per fluid cell of a moving phantom: s² (2-D) or s³ (3-D)
  std::uint64_t seed = 1;
  // The initial spins, at thermal equilibrium, in cell order (cell_initial_spins): cell i's from
  // spin_first[i] to spin_first[i + 1], of tissue row cell_tissue[i] (-1: PD = 0, no spin).
  std::vector<std::uint32_t> spin_first;
  std::vector<int> cell_tissue;
  std::size_t spin_count() const { return spin_first.empty() ? 0 : spin_first.back(); }
  std::vector<CellFlow> flow;           // per cell (moving phantoms; empty otherwise)
  std::vector<float> dB_T;              // per cell, empty when no cell has off-resonance
  int tissues = 0;                      // distinct (PD, T1, T2)
  std::vector<TissueFactors> factors;   // [sub-step size][tissue]
  std::vector<Face> faces;              // inflow faces (moving phantoms)
  std::vector<Entry> entries;
  std::vector<int> record_sample;       // per record: its k-space sample (coil 0), −1: none
  int truth_record = -1;                // the record at which the truth is taken (−1: none)
  double sub_steps = 0;                 // Step entries
};

// spins_per_axis s: a moving phantom's fluid cells get s² (2-D) or s³ (3-D) stratified spins with a
// jitter keyed by `seed`, each other cell with PD != 0 one spin at its centre. Throws InputError for a
// grid side or a count the 32-bit indices of the entries cannot hold.
Plan build_plan(const CellPhantom& phantom, const SequenceProgram& program, int spins_per_axis, std::uint64_t seed);

// The plan's initial spins, built on the host (in parallel over cells).
std::vector<Spin> initial_spins(const Plan& plan, const CellPhantom& phantom);

// Births of face f over [t0, t1) flow steps: serials [delivered(f, t0), delivered(f, t1)).
inline std::int64_t births(const Face& f, double t0, double t1) { return delivered(f, t1) - delivered(f, t0); }

}  // namespace mrwb::lagrangian
