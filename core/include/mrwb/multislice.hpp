#pragma once
// Multi-slice 2-D and 3-D (kz partition) Cartesian data end to end: the raw-data helpers, the volume
// reconstruction (per slice / per partition through the 2-D reconstructors), the image volume and its
// files, and the simulation of such scenarios (sequence.slices > 1 or sequence.partitions > 1).
#include <complex>
#include <string>
#include <vector>

#include "mrwb/image.hpp"
#include "mrwb/progress.hpp"
#include "mrwb/raw_data.hpp"
#include "mrwb/reconstructor.hpp"
#include "mrwb/scenario.hpp"

namespace mrwb {

class SimulationEngine;
struct CellPhantom;

// nx × ny × nz complex voxels, x fastest; z is the slice (2-D multi-slice, slice 0 first = lowest z) or
// the partition (3-D: partition i at z = (i − nz/2)·fov_z/nz, the centring of the in-plane axes).
struct ImageVolume {
  int nx = 0, ny = 0, nz = 0;
  double fov_x_m = 0, fov_y_m = 0, fov_z_m = 0;  // fov_z_m: nz · slice spacing (2-D) or slab (3-D)
  std::vector<std::complex<float>> data;

  std::size_t plane() const { return static_cast<std::size_t>(nx) * ny; }
  Image2D slice(int z) const;  // one z plane as a 2-D image
};
// 2-D images of one size stacked along z. Throws InputError when they differ in size.
ImageVolume stack_images(const std::vector<Image2D>& planes, double fov_z_m);

// ---- Raw data ----
// One slice / partition as a 2-D RawData (same header, noise scan and line flags; slices = partitions = 1).
// For 3-D data pass hybrid_space(raw) first: in k-space a partition is one kz, not one z.
RawData extract_slice(const RawData& raw, int slice, int partition = 0);
// 3-D: the centred inverse DFT along kz for every (coil, slice, line, sample), so that partition i holds
// the z plane i of the slab (hybrid space: x-y still in k-space). Unacquired lines stay zero. 2-D data are
// returned unchanged. Throws InputError for a kz centre other than partitions/2 (no kz partial Fourier).
RawData hybrid_space(const RawData& raw);

// ---- Reconstruction ----
// Every slice (2-D) or every partition of the hybrid space (3-D) through the 2-D reconstructor of
// options.method (fft, grappa: R and ACS per slice / partition), stacked into a volume. progress runs
// 0..1 over the planes; cancel is checked between them. 2-D single-slice data give nz = 1.
ImageVolume reconstruct_volume(const RawData& raw, const ReconOptions& options, const ProgressFn& progress = {},
                               const CancelToken& cancel = {});

// ---- Files ----
// .h5 (one ISMRMRD complex image nx × ny × nz, FOV in mm) or .cfl (BART [x, y, z] complex), atomically.
// Other extensions: InputError naming the path and the allowed ones.
void write_image_volume(const std::string& path, const ImageVolume& v);
void check_image_volume_path(const std::string& path);
// .h5 (any nz) or .cfl ([x, y, z]). Throws InputError naming the file.
ImageVolume read_image_volume(const std::string& path);
ImageVolume read_image_volume_ismrmrd(const std::string& path);  // the .h5 reader (ismrmrd_io.cpp)

// ---- Simulation ----
// True when the scenario asks for a volume: sequence.slices > 1 or sequence.partitions > 1.
bool is_volume_scenario(const Scenario& s);
struct VolumeSimulationResult {
  RawData raw;         // slices × partitions k-space
  ImageVolume truth;   // per slice (2-D) or per partition (3-D): cell Mxy at the k = 0 readout, summed
                       // over the cells of that z range and weighted as sos_weighted_truth does
  std::string backend;
  double seconds = 0;
};
// The block builder's sequence (spoiled_gre / tof, slices interleaved per TR with RF frequency offsets,
// or the 3-D tof slab with kz partitions) through to_sequence_program on the scenario's slab phantom
// (phantom.slab_thickness_m > 0). Multi-slice: the slab is split into one z band per slice and each band is
// played through the whole interleaved program (the bands' signals add up to the full phantom's exactly,
// as long as nothing moves between bands); band s's truth is its cells at slice s's k = 0 readout.
VolumeSimulationResult simulate_volume(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                       const CancelToken& cancel);
// The same on a given phantom (tests use phantoms whose content varies along z).
VolumeSimulationResult simulate_volume(const Scenario& scenario, const CellPhantom& phantom, SimulationEngine& engine,
                                       const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
