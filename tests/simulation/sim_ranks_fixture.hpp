#pragma once
// What the rank suites share (test_sim_ranks: CPU ranks; test_gpu_sim_ranks: GPU ranks): a moving 3-D
// scenario whose vessels cross the slab boundaries, and its outputs (mpirun's arguments: mpirun.hpp).
#include <QStringList>

#include <complex>
#include <vector>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"

namespace mrwb_test {

// phantoms/tof_3d.json cut down (16² × 8 partitions, 2 cells per voxel: 32 × 32 × 16 cells) with a 3-D
// vessel tree instead of its in-plane vessel: branches turn out of the plane, so blood crosses the z planes.
inline const char* k_ranks_scenario = R"({
  "format": "mrwb-scenario", "version": 1, "name": "ranks_vessel_tree_3d", "backend": "cpu",
  "phantom": {"preset": "vessel_tree", "cells_per_voxel": 2, "disc_radius_m": 0.03, "background_tissue": "muscle",
              "vessel_tissue": "blood", "slab_thickness_m": 0.032,
              "tree": {"generator": "multi_bifurcation", "generations": 2, "dims": 3, "length_m": 0.03, "radius_m": 0.004}},
  "sequence": {"type": "tof", "matrix": 16, "fov_m": 0.064, "TR_s": 0.02, "TE_s": 0.006, "flip_angle_deg": 30,
               "dummy_scans": 2, "partitions": 8, "slice_thickness_m": 0.032},
  "flow": {"solver": "poiseuille", "inlet_flow_m3_per_s": 2e-06, "waveform": "constant"},
  "coils": {"count": 1}
})";

// A thin vessel (r = 0.6 mm at 1 mm cells) lying along x in the middle plane of a 31-plane slab: split over 4
// GPU ranks with their 4-plane halo, rank 0 holds no fluid cell at all (test_rank_decomposition checks it), so
// it time-steps nothing while the others do.
inline const char* k_idle_ranks_scenario = R"({
  "format": "mrwb-scenario", "version": 1, "name": "ranks_thin_vessel_3d", "backend": "cpu",
  "phantom": {"preset": "straight_vessel", "cells_per_voxel": 4, "disc_radius_m": 0.03, "background_tissue": "muscle",
              "vessel_tissue": "blood", "vessel_radius_m": 0.0006, "slab_thickness_m": 0.031},
  "sequence": {"type": "tof", "matrix": 16, "fov_m": 0.064, "TR_s": 0.02, "TE_s": 0.006, "flip_angle_deg": 30,
               "dummy_scans": 2, "partitions": 8, "slice_thickness_m": 0.031},
  "flow": {"solver": "poiseuille", "inlet_flow_m3_per_s": 5e-08, "waveform": "constant"},
  "coils": {"count": 1}
})";

struct Output {
  std::vector<std::complex<float>> k, truth;
};

inline Output read_output(const QString& raw, const QString& truth) {
  return {mrwb::read_raw_ismrmrd(raw.toStdString()).kspace, mrwb::read_image_volume(truth.toStdString()).data};
}

}  // namespace mrwb_test
