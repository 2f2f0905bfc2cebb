#pragma once
// Flow domains shared by test_flow (CPU physics) and test_gpu_flow (CUDA vs CPU).
#include <cmath>

#include "mrwb/flow/flow.hpp"
#include "mrwb/flow/lbm.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/vessel_generators.hpp"

namespace flow_cases {

// A 2-D channel of H fluid rows between walls (rows 0 and H + 1, so the no-slip planes sit at 0.5 and
// H + 0.5), a plug inlet of speed u_in at x = 0 and a pressure outlet at x = L - 1. nz > 1 makes it a
// D3Q19 slab, periodic along z.
inline mrwb::LbmDomain channel(int L, int H, int nz, float u_in) {
  mrwb::LbmDomain d;
  d.nx = L;
  d.ny = H + 2;
  d.nz = nz;
  d.periodic[2] = nz > 1;
  d.node.assign(d.size(), 0);
  d.inlet_u.assign(3 * d.size(), 0.f);
  for (int z = 0; z < nz; ++z)
    for (int y = 1; y <= H; ++y)
      for (int x = 0; x < L; ++x) {
        const std::size_t i = (static_cast<std::size_t>(z) * d.ny + y) * d.nx + x;
        d.node[i] = x == 0 ? 2 : x == L - 1 ? 3 : 1;
        if (x == 0) d.inlet_u[3 * i] = u_in;
      }
  return d;
}

// A Murray bifurcation with a parent of 8 cells radius (cells of 100 um), 2-D; q = r2 / r1.
inline mrwb::VesselTree bifurcation_tree(double q) {
  mrwb::VesselTreeSpec s;
  s.generator = "bifurcation";
  s.radius_m = 0.8e-3;
  s.length_m = 6e-3;
  s.branch_angle1_deg = s.branch_angle2_deg = 35;
  s.radius_ratio = q;
  return mrwb::generate_vessel_tree(s);
}

inline mrwb::VesselCells cells_of(const mrwb::VesselTree& t, double cell_m = 1e-4) {
  return mrwb::discretise_vessels(t, mrwb::grid_around_tree(t, cell_m, 2 * cell_m), "test");
}

}  // namespace flow_cases
