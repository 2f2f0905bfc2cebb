#pragma once
// Image volumes on disk: ImageVolume (multi-slice, kz partitions) and noncart::Volume (3-D non-Cartesian).
#include <string>
#include <vector>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/noncart.hpp"

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

// Writes a volume by extension, atomically: .cfl (BART [n, n, n] complex), .nii (NIfTI-1 float32
// magnitude, voxel size fov/n in mm, centre at the origin), .h5 (ISMRMRD complex image, matrix n^3).
// Other extensions: InputError naming the path and the allowed ones.
void write_volume(const std::string& path, const Volume& v);
void check_volume_path(const std::string& path);
// `mrwb recon` of 3-D non-Cartesian data: the outputs checked first, then noncart::reconstruct_volume
// (recon/noncart.hpp) and write_volume to each output.
Volume reconstruct_volume_to_files(const RawData& raw, const std::string& method, const std::string& backend,
                                   const NoncartParams& p, const std::vector<std::string>& outputs,
                                   const ProgressFn& progress = {}, const CancelToken& cancel = {});

}  // namespace mrwb::noncart
