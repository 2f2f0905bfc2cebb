// Image volumes on disk: ISMRMRD complex image (nx × ny × nz) and BART [x, y, z].
#include <filesystem>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/recon/multislice.hpp"

namespace mrwb {
namespace {

std::string extension(const std::string& path) { return std::filesystem::path(path).extension().string(); }

}  // namespace

void check_image_volume_path(const std::string& path) {
  const std::string ext = extension(path);
  if (ext != ".h5" && ext != ".cfl")
    throw InputError(path + ": a multi-slice / 3-D image is a volume (allowed: .h5 ISMRMRD image, .cfl BART)");
  require_output_folder(path);
}

void write_image_volume(const std::string& path, const ImageVolume& v) {
  check_image_volume_path(path);
  if (v.nx < 1 || v.ny < 1 || v.nz < 1 || v.nx > 65535 || v.ny > 65535 || v.nz > 65535 || v.data.size() != v.plane() * v.nz)
    throw InputError(path + ": volume " + std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nz) +
                     " does not match its data (allowed: 1 .. 65535 each)");
  if (extension(path) == ".h5") {
    const float fov_mm[3] = {static_cast<float>(v.fov_x_m * 1e3), static_cast<float>(v.fov_y_m * 1e3),
                             static_cast<float>(v.fov_z_m * 1e3)};
    return write_complex_image_ismrmrd(path, v.nx, v.ny, v.nz, fov_mm, v.data.data());
  }
  CflArray a;
  a.dims = {v.nx, v.ny, v.nz};
  a.data = v.data;
  write_cfl(path, a);
}

ImageVolume read_image_volume(const std::string& path) {
  const std::string ext = extension(path);
  if (ext == ".h5") return read_image_volume_ismrmrd(path);
  if (ext != ".cfl" && ext != ".hdr")
    throw InputError(path + ": unknown volume format '" + ext + "' (allowed: .h5, .cfl)");
  CflArray a = read_cfl(path);
  for (std::size_t d = 3; d < a.dims.size(); ++d)
    if (a.dims[d] != 1) throw InputError(path + ": BART array has dimension " + std::to_string(d) + " = " +
                                         std::to_string(a.dims[d]) + " (allowed: an [x, y, z] volume)");
  ImageVolume v;
  v.nx = a.dims.size() > 0 ? static_cast<int>(a.dims[0]) : 1;
  v.ny = a.dims.size() > 1 ? static_cast<int>(a.dims[1]) : 1;
  v.nz = a.dims.size() > 2 ? static_cast<int>(a.dims[2]) : 1;
  v.data = std::move(a.data);
  return v;
}

}  // namespace mrwb
