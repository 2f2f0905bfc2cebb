#pragma once
// Image volumes on disk. One type, ImageVolume, for multi-slice / kz-partition data (write_image_volume) and
// the 3-D non-Cartesian reconstruction (write_volume, which also writes NIfTI).
#include <string>
#include <vector>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb {

// .h5 (one ISMRMRD complex image nx × ny × nz, FOV in mm) or .cfl (BART [x, y, z] complex), atomically.
// Other extensions: InputError naming the path and the allowed ones.
void write_image_volume(const std::string& path, const ImageVolume& v);
void check_image_volume_path(const std::string& path);
// .h5 (any nz) or .cfl ([x, y, z]). Throws InputError naming the file.
ImageVolume read_image_volume(const std::string& path);
ImageVolume read_image_volume_ismrmrd(const std::string& path);  // the .h5 reader (ismrmrd_io.cpp)

}  // namespace mrwb

namespace mrwb::noncart {

// Writes a volume by extension, atomically: .cfl (BART [nx, ny, nz] complex), .nii (NIfTI-1 float32
// magnitude, voxel size fov/n in mm per axis, voxel n/2 at the origin), .h5 (ISMRMRD complex image, matrix
// nx × ny × nz). A FOV of 0 (unknown) gives 1 mm voxels. Other extensions: InputError naming the path and
// the allowed ones.
void write_volume(const std::string& path, const ImageVolume& v);
void check_volume_path(const std::string& path);
// `mrwb recon` of 3-D non-Cartesian data: the outputs checked first, then noncart::reconstruct_volume
// (recon/noncart_volume.hpp) and write_volume to each output.
ImageVolume reconstruct_volume_to_files(const RawData& raw, ReconMethod method, Backend backend,
                                        const NoncartParams& p, const std::vector<std::string>& outputs,
                                        const ProgressFn& progress = {}, const CancelToken& cancel = {});

}  // namespace mrwb::noncart
