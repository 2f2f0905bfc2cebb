#pragma once
// What the user asks of the phantom (the scenario's "phantom" section); build_phantom turns it into cells.
#include <string>

#include "mrwb/phantom/vessel_generators.hpp"

namespace mrwb {

struct PhantomSpec {
  // "straight_vessel": one straight vessel of `vessel_tissue` crossing a disc of `background_tissue`.
  // "uniform_disc": a disc of `background_tissue` only (used by tests and teaching).
  // "vessel_tree": the generated tree of `tree` (its 2-D slice z = 0) filled with `vessel_tissue`,
  //   inside the disc of `background_tissue` (organ_tree: inside its organ ellipse instead).
  std::string preset = "straight_vessel";
  int cells_per_voxel = 2;          // cells per image voxel along each axis (isochromats per voxel);
                                    // the cell grid spans the sequence FOV
  double disc_radius_m = 0.05;      // radius of the tissue disc [m]
  std::string background_tissue = "muscle";
  std::string vessel_tissue = "blood";
  double vessel_radius_m = 0.008;   // [m]
  double vessel_angle_deg = 0;      // angle of the vessel axis to x [deg]
  double vessel_offset_m = 0;       // signed distance of the vessel axis from the centre [m]
  double slab_thickness_m = 0;      // 0: a 2-D slice at z = 0; > 0: a 3-D slab of cubic cells (the in-plane
                                    // cell size), nz = round(thickness / cell), centred on z = 0
  VesselTreeSpec tree;              // read and written only for preset "vessel_tree" (JSON "tree")
};

}  // namespace mrwb
