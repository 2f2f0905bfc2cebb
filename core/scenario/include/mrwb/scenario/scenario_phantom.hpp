#pragma once
// A scenario's phantom with its blood flow: the vessel tree and the cell grid the scenario describes, the
// flow field on them (Poiseuille or LBM), and the simulator's cell phantom carrying that field.
#include <cstddef>
#include <functional>
#include <string>

#include "mrwb/flow/flow.hpp"
#include "mrwb/flow/lbm.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

// The scenario's phantom with its flow: when the scenario has a "flow" section, ux/uy hold the field of
// flow.solver in cells per Scenario::flow_time_step_s() (|u| <= 1 checked; InputError otherwise) on the
// fluid cells. `lbm_runner` runs the LBM (empty: the CPU reference).
CellPhantom build_phantom(const Scenario& scenario, const LbmRunner& lbm_runner = {});

// The tree the scenario's vessels come from: preset "vessel_tree" -> generated from phantom.tree;
// "straight_vessel" -> a straight tube across the field of view. InputError for "uniform_disc".
VesselTree scenario_vessel_tree(const Scenario& s, const std::string& source = "scenario");
// The simulator's cell grid of the scenario (matrix * cells_per_voxel cells across the FOV, nz = 1).
CellGrid scenario_cell_grid(const Scenario& s);
// Flow field of the scenario with `solver` (poiseuille | lbm) on cells of the scenario's size: the
// simulator grid for a 2-D tree, a grid around the tree for a 3-D one. `info` receives the memory estimate
// (before building) and warnings.
FlowField scenario_flow_field(const Scenario& s, const std::string& solver, const LbmRunner& runner,
                              const std::function<void(const std::string&)>& info = {},
                              const ProgressFn& progress = {}, const CancelToken& cancel = {},
                              std::size_t memory_limit_bytes = k_flow_memory_limit_bytes);

}  // namespace mrwb
