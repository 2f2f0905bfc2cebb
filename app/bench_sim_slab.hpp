#pragma once
// The liver-like slab of seed 004 (object d) for `mrwb bench --suite sim`, and the helpers that let the
// CPU engine's rate be measured on a sub-volume of it (a whole-slab CPU run would take hours).
#include "mrwb/phantom.hpp"
#include "mrwb/sequence_program.hpp"

namespace mrwb::cli {

// nx × ny × nz cubic cells of cell_m centred on the isocentre: a 48-terminal 3-D organ tree (root radius
// 2 mm, seed 2016) in a flattened ellipsoid of liver; blood (fluid cells) moves with the analytic
// Poiseuille field of 2 mL/s, scaled so the fastest cell moves 0.9 cells per flow step; every other
// cell is stationary liver (a slab cut from the organ).
CellPhantom liver_slab(int nx, int ny, int nz, double cell_m);
// The sub-volume [x0, x0+nx) × [y0, y0+ny) × [z0, z0+nz) of `ph`, positions kept.
CellPhantom crop_phantom(const CellPhantom& ph, int x0, int y0, int z0, int nx, int ny, int nz);
// The program up to and including its first `count` readouts (and the events up to the next RF).
SequenceProgram first_readouts(const SequenceProgram& prog, int count);

}  // namespace mrwb::cli
