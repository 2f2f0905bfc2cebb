#pragma once
// Jurczuk et al. 2016's liver-like object as a slab phantom: the bench's 1000×1000×70 case and the tests' small
// versions of it come from here.
#include <cstddef>
#include <string>

#include "mrwb/phantom/phantom.hpp"

namespace mrwb {

struct OrganSlabSpec {
  int nx = 0, ny = 0, nz = 0;    // cells
  double cell_m = 0;             // cubic cell edge
  int terminals = 48;            // organ_tree terminals (RNG seed = 2016)
  double root_radius_m = 0.002;
  std::string parenchyma = "liver";  // tissue of every non-fluid cell ("": PD = 0, only the blood signals)
};

// nx × ny × nz cubic cells centred on the isocentre: a 3-D organ tree grown in a flattened ellipsoid whose
// x semi-axis reaches past the grid, so the root (entering at the −x pole) crosses the grid's open edge
// and blood flows in; blood (fluid cells, tissue "blood") moves with the analytic Poiseuille field of
// 2 mL/s, scaled so the fastest cell moves 0.9 cells per flow step (flow_dt_s). `where` names the object
// in errors; max_bytes bounds the discretisation's memory (discretise_vessels).
CellPhantom organ_slab_phantom(const OrganSlabSpec& spec, const std::string& where, std::size_t max_bytes);

// The same slab built plane by plane for ranks that hold only some of it: planes [z_begin, z_end) of the
// spec.nz, at their place in the whole (each cell as the whole build makes it), the fluid cells' velocities
// still in m/s, with their largest |ux| + |uy| + |uz|. scale_organ_slab_flow then takes the largest over
// every rank's planes (the whole slab's) and turns them into cells per flow step as organ_slab_phantom does.
// Rows [y_begin, y_end) of those planes only (y_end < 0: every row), for ranks split along y.
struct OrganSlabPlanes {
  CellPhantom ph;
  double u_max_m_per_s = 0;
};
OrganSlabPlanes organ_slab_planes(const OrganSlabSpec& spec, const std::string& where, std::size_t max_bytes, int z_begin,
                                  int z_end, int y_begin = 0, int y_end = -1);
void scale_organ_slab_flow(CellPhantom& ph, double u_max_m_per_s);

// A stack of `copies` of the slab `s` along z, each between two planes of parenchyma (its vessels end in closed
// caps there, so no blood passes from one copy to the next), centred on the isocentre: planes [z_begin, z_end)
// of its copies·(s.nz + 2), velocities in m/s as organ_slab_planes gives them (the slab is built once). The stack
// starts `offset` planes into its first copy (0 .. s.nz + 1; the last copy ends as far into its own). Each
// copy's magnetization is its own, so with offset 0 and no encoding along z the stack's signal is `copies`
// times that of one copy alone: a phantom larger than one GPU checked against a run of one copy (a
// sub-volume). With the offset at half a copy, slabs of one copy's thickness each hold the same planes, cut
// through the middle of the vessels: a weak-scaling case whose every rank has the same work and halo traffic.
int organ_slab_stack_planes_total(const OrganSlabSpec& s, int copies);
OrganSlabPlanes organ_slab_stack_planes(const OrganSlabSpec& s, int copies, const std::string& where, std::size_t max_bytes,
                                        int z_begin, int z_end, int offset = 0, int y_begin = 0, int y_end = -1);

}  // namespace mrwb
