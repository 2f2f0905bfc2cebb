#pragma once
// A phantom discretised into square (2-D, nz = 1) or cubic (3-D) cells, the isochromats of Jurczuk et al. 2016,
// stored as SoA arrays indexed (iz·ny + iy)·nx + ix.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/phantom_spec.hpp"
#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb {

enum class CellType : std::uint8_t { Background = 0, Stationary = 1, Fluid = 2 };

struct CellPhantom {
  int nx = 0, ny = 0;        // cells along x (readout) and y (phase encode)
  int nz = 1;                // cells along z (slice / partition direction); 1: a 2-D slice at z = z0_m
  double cell_size_m = 0;    // edge of one square (cubic) cell [m]
  std::vector<float> PD;     // proton density (M0 of the cell)
  std::vector<float> T1_s;   // [s]; 0 where PD = 0
  std::vector<float> T2_s;   // [s]
  std::vector<float> dB_T;   // off-resonance field [T]
  // Apparent diffusion coefficient [m^2/s], the tissue's (TissueProperties::ADC_m2_per_s); empty: 0 everywhere.
  // Only cell states use it (docs/intravoxel.md).
  std::vector<float> ADC_m2_per_s;
  std::vector<std::uint8_t> type;  // CellType
  std::vector<float> ux, uy;       // lattice velocity [cells per flow_dt_s]; |u| <= 1
  std::vector<float> uz;           // 3-D only (empty: no through-plane motion)
  double flow_dt_s = 0;            // time step the lattice velocity refers to (0: static phantom)
  // > 0: this grid is one rank's slab of a larger phantom whose Courant speed (courant.hpp) this is, so that
  // every rank takes the whole phantom's time step (and moves when it moves).
  double whole_courant_speed = 0;
  // Vessel ends inside the grid (inlets/outlets): 1 on the fluid cells whose faces to non-fluid
  // neighbours are open (transport_cell_ops.hpp); empty: every vessel end is a closed cap.
  std::vector<std::uint8_t> open_end;

  // Centre of cell (0, 0). The grid follows the FFT convention: image voxel i is centred at
  // (i − matrix/2)·voxel, so the isocentre is the centre of voxel matrix/2, not a voxel corner.
  double x0_m = 0, y0_m = 0, z0_m = 0;
  int cells_per_voxel = 1;

  std::size_t size() const { return static_cast<std::size_t>(nx) * ny * nz; }
  std::size_t slice_size() const { return static_cast<std::size_t>(nx) * ny; }
  double x_m(int ix) const { return x0_m + ix * cell_size_m; }
  double y_m(int iy) const { return y0_m + iy * cell_size_m; }
  double z_m(int iz) const { return z0_m + iz * cell_size_m; }
};

// nx × ny (× nz) cells of one tissue (PD, T1, T2) and one type, centred on the isocentre, no
// off-resonance, at rest (flow_dt_s = 0): the base of test and benchmark objects. nz > 1 also gives a
// zero uz. No ADC (none diffuses): a test sets ADC_m2_per_s where it wants diffusion.
CellPhantom uniform_phantom(int nx, int ny, double cell_m, float PD, float T1_s, float T2_s, CellType type,
                            int nz = 1);

// The box of nx × ny × nz cells from cell (x0, y0, z0) of `ph` as its own phantom (positions kept): the
// sub-volumes of the CPU slab estimate, the z bands of a multi-slice run and the slabs of GPU ranks.
CellPhantom crop_phantom(const CellPhantom& ph, int x0, int y0, int z0, int nx, int ny, int nz);

// The same cells with the y and z axes exchanged: cell (x, y, z) becomes cell (x, z, y) of an nx × nz × ny grid,
// uy and uz and the y and z origins exchanged. Slab ranks split a 3-D grid along y by playing it so (its y rows
// become whole planes); swapping twice gives the phantom back.
CellPhantom swap_y_z(const CellPhantom& ph);
// Values on the cells of an nx × ny × nz grid (`blocks` grids one after another: coil maps, a truth per coil)
// into `out` in the order of swap_y_z's grid.
template <typename T>
void swap_y_z_cells(const std::vector<T>& in, std::vector<T>& out, int nx, int ny, int nz) {
  const std::size_t grid = static_cast<std::size_t>(nx) * ny * nz, blocks = grid ? in.size() / grid : 0;
  out.resize(in.size());
  for (std::size_t b = 0; b < blocks; ++b)
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y) {
        const T* from = in.data() + b * grid + (static_cast<std::size_t>(z) * ny + y) * nx;
        std::copy(from, from + nx, out.data() + b * grid + (static_cast<std::size_t>(y) * nz + z) * nx);
      }
}

// Cells along z of `spec` on a grid of `matrix` voxels over fov_m: 1 for a 2-D slice, else
// round(slab_thickness_m / cell) (at least 1) with cubic cells of the in-plane size.
int slab_cells(const PhantomSpec& spec, double fov_m, int matrix);
// Bytes the phantom and the simulator state need for `spec`; shown before building. fov_m > 0 counts
// the slab's nz (slab_cells); 0: one slice.
std::size_t phantom_memory_bytes(const PhantomSpec& spec, int matrix, double fov_m = 0);
// Builds the cell grid: matrix * cells_per_voxel cells along each axis over fov_m (and slab_cells along
// z, centred on z = 0, for a slab). Partial volume at tissue boundaries is resolved by 4x4 (4x4x4 in a
// slab) supersampling of each cell. In a slab the tissue disc is a cylinder along z, the straight vessel
// a cylinder of vessel_radius_m about its in-plane axis, a vessel tree its 3-D discretisation.
CellPhantom build_phantom(const PhantomSpec& spec, double fov_m, int matrix);
// The phantom's cells as a CellGrid (for discretise_vessels and the flow solvers).
CellGrid phantom_grid(const CellPhantom& ph);
// Vessel ends inside the grid are inlets and outlets, not caps: the fluid cells near each end get
// open_end = 1 (transport_cell_ops.hpp), so fresh blood flows in and out there. 2-D slices: 2-D trees only.
void mark_vessel_ends(CellPhantom& ph, const VesselTree& tree);

}  // namespace mrwb
