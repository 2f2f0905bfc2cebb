#pragma once
// The liver-like slab of Jurczuk et al. 2016 (object d) for `mrwb bench --suite sim`, and the helpers that let the
// CPU engine's rate be measured on a sub-volume of it (a whole-slab CPU run would take hours).
#include <string>

#include <nlohmann/json.hpp>

#include "mrwb/flow/organ_slab.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb::cli {

// nx × ny × nz cubic cells of cell_m centred on the isocentre: a 48-terminal 3-D organ tree (root radius
// 2 mm, RNG seed = 2016) in a flattened ellipsoid of liver; blood (fluid cells) moves with the analytic
// Poiseuille field of 2 mL/s, scaled so the fastest cell moves 0.9 cells per flow step; every other
// cell is stationary liver (a slab cut from the organ).
CellPhantom liver_slab(int nx, int ny, int nz, double cell_m);
// Its spec and discretisation memory bound (organ_slab.hpp), for ranks that build only their planes.
OrganSlabSpec liver_slab_spec(int nx, int ny, int nz, double cell_m);
constexpr std::size_t k_liver_slab_max_bytes = std::size_t{16} << 30;
// The program up to and including its first `count` readouts (and the events up to the next RF).
SequenceProgram first_readouts(const SequenceProgram& prog, int count);
// The slab's closed-form part alone, on CUDA when available: the same cells and program with the flow
// stopped, so every cell (the fluid ones too) is played in closed form, readouts the separable way.
// Prints one line (seconds, bytes moved, roofline fraction) and adds it to report["cases"].
void bench_closed_form_only(const CellPhantom& slab, const SequenceProgram& prog, const std::string& name,
                            double roofline_GB_per_s, nlohmann::json& report);

}  // namespace mrwb::cli
